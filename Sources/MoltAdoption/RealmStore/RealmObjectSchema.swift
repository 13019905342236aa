import Foundation
import Molt

/// The Molt schema a Realm file's own tables describe: each object class (a `class_` table) an entity, each
/// stored property an attribute or a relationship, read from the file alone, as Realm itself reads it.
///
/// | Realm | Molt |
/// |---|---|
/// | `Int`, `Bool`, `Float`, `Double`, `String`, `Data`, `UUID` (optional or not) | the same type |
/// | `Date` | `date`: the `Date` Realm Swift reads (see ``RealmValues``) |
/// | `Decimal128` | `decimal` |
/// | `ObjectId` | `string`: its 24 lowercase hexadecimal digits, as `ObjectId.stringValue` writes them |
/// | a link, `List`, `MutableSet` of objects | a to-one, an ordered to-many, a to-many relationship |
/// | an embedded object, a list of them | the same, with the cascade delete rule (they live in their owner) |
/// | the primary key | ``Entity/primaryKey`` (an optional one: a unique index, as Realm allows one nil key) |
/// | an indexed property | an ``Entity/Index`` |
/// | `LinkingObjects` | not stored by Realm: an inverse the app's schema declares, filled from the links |
///
/// What has no exact Molt form yet (`AnyRealmValue`, collections of values, maps) is refused naming the class,
/// the property and why, before anything is written.
struct RealmObjectSchema {
    /// One object class: its table and where each member's values are in the table's columns.
    struct ObjectClass {
        var entity: Entity
        var table: RealmTable
        /// Per attribute of ``entity`` (in its order), the index of its column.
        var attributeColumns: [Int]
        /// Per relationship the file stores (by name), the index of its column.
        var linkColumns: [String: Int]
    }

    /// The schema, at the Realm file's schema version (or the version of the app's own schema).
    var schema: Schema
    /// The schema version the file records (Realm's `schemaVersion`).
    var realmVersion: Int
    var classes: [ObjectClass]
    /// Per entity, the relationships the file does not store (the inverses the app's schema declares for its
    /// `LinkingObjects`), filled from the links they are the inverse of and left out of the digests.
    var filledFromInverse: [String: [String]] = [:]
    /// Realm's backlink columns: what a `LinkingObjects` property computes.
    var backlinks: [Backlink] = []
    /// The lines of ``leftOut`` other than backlinks: Realm's own tables, full-text indexes.
    private var otherLeftOut: [String]

    /// The links to a class that Realm keeps a backlink column for.
    struct Backlink {
        /// The class linked to, and the class and property of the link.
        var target: String, origin: String, property: String
    }

    /// What the adoption leaves out (Realm's own tables, backlinks no inverse keeps, full-text indexes), one line
    /// each.
    var leftOut: [String] {
        let kept = backlinks.filter { link in
            guard let origin = schema.entity(named: link.origin)?.relationship(named: link.property) else {
                return false
            }
            return origin.inverse == nil
        }
        return otherLeftOut
            + kept.map {
                "Realm's backlinks of '\($0.target)' from \($0.origin).\($0.property) (what a LinkingObjects property computes: declare it as the inverse in the app's schema to have Molt keep it)"
            }
    }

    /// The name a Realm property is adopted under: `renaming["Class.property"]`, or its own.
    typealias Renaming = [String: String]

