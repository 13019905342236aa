/// The schema snapshots of the campaign's store: a vet clinic's owners and pets, as `molt schema` writes them.
///
/// Version 1 has every attribute type and a to-many ↔ to-one pair (`Owner.pets` ↔ `Pet.owner`), so that
/// checks cover every value type, a join table and a foreign key. The migration kinds derive version 2 from it.
enum ClinicSchema {
    static func attribute(_ name: String, _ type: String, optional: Bool = false, default value: JSON? = nil) -> JSON {
        var attribute: JSON = ["name": .string(name), "type": .string(type), "optional": .bool(optional)]
        if let value { attribute["default"] = value }
        return attribute
    }

    static func relationship(
        _ name: String, to destination: String, kind: String, inverse: String?, deleteRule: String = "nullify"
    ) -> JSON {
        var relationship: JSON = [
            "name": .string(name), "destination": .string(destination), "kind": .string(kind),
            "deleteRule": .string(deleteRule),
        ]
        if kind == "toMany" { relationship["ordered"] = false }
        if let inverse { relationship["inverse"] = .string(inverse) }
        return relationship
    }

    static func entity(_ name: String, attributes: [JSON], relationships: [JSON] = []) -> JSON {
        var entity: JSON = ["name": .string(name), "attributes": .array(attributes)]
        if !relationships.isEmpty { entity["relationships"] = .array(relationships) }
        return entity
    }

    static func owner(attributes extra: [JSON] = [], relationships moreRelationships: [JSON] = []) -> JSON {
        entity(
            "Owner",
            attributes: [
                attribute("name", "string"), attribute("email", "string", optional: true),
                attribute("street", "string"),
                attribute("city", "string"), attribute("joined", "date"),
            ] + extra,
            relationships: [relationship("pets", to: "Pet", kind: "toMany", inverse: "owner")] + moreRelationships)
    }

    static func pet(attributes extra: [JSON] = []) -> JSON {
        entity(
            "Pet",
            attributes: [
                attribute("name", "string"), attribute("species", "string"), attribute("weight", "int"),
                attribute("birth", "date", optional: true), attribute("vaccinated", "bool"),
                attribute("chip", "uuid", optional: true), attribute("photo", "data", optional: true),
            ] + extra,
            relationships: [relationship("owner", to: "Owner", kind: "toOne", inverse: "pets")])
    }

    static func snapshot(version: Int64, entities: [JSON]) -> JSON {
        ["formatVersion": 1, "version": .int(version), "entities": .array(entities)]
    }

    /// Version 1: `Owner` (name, email?, street, city, joined, pets) and `Pet` (name, species, weight, birth?,
    /// vaccinated, chip?, photo?, owner).
    static let version1 = snapshot(version: 1, entities: [owner(), pet()])

    /// The entity named `name` of a snapshot, changed by `change`.
    static func editing(_ snapshot: JSON, entity name: String, _ change: (inout JSON) -> Void) -> JSON {
        var copy = snapshot
        guard var entities = copy["entities"]?.arrayValue else { return copy }
        for index in entities.indices where entities[index]["name"] == .string(name) { change(&entities[index]) }
        copy["entities"] = .array(entities)
        return copy
    }

    /// The attribute `name` of an entity (a JSON object with `attributes`), changed by `change`.
    static func editing(attribute name: String, of entity: inout JSON, _ change: (inout JSON) -> Void) {
        guard var attributes = entity["attributes"]?.arrayValue else { return }
        for index in attributes.indices where attributes[index]["name"] == .string(name) { change(&attributes[index]) }
        entity["attributes"] = .array(attributes)
    }

    /// Appends attributes to an entity.
    static func adding(_ extra: [JSON], to entity: inout JSON) {
        entity["attributes"] = .array((entity["attributes"]?.arrayValue ?? []) + extra)
    }

    /// The snapshot at another version number.
    static func with(version: Int64, _ snapshot: JSON) -> JSON {
        var copy = snapshot
        copy["version"] = .int(version)
        return copy
    }
}
