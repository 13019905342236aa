import Foundation
import Molt

/// The model a Core Data store carries in `Z_MODELCACHE`: the compiled model Core Data archived (a keyed archive,
/// DEFLATE-compressed) when it last saved the store, read back as a ``CoreDataModel``, for a store adopted without
/// the app's model file or Molt schemas.
///
/// What it keeps is what the store lays out: entities and their parents, attributes with their types and
/// optionality, relationships with their destination, inverse, cardinality, order and delete rule. Defaults,
/// indexes and uniqueness constraints are not read (the adopted store's first Molt version has none; the app's
/// plan brings its own); nor is external storage, which the archive does not say in a documented way: a binary
/// column whose every value carries the marker is refused naming the attribute.
package enum CoreDataModelCache {
    /// The model archived in `blob`, the content of `Z_MODELCACHE`.
    ///
    /// - Parameters:
    ///   - blob: The compressed archive.
    ///   - name: The name the model is given in messages.
    /// - Throws: `MoltError` (`invalidSchema`) naming what cannot be read.
    package static func model(from blob: [UInt8], name: String) throws -> CoreDataModel {
        func refuse(_ what: String) -> MoltError {
            MoltError(
                .invalidSchema,
                "The model Core Data keeps in the store (Z_MODELCACHE) cannot be read: \(what). Give the app's Core Data model (--model) or Molt schemas of its entities (--schema) instead."
            )
        }
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(try PropertyListValue(binary: try Inflate.decompress(blob, limit: 16 << 20)))
        } catch let malformed as Inflate.Malformed {
            throw refuse("its compression is damaged (\(malformed.reason))")
        } catch let malformed as BinaryPropertyListMalformed {
            throw refuse("its archive is damaged (\(malformed.reason))")
        }
        guard let root = archive.object(archive.top["root"]), archive.className(of: root) == "NSManagedObjectModel"
        else {
            throw refuse("it does not hold a managed object model")
        }
        var entities: [CoreDataEntity] = []
        for (_, reference) in archive.dictionary(root["NSEntities"]) {
            guard let entity = archive.object(reference), let entityName = archive.string(entity["NSEntityName"]) else {
                throw refuse("an entity has no name")
            }
            entities.append(try Self.entity(entity, named: entityName, in: archive, refuse: refuse))
        }
        var model = CoreDataModel(name: name, entities: entities.sorted { $0.name < $1.name })
        model.versionIdentifier = archive.array(root["NSVersionIdentifiers"]).compactMap(archive.string).first {
            !$0.isEmpty
        }
        return model
    }

    private static func entity(
        _ entity: PropertyListValue, named name: String, in archive: KeyedArchive, refuse: (String) -> MoltError
    ) throws -> CoreDataEntity {
        let parent = archive.object(entity["NSSuperentity"])
        var described = CoreDataEntity(
            name: name, parent: parent.flatMap { archive.string($0["NSEntityName"]) },
            isAbstract: archive.bool(entity["NSIsAbstract"]))
        // A sub-entity's archive lists its parent's properties again: only its own are declared here.
        let inherited = Set(parent.map { archive.dictionary($0["NSProperties"]).map(\.0) } ?? [])
        for (propertyName, reference) in archive.dictionary(entity["NSProperties"])
        where !inherited.contains(propertyName) {
            guard let property = archive.object(reference) else {
                throw refuse("property '\(name).\(propertyName)' is missing")
            }
            switch archive.className(of: property) {
            case "NSAttributeDescription", "NSDerivedAttributeDescription":
                let code = archive.int(property["NSAttributeType"]) ?? -1
                let transient = archive.bool(property["NSIsTransient"])
                guard let type = attributeTypes[code] ?? (transient ? "Undefined" : nil) else {
                    throw refuse(
                        "attribute '\(name).\(propertyName)' has the attribute type \(code), which molt does not know")
                }
                described.attributes.append(
                    CoreDataAttribute(
                        name: propertyName, type: type, isOptional: archive.bool(property["NSIsOptional"]),
                        isTransient: transient))
            case "NSRelationshipDescription":
                described.relationships.append(
                    try relationship(property, named: propertyName, of: name, in: archive, refuse: refuse))
            default:
                continue  // fetched properties and expressions: nothing stored
            }
        }
        described.attributes.sort { $0.name < $1.name }
        described.relationships.sort { $0.name < $1.name }
        return described
    }

    private static func relationship(
        _ property: PropertyListValue, named name: String, of entity: String, in archive: KeyedArchive,
        refuse: (String) -> MoltError
    ) throws -> CoreDataRelationship {
        let destination =
            archive.string(property["_NSDestinationEntityName"])
            ?? archive.object(property["NSDestinationEntity"]).flatMap { archive.string($0["NSEntityName"]) }
        guard let destination else { throw refuse("relationship '\(entity).\(name)' has no destination") }
        var described = CoreDataRelationship(name: name, destination: destination)
        let maximum = Int(archive.int(property["NSMaxCount"]) ?? 0)
        described.isToMany = maximum != 1
        described.maxCount = maximum == 0 ? nil : maximum
        described.minCount = archive.int(property["NSMinCount"]).map { Int($0) }
        described.isOrdered = archive.bool(property["NSIsOrdered"])
        described.isOptional = archive.bool(property["NSIsOptional"])
        described.isTransient = archive.bool(property["NSIsTransient"])
        described.inverse =
            archive.string(property["_NSInverseRelationshipName"])
            ?? archive.object(property["NSInverseRelationship"]).flatMap { archive.string($0["NSPropertyName"]) }
        switch archive.int(property["NSDeleteRule"]) ?? 1 {
        case 0: described.deleteRule = .noAction
        case 2: described.deleteRule = .cascade
        case 3: described.deleteRule = .deny
        default: described.deleteRule = .nullify
        }
        return described
    }

    /// `NSAttributeType` values, as `contents` names them.
    private static let attributeTypes: [Int64: String] = [
        100: "Integer 16", 200: "Integer 32", 300: "Integer 64", 400: "Decimal", 500: "Double", 600: "Float",
        700: "String", 800: "Boolean", 900: "Date", 1000: "Binary", 1100: "UUID", 1200: "URI", 1800: "Transformable",
    ]
}