    /// Reads the object schema of `file`.
    ///
    /// - Throws: `MoltError.unsupportedFormat` naming the class and the property that has no exact Molt form, or
    ///   the file that holds no object class; `.invalidSchema` for a name Molt reserves (with the renaming to give).
    init(_ file: RealmFile, renaming: Renaming) throws {
        let classTables = file.tables.filter { $0.name.hasPrefix(Self.classPrefix) }
        guard !classTables.isEmpty else {
            let names = file.tables.map { "'\($0.name)'" }.joined(separator: ", ")
            throw MoltError(
                .unsupportedFormat,
                "The Realm file at \(file.bytes.url.path) holds no object class (\(names.isEmpty ? "no tables" : "only the tables \(names), which no Realm SDK declares")), so there is nothing an app stored to adopt. Check the path, or open the file with the Realm app it belongs to."
            )
        }
        let version = try Self.schemaVersion(file)
        realmVersion = version
        otherLeftOut = try file.tables.filter { !$0.name.hasPrefix(Self.classPrefix) }.map { table in
            if table.name == "metadata" {
                return "Realm's table 'metadata' (the schema version, \(version): in the adoption record)"
            }
            try Self.requireEmpty(table, in: file)
            return "Realm's table '\(table.name)' (not an object class, and empty)"
        }
        classes = []
        for table in classTables {
            classes.append(try Self.objectClass(table, in: file, renaming: renaming, leftOut: &otherLeftOut))
            backlinks += Self.backlinks(of: table, in: file, renaming: renaming)
        }
        schema = Schema(version: realmVersion, entities: classes.map(\.entity))
        let properties = Set(
            classTables.flatMap { table in table.columns.map { "\(Self.className(table)).\($0.name)" } })
        if let unknown = renaming.keys.sorted().first(where: { !properties.contains($0) }) {
            throw MoltError(
                .invalidSchema,
                "The renaming names '\(unknown)', which is no property of the Realm file's classes (they are written `Class.property`, with Realm's names). Nothing was adopted. Check the spelling."
            )
        }
        do {
            try schema.validate()
        } catch let error as MoltError {
            throw MoltError(
                error.code,
                "The Realm file's classes do not make a valid Molt schema: \(error.message) Give the property another name in the adoption (`renaming: [\"Class.property\": \"name\"]`, or `molt adopt --rename Class.property=name`).",
                entity: error.entity, property: error.property, cause: error)
        }
    }

    /// Realm Swift's prefix of an object class's table.
    static let classPrefix = "class_"

    /// The class name of a `class_` table.
    static func className(_ table: RealmTable) -> String { String(table.name.dropFirst(classPrefix.count)) }

    /// Refuses a table that is not an object class but holds objects: no Realm SDK writes one, and leaving its
    /// objects out would lose them.
    private static func requireEmpty(_ table: RealmTable, in file: RealmFile) throws {
        var count = 0
        try file.forEachObject(in: table) { _ in count += 1 }
        guard count == 0 else {
            throw MoltError(
                .unsupportedFormat,
                "The Realm file at \(file.bytes.url.path) has the table '\(table.name)', which is not an object class (no `class_` prefix) and holds \(count) object\(count == 1 ? "" : "s"): Molt adopts the classes an app declares, and leaving these out would lose them. Nothing was adopted. Move them into a class with the app that wrote them, or report the file.",
                entity: table.name)
        }
    }

    /// The schema version the object store keeps in its table `metadata` (0 when none is recorded).
    private static func schemaVersion(_ file: RealmFile) throws -> Int {
        guard let metadata = file.table(named: "metadata"),
            let column = metadata.columns.firstIndex(where: { $0.name == "version" })
        else { return 0 }
        var version: Int64?
        try file.forEachObject(in: metadata) { row in
            if version == nil, case .int(let value) = row.values[column] { version = value }
        }
        // Realm's "not versioned" is UInt64.max, read as -1.
        guard let version, version >= 0 else { return 0 }
        return Int(version)
    }

