import Foundation
import Molt

extension RealmObjectSchema {
    /// This object schema read as `declared`, the app's own Molt schema of the file (its first Molt version):
    /// the same entities, attributes (same type and optionality) and stored links, in the app's order and version,
    /// with its delete rules and indexes; it may add the inverse of a stored link (a Realm `LinkingObjects`
    /// property), which the adoption fills from that link.
    ///
    /// - Throws: `MoltError.invalidSchema` naming the first class or property the two describe differently.
    func reading(as declared: Schema) throws -> RealmObjectSchema {
        try declared.validate()
        var result = self
        result.schema = declared
        result.filledFromInverse = [:]
        for index in classes.indices {
            let derived = classes[index].entity
            guard let entity = declared.entity(named: derived.name) else {
                throw Self.mismatch("declares no entity '\(derived.name)' for the Realm class of that name")
            }
            guard entity.parent == nil, !entity.isAbstract else {
                throw Self.mismatch(
                    "makes '\(entity.name)' part of a hierarchy, which a Realm class is not: declare it flat, and give it a parent in a later version"
                )
            }
            result.classes[index].entity = entity
            result.classes[index].attributeColumns = try attributeColumns(of: entity, in: classes[index])
            let filled = try unstoredInverses(of: entity, derived: derived)
            if !filled.isEmpty { result.filledFromInverse[entity.name] = filled }
        }
        let classNames = Set(classes.map(\.entity.name))
        if let extra = declared.entities.first(where: { !classNames.contains($0.name) }) {
            throw Self.mismatch("declares the entity '\(extra.name)', which the Realm file has no class for")
        }
        return result
    }

    /// The columns of `entity`'s attributes, checked against the file's.
    private func attributeColumns(of entity: Entity, in objectClass: ObjectClass) throws -> [Int] {
        let derived = objectClass.entity
        let columns = try entity.attributes.map { attribute in
            guard let position = derived.attributes.firstIndex(where: { $0.name == attribute.name }) else {
                throw Self.mismatch(
                    "declares '\(entity.name).\(attribute.name)', which the Realm class has no stored property for")
            }
            let found = derived.attributes[position]
            guard found.type == attribute.type, found.isOptional == attribute.isOptional else {
                throw Self.mismatch(
                    "declares '\(entity.name).\(attribute.name)' as \(Self.describe(attribute)), but the Realm file holds \(Self.describe(found)) values there"
                )
            }
            return objectClass.attributeColumns[position]
        }
        if let missing = derived.attributes.first(where: { entity.attribute(named: $0.name) == nil }) {
            throw Self.mismatch(
                "has no attribute for the Realm property '\(entity.name).\(missing.name)' (\(Self.describe(missing))): declare it, so that its values are kept"
            )
        }
        return columns
    }

    /// The relationships of `entity` that the file does not store: each must be the inverse of one it stores.
    private func unstoredInverses(of entity: Entity, derived: Entity) throws -> [String] {
        var filled: [String] = []
        for relationship in entity.relationships {
            if let stored = derived.relationship(named: relationship.name) {
                guard stored.destination == relationship.destination, stored.kind == relationship.kind,
                    stored.isOrdered == relationship.isOrdered
                else {
                    throw Self.mismatch(
                        "declares '\(entity.name).\(relationship.name)' as \(Self.describe(relationship)), but the Realm file stores \(Self.describe(stored))"
                    )
                }
                continue
            }
            let origin = classes.first { $0.entity.name == relationship.destination }?.entity
            guard let inverse = relationship.inverse, let link = origin?.relationship(named: inverse),
                link.destination == entity.name
            else {
                throw Self.mismatch(
                    "declares '\(entity.name).\(relationship.name)', which the Realm file does not store: only the inverse of a stored link (a LinkingObjects property) can be declared without one, with `inverse:` naming that link"
                )
            }
            filled.append(relationship.name)
        }
        if let missing = derived.relationships.first(where: { entity.relationship(named: $0.name) == nil }) {
            throw Self.mismatch(
                "has no relationship for the Realm link '\(entity.name).\(missing.name)' (\(Self.describe(missing))): declare it, so that its links are kept"
            )
        }
        return filled
    }

    private static func describe(_ attribute: Attribute) -> String {
        "\(attribute.isOptional ? "optional " : "")\(attribute.type)"
    }

    private static func describe(_ relationship: Relationship) -> String {
        switch relationship.kind {
        case .toOne: "a link to '\(relationship.destination)'"
        case .toMany: "\(relationship.isOrdered ? "a list" : "a set") of links to '\(relationship.destination)'"
        }
    }

    private static func mismatch(_ problem: String) -> MoltError {
        MoltError(
            .invalidSchema,
            "The schema given for the Realm file \(problem). Nothing was adopted and the file was left as it was. Make the schema describe the file's classes as they are (`molt adopt FILE --from realm --into scratch.sqlite` without a schema, then `molt schema scratch.sqlite`, prints them), and change them in the versions after it."
        )
    }
}