/// The objects of an `NSKeyedArchiver` archive, references (UIDs) followed.
private struct KeyedArchive {
    let objects: [PropertyListValue]
    let top: PropertyListValue

    init(_ archive: PropertyListValue) throws {
        guard case .array(let objects)? = archive["$objects"], let top = archive["$top"] else {
            throw BinaryPropertyListMalformed(reason: "it is not a keyed archive ($objects, $top)")
        }
        self.objects = objects
        self.top = top
    }

    /// The object a value refers to (the value itself when it is no reference); nil for `$null`.
    func object(_ value: PropertyListValue?) -> PropertyListValue? {
        guard let value else { return nil }
        guard case .uid(let index) = value else { return value }
        guard index > 0, index < objects.count else { return nil }
        return objects[index]
    }

    func string(_ value: PropertyListValue?) -> String? {
        if case .string(let text)? = object(value) { return text }
        return nil
    }

    func int(_ value: PropertyListValue?) -> Int64? {
        if case .int(let number)? = object(value) { return number }
        return nil
    }

    func bool(_ value: PropertyListValue?) -> Bool {
        switch object(value) {
        case .bool(let flag)?: flag
        case .int(let number)?: number != 0
        default: false
        }
    }

    func className(of object: PropertyListValue) -> String? {
        string(self.object(object["$class"])?["$classname"])
    }

    /// The elements of an `NSArray` or `NSSet`.
    func array(_ value: PropertyListValue?) -> [PropertyListValue] {
        if case .array(let elements)? = object(value)?["NS.objects"] { return elements }
        return []
    }

    /// The pairs of an `NSDictionary`, or of Core Data's known-keys dictionary (`values` in the order of its
    /// mapping's `keys`), keys resolved to strings.
    func dictionary(_ value: PropertyListValue?) -> [(String, PropertyListValue)] {
        guard let dictionary = object(value) else { return [] }
        if case .array(let keys)? = dictionary["NS.keys"], case .array(let values)? = dictionary["NS.objects"] {
            return zip(keys, values).compactMap { key, value in string(key).map { ($0, value) } }
        }
        let keys = array(object(dictionary["searchMapping"])?["keys"]).compactMap(string)
        return Array(zip(keys, array(dictionary["values"])))
    }
}