    /// The entity of one class table, and where its members are.
    private static func objectClass(
        _ table: RealmTable, in file: RealmFile, renaming: Renaming, leftOut: inout [String]
    ) throws -> ObjectClass {
        let name = className(table)
        var attributes: [Attribute] = [], attributeColumns: [Int] = []
        var relationships: [Relationship] = [], linkColumns: [String: Int] = [:]
        var indexes: [Index] = []
        var primaryKey: String?
        for (index, column) in table.columns.enumerated() {
            if column.kind == .backlink { continue }
            let property = renaming["\(name).\(column.name)"] ?? column.name
            if column.kind == .link {
                relationships.append(try relationship(property, column, of: name, in: file))
                linkColumns[property] = index
                continue
            }
            attributes.append(try attribute(property, column, of: name))
            attributeColumns.append(index)
            if column.key == table.primaryKeyColumn {
                if column.isNullable { indexes.append(Index([property], unique: true)) } else { primaryKey = property }
            } else if column.isIndexed {
                indexes.append(Index([property]))
            }
            if column.isFullTextIndexed {
                leftOut.append(
                    "the full-text index of '\(name).\(column.name)' (Molt has none; every value is kept)")
            }
        }
        let entity = Entity(
            name, primaryKey: primaryKey, attributes: attributes, relationships: relationships, indexes: indexes)
        return ObjectClass(
            entity: entity, table: table, attributeColumns: attributeColumns, linkColumns: linkColumns)
    }

    /// The backlink columns of `table`.
    private static func backlinks(of table: RealmTable, in file: RealmFile, renaming: Renaming) -> [Backlink] {
        table.columns.filter { $0.kind == .backlink }.map { column in
            let origin = column.targetTableKey.flatMap(file.table(key:)).map(className) ?? "?"
            let originColumn = file.table(key: column.targetTableKey ?? -1)?.columns.first {
                $0.key == column.originColumnKey
            }
            let property = originColumn.map { renaming["\(origin).\($0.name)"] ?? $0.name } ?? "?"
            return Backlink(target: className(table), origin: origin, property: property)
        }
    }

    /// The attribute of a value column, or the refusal of a column that has no exact Molt form.
    private static func attribute(_ property: String, _ column: RealmColumn, of name: String) throws -> Attribute {
        let type: AttributeType
        switch column.kind {
        case .int: type = .int
        case .bool: type = .bool
        case .string, .objectID: type = .string
        case .binary: type = .data
        case .timestamp: type = .date
        case .float: type = .float
        case .double: type = .double
        case .decimal: type = .decimal
        case .uuid: type = .uuid
        case .mixed, .typedLink, .link, .backlink:
            throw unsupported(
                name, column,
                "an AnyRealmValue (a value of any type, chosen per object), which has no exact Molt form yet")
        }
        switch column.collection {
        case .none: break
        case .list, .set:
            throw unsupported(
                name, column,
                "a \(column.collection == .list ? "List" : "MutableSet") of \(column.kind) values (Molt's to-many relationships hold objects; it has no collection of values yet)"
            )
        case .dictionary:
            throw unsupported(name, column, "a Map of \(column.kind) values, which has no exact Molt form yet")
        }
        return Attribute(property, type, isOptional: column.isNullable)
    }

    /// The relationship of a link column: to-one, or an ordered (List) or unordered (MutableSet) to-many.
    private static func relationship(
        _ property: String, _ column: RealmColumn, of name: String, in file: RealmFile
    ) throws -> Relationship {
        guard let key = column.targetTableKey, let target = file.table(key: key), target.name.hasPrefix(classPrefix)
        else {
            throw file.bytes.damaged(
                "the link '\(name).\(column.name)' points to the table with key \(column.targetTableKey ?? -1), which is not an object class of the file"
            )
        }
        // An embedded object lives in its owner: deleting the owner deletes it, as in Realm.
        let rule: Relationship.DeleteRule = target.kind == .embedded ? .cascade : .nullify
        switch column.collection {
        case .none: return Relationship(property, to: className(target), deleteRule: rule)
        case .list: return Relationship(property, toMany: className(target), ordered: true, deleteRule: rule)
        case .set: return Relationship(property, toMany: className(target), deleteRule: rule)
        case .dictionary:
            throw unsupported(name, column, "a Map of links, which has no exact Molt form yet")
        }
    }

    private static func unsupported(_ name: String, _ column: RealmColumn, _ why: String) -> MoltError {
        MoltError(
            .unsupportedFormat,
            "The Realm class '\(name)' has the property '\(column.name)', \(why), so the file was not adopted and was left as it was. Move those values into objects of a class of their own (a List of them) in one more release of the Realm app, then adopt.",
            entity: name, property: column.name)
    }
}
