import Foundation
import Molt

extension CoreDataModel {
    /// Reads one version's `contents` file (the XML inside `<version>.xcdatamodel`).
    ///
    /// - Parameters:
    ///   - data: The bytes of `contents`.
    ///   - name: The version's name, used in messages.
    /// - Throws: `MoltError` (`invalidSchema`) when the XML is malformed, is not a Core Data model, or
    ///   holds an element or a value this reader does not know; the message names the entity and property.
    package init(contentsXML data: Data, name: String) throws {
        var reader = CoreDataModelReader(versionName: name)
        var document = XMLElementReader(Array(data))
        do {
            try document.read(
                start: { try reader.start($0, attributes: $1, line: $2) }, end: { reader.end($0) })
        } catch let malformed as XMLElementReader.Malformed {
            throw MoltError(
                .invalidSchema,
                "Core Data model '\(name)': its contents are not well-formed XML (line \(malformed.line): \(malformed.reason)). Restore the file from version control."
            )
        }
        guard reader.sawModel else {
            throw MoltError(
                .invalidSchema,
                "Core Data model '\(name)': its contents have no <model> element, so it is not a Core Data model (Xcode writes `<model type=\"com.apple.IDECoreDataModeler.DataModel\" …>`). Give the path of an .xcdatamodel or .xcdatamodeld folder."
            )
        }
        self.init(name: name, entities: reader.entities)
        versionIdentifier = reader.versionIdentifier
    }
}

/// What ``CoreDataModel/init(contentsXML:name:)`` collects from the elements of `contents`: entities and their
/// members, element by element; it throws at the first thing it does not understand.
private struct CoreDataModelReader {
    let versionName: String
    var entities: [CoreDataEntity] = []
    var sawModel = false
    var versionIdentifier: String?
    private var current: CoreDataEntity?
    private var stack: [String] = []

    /// Elements inside an entity that hold nothing Core Data stores: user info, fetched properties (a saved
    /// fetch, computed on access), and their children.
    private static let ignoredInEntity: Set<String> = ["userInfo", "entry", "fetchedProperty", "fetchRequest"]

    init(versionName: String) { self.versionName = versionName }

    mutating func start(_ element: String, attributes: [String: String], line: Int) throws {
        defer { stack.append(element) }
        if stack.contains(where: Self.ignoredInEntity.contains) { return }
        switch element {
        case "model":
            sawModel = true
            versionIdentifier = attributes["userDefinedModelVersionIdentifier"].flatMap { $0.isEmpty ? nil : $0 }
        case "entity":
            guard let name = attributes["name"] else { throw fail(line, "an <entity> has no name.") }
            current = CoreDataEntity(
                name: name, parent: attributes["parentEntity"], isAbstract: attributes["isAbstract"] == "YES",
                renamingIdentifier: attributes["elementID"])
        case "attribute" where stack.last == "entity":
            try readAttribute(attributes, line: line)
        case "relationship" where stack.last == "entity":
            try readRelationship(attributes, line: line)
        case "uniquenessConstraint":
            current?.uniquenessConstraints.append([])
        case "constraint" where stack.last == "uniquenessConstraint":
            if let value = attributes["value"], var entity = current, !entity.uniquenessConstraints.isEmpty {
                entity.uniquenessConstraints[entity.uniquenessConstraints.count - 1].append(value)
                current = entity
            }
        case "compoundIndex", "fetchIndex":
            current?.indexes.append([])
        case "index" where stack.last == "compoundIndex", "fetchIndexElement" where stack.last == "fetchIndex":
            if let value = attributes["value"] ?? attributes["property"], var entity = current, !entity.indexes.isEmpty
            {
                entity.indexes[entity.indexes.count - 1].append(value)
                current = entity
            }
        case "uniquenessConstraints", "compoundIndexes":
            break
        case _ where Self.ignoredInEntity.contains(element):
            break
        case _ where stack.last == "entity":
            throw fail(
                line,
                "entity '\(current?.name ?? "?")' holds a <\(element)> element, which molt convert-model does not know. Remove it from the model, or report it so that the converter learns it."
            )
        default:
            // Outside entities: layout (<elements>), configurations, fetch requests: nothing that is stored.
            break
        }
    }

    mutating func end(_ element: String) {
        stack.removeLast()
        if element == "entity", !stack.contains(where: Self.ignoredInEntity.contains), let entity = current {
            entities.append(entity)
            current = nil
        }
    }

    private mutating func readAttribute(_ attributes: [String: String], line: Int) throws {
        guard let name = attributes["name"],
            let type = attributes["attributeType"] ?? (attributes["transient"] == "YES" ? "Undefined" : nil)
        else {
            throw fail(line, "an <attribute> of entity '\(current?.name ?? "?")' has no name or no attributeType.")
        }
        current?.attributes.append(
            CoreDataAttribute(
                name: name, type: type, isOptional: attributes["optional"] == "YES",
                isTransient: attributes["transient"] == "YES", isIndexed: attributes["indexed"] == "YES",
                defaultText: attributes["defaultValueString"],
                defaultDateInterval: attributes["defaultDateTimeInterval"],
                renamingIdentifier: attributes["elementID"],
                allowsExternalStorage: attributes["allowsExternalBinaryDataStorage"] == "YES"))
    }

    private mutating func readRelationship(_ attributes: [String: String], line: Int) throws {
        let entity = current?.name ?? "?"
        guard let name = attributes["name"], let destination = attributes["destinationEntity"] else {
            throw fail(line, "a <relationship> of entity '\(entity)' has no name or no destinationEntity.")
        }
        var relationship = CoreDataRelationship(name: name, destination: destination)
        relationship.isToMany = attributes["toMany"] == "YES"
        relationship.isOrdered = attributes["ordered"] == "YES"
        relationship.isOptional = attributes["optional"] == "YES"
        relationship.isTransient = attributes["transient"] == "YES"
        relationship.inverse = attributes["inverseName"]
        relationship.renamingIdentifier = attributes["elementID"]
        relationship.minCount = attributes["minCount"].flatMap { Int($0) }
        relationship.maxCount = attributes["maxCount"].flatMap { Int($0) }
        if let rule = attributes["deletionRule"] {
            guard let known = CoreDataRelationship.DeleteRule(rawValue: rule) else {
                throw fail(
                    line,
                    "relationship '\(entity).\(name)' has deletionRule '\(rule)', which is not one of Nullify, Cascade, Deny, No Action."
                )
            }
            relationship.deleteRule = known
        }
        current?.relationships.append(relationship)
    }

    private func fail(_ line: Int, _ message: String) -> MoltError {
        MoltError(.invalidSchema, "Core Data model '\(versionName)' (line \(line)): \(message)")
    }
}
