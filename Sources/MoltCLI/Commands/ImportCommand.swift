import ArgumentParser
import Foundation
import Molt

/// `molt import STORE --schema S.json DATA.json`: creates a store at a schema and fills it with the objects of a
/// `molt export` file, or adds them to an existing store at that schema.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create a store at a schema snapshot from a `molt export` JSON file, or add the objects to one.",
        discussion: """
            The whole file is read and checked against the schema before the store is touched, and the objects are \
            written in one transaction: on any error nothing is written (and a store created for the import is \
            removed). In a new store objects keep their `_id`, so export → import → export gives the same file; \
            added to an existing store they get new `_id`s and their relationships follow. An existing file must be a \
            Molt store already at the schema's version (migrate it first).
            """)

    @OptionGroup var storeArgument: StoreArgument

    @Option(name: .long, help: ArgumentHelp("The schema snapshot of the data (and of the store).", valueName: "schema.json"))
    var schema: String

    @Argument(help: ArgumentHelp("The data, as `molt export` writes it.", valueName: "data.json"))
    var data: String

    /// One object of the file, its values checked against the schema.
    struct Row {
        var entity: Entity
        var fileID: Int64?
        var values: [String: Value]
        var links: [String: [Int64]]
    }

    func run() throws {
        let schema = try Files.schema(at: self.schema)
        let rows = try Self.read(Files.url(data), schema: schema)
        let location = try StoreAddress.location(storeArgument.store)
        let exists = try StoreAddress.holdsStore(location)
        if exists {
            let info = try Files.existingStore(at: storeArgument.store)
            guard info.version == schema.version else {
                if info.version > schema.version {
                    try Store.checkMigration(from: info.schema, to: schema)
                }
                throw CLIFailure(
                    .versionConflict,
                    "The store is at version \(info.version), but the schema is version \(schema.version): bring the store to version \(schema.version) with `molt migrate` first; nothing was written.")
            }
        }
        let store: Store
        do {
            let options = exists ? StoreAddress.options(for: try Store.inspect(at: location)) : Store.Options()
            store = try Store.open(at: location, schema: schema, options: options)
        } catch {
            // A PostgreSQL store is created in one transaction: a failed creation left nothing behind.
            if !exists, let url = location.url { Files.removeStore(url) }
            throw error
        }
        do {
            let count = try store.write { objects in try Self.insert(rows, into: objects, keepingIDs: !exists) }
            try store.close()
            Terminal.line("Imported \(Format.count(count, "object")) into \(location.url?.path ?? location.description) (version \(schema.version)).")
        } catch {
            try? store.close()
            if !exists { try? StoreAddress.remove(createdStore: location, named: storeArgument.store) }
            throw error
        }
    }

    /// Reads and checks the whole data file against `schema`.
    static func read(_ url: URL, schema: Schema) throws -> [Row] {
        // Read through a file handle, so that a pipe (`<(molt export old.sqlite)`) works too.
        guard let handle = FileHandle(forReadingAtPath: url.path), let bytes = try? handle.readToEnd() ?? Data() else {
            throw CLIFailure(.badInput, "There is no data file at \(url.path). Check the path.")
        }
        try? handle.close()
        let name = url.lastPathComponent
        let file: DataFile
        do {
            file = try JSONDecoder().decode(DataFile.self, from: bytes)
        } catch {
            throw CLIFailure(.badInput, "\(name) is not a molt export file (\(Self.reason(error))); write one with `molt export`.")
        }
        guard file.format == DataFile.formatName, file.formatVersion <= DataFile.currentFormatVersion else {
            throw CLIFailure(
                .badInput,
                "\(name) is format '\(file.format)' \(file.formatVersion), but this molt reads '\(DataFile.formatName)' \(DataFile.currentFormatVersion) at most.")
        }
        var rows: [Row] = []
        for entity in schema.entities {
            for object in file.entities[entity.name] ?? [] {
                rows.append(try row(object, of: entity, file: name))
            }
        }
        for name in file.entities.keys.sorted() where schema.entity(named: name) == nil {
            throw CLIFailure(
                .badInput,
                "\(url.lastPathComponent) holds objects of entity '\(name)', which schema version \(schema.version) does not have.")
        }
        return rows
    }

    private static func row(_ object: [String: JSONValue], of entity: Entity, file: String) throws -> Row {
        var fileID: Int64?
        if let id = object["_id"] {
            guard case .int(let value) = id else {
                throw CLIFailure(.badInput, "\(file): an object of '\(entity.name)' has an `_id` that is not an integer: \(id).")
            }
            fileID = value
        }
        let label = fileID.map { "'\(entity.name)' _id \($0)" } ?? "an object of '\(entity.name)'"
        var values: [String: Value] = [:]
        var links: [String: [Int64]] = [:]
        for (key, json) in object where key != "_id" {
            if let attribute = entity.attribute(named: key) {
                guard let value = DataFile.value(json, for: attribute.type) else {
                    throw CLIFailure(
                        .badInput,
                        "\(file): \(label) has \(json) for attribute '\(entity.name).\(key)', which holds \(attribute.type.rawValue) values.")
                }
                if !value.isNull { values[key] = value }
            } else if entity.relationship(named: key) != nil {
                switch json {
                case .null: links[key] = []
                case .int(let id): links[key] = [id]
                case .array(let items):
                    links[key] = try items.map { item in
                        guard case .int(let id) = item else {
                            throw CLIFailure(.badInput, "\(file): \(label) lists \(item) in relationship '\(entity.name).\(key)'; give `_id`s.")
                        }
                        return id
                    }
                default:
                    throw CLIFailure(.badInput, "\(file): \(label) has \(json) for relationship '\(entity.name).\(key)'; give an `_id` or a list of them.")
                }
            } else {
                throw CLIFailure(.badInput, "\(file): \(label) has '\(key)', which is not an attribute or relationship of '\(entity.name)'.")
            }
        }
        return Row(entity: entity, fileID: fileID, values: values, links: links)
    }

    /// Inserts every object, then links them, in the caller's transaction.
    static func insert(_ rows: [Row], into objects: Objects, keepingIDs: Bool) throws -> Int {
        var inserted: [String: [Int64: DynamicObject]] = [:]
        var created: [(Row, DynamicObject)] = []
        for row in rows {
            let object: DynamicObject
            if keepingIDs, let id = row.fileID {
                object = try objects.insert(row.entity.name, row.values, keepingID: id)
            } else {
                object = try objects.insert(row.entity.name, row.values)
            }
            if let id = row.fileID { inserted[row.entity.name, default: [:]][id] = object }
            created.append((row, object))
        }
        for (row, object) in created {
            for relationship in row.entity.relationships {
                guard let ids = row.links[relationship.name] else { continue }
                let destinations = try ids.map { id in
                    guard let destination = inserted[relationship.destination]?[id] else {
                        throw CLIFailure(
                            .badInput,
                            "'\(row.entity.name)' _id \(row.fileID ?? 0) points through '\(relationship.name)' to '\(relationship.destination)' _id \(id), which is not in the file.")
                    }
                    return destination
                }
                // Linking one side of a pair links the inverse too: skip what is already so, which keeps the
                // order an ordered to-many side was given.
                let current = try objects.destinations(relationship.name, of: object).compactMap(\.id)
                if current == destinations.compactMap(\.id) { continue }
                try objects.set(relationship.name, of: object, to: destinations)
            }
        }
        return created.count
    }

    private static func reason(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            if let underlying = context.underlyingError as NSError?,
                let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String
            {
                return "invalid JSON: \(detail)"
            }
            return "invalid JSON"
        case DecodingError.keyNotFound(let key, _): return "it lacks the key '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return "unexpected value at '\(path.hasPrefix(".") ? String(path.dropFirst()) : path)'"
        default: return "\(error)"
        }
    }
}
