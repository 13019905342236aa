import Foundation
import Testing
import Molt

/// One object as a test compares it: its identifier, every attribute value and every relationship's targets.
struct ObjectState: Hashable, CustomStringConvertible {
    var values: [String: Value]
    /// Relationship name → target identifiers (in order for an ordered to-many, sorted otherwise).
    var links: [String: [Int64]]

    var description: String {
        let v = values.keys.sorted().map { "\($0): \(values[$0]!)" }
        let l = links.keys.sorted().map { "\($0) → \(links[$0]!)" }
        return "(" + (v + l).joined(separator: ", ") + ")"
    }
}

/// Every object of a store, entity by entity, keyed by identifier: what a migration must keep value by value.
struct StoreDump: Equatable, CustomStringConvertible {
    var entities: [String: [Int64: ObjectState]]

    var description: String {
        entities.keys.sorted().map { name in
            let objects = entities[name]!
            return "\(name):\n" + objects.keys.sorted().map { "  \($0) \(objects[$0]!)" }.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Reads every object of every entity of the store's schema.
    init(_ store: Store) throws {
        entities = try store.read { objects in
            var result: [String: [Int64: ObjectState]] = [:]
            for entity in store.schema.entities {
                var states: [Int64: ObjectState] = [:]
                for object in try objects.fetch(entity.name) {
                    var links: [String: [Int64]] = [:]
                    for relationship in entity.relationships {
                        let ids = try objects.destinations(relationship.name, of: object).map { $0.id! }
                        links[relationship.name] = relationship.isOrdered ? ids : ids.sorted()
                    }
                    states[object.id!] = ObjectState(values: object.attributeValues, links: links)
                }
                result[entity.name] = states
            }
            return result
        }
    }

    /// Opens the store at `url` with `schema` (which must be its version), reads it, and closes it.
    init(at url: URL, schema: Schema, options: Store.Options = Store.Options()) throws {
        try self.init(at: .file(url), schema: schema, options: options)
    }

    /// Opens the store at `location` with `schema` (which must be its version), reads it, and closes it.
    init(at location: StoreLocation, schema: Schema, options: Store.Options = Store.Options()) throws {
        let store = try Store.open(at: location, schema: schema, options: options)
        defer { try? store.close() }
        try self.init(store)
    }

    /// The number of objects of an entity.
    func count(_ entity: String) -> Int { entities[entity]?.count ?? 0 }

    // MARK: - Expected states after a change

    /// A copy in which every object of `entity` went through `transform`.
    func mapping(_ entity: String, _ transform: (inout ObjectState) -> Void) -> StoreDump {
        var copy = self
        copy.entities[entity] = entities[entity]?.mapValues { state in
            var state = state
            transform(&state)
            return state
        }
        return copy
    }

    /// A copy in which `entity` is called `name`.
    func renamingEntity(_ entity: String, to name: String) -> StoreDump {
        var copy = self
        copy.entities[name] = copy.entities.removeValue(forKey: entity)
        return copy
    }

    /// A copy in which an attribute of `entity` is called `name`.
    func renamingAttribute(_ entity: String, _ attribute: String, to name: String) -> StoreDump {
        mapping(entity) { $0.values[name] = $0.values.removeValue(forKey: attribute) }
    }

    /// A copy in which a relationship of `entity` is called `name`.
    func renamingRelationship(_ entity: String, _ relationship: String, to name: String) -> StoreDump {
        mapping(entity) { $0.links[name] = $0.links.removeValue(forKey: relationship) }
    }

    /// A copy in which every object of `entity` has `value` for `attribute`.
    func setting(_ entity: String, _ attribute: String, to value: Value) -> StoreDump {
        mapping(entity) { $0.values[attribute] = value }
    }

    /// A copy without `attribute` in the objects of `entity`.
    func removingAttribute(_ entity: String, _ attribute: String) -> StoreDump {
        mapping(entity) { $0.values[attribute] = nil }
    }

    /// A copy in which the values of `attribute` of `entity` went through `convert`.
    func converting(_ entity: String, _ attribute: String, _ convert: (Value) -> Value) -> StoreDump {
        mapping(entity) { $0.values[attribute] = convert($0.values[attribute] ?? .null) }
    }
}

/// Runs `body` and returns the ``MoltError`` it throws, or nil when it throws nothing (or another error).
func moltError(_ body: () throws -> Void) -> MoltError? {
    do {
        try body()
        return nil
    } catch let error as MoltError {
        return error
    } catch {
        return nil
    }
}

/// The bytes of a store's file and of the files SQLite keeps beside it, to prove nothing was written.
struct FileState: Equatable {
    var main: Data?
    var wal: Data?
    var journal: Data?
    /// For a PostgreSQL store: each table's storage identity, row count and transaction that last wrote a row.
    var tables: [String]?

    /// The state of the store at `location`: its files, or its namespace's tables.
    init(_ location: StoreLocation) {
        if let url = location.url {
            self.init(url)
            return
        }
        self.init(tables: nil)
        // Rows are counted in tables only (an index cannot be selected from); an index is its storage identity.
        do {
            tables = try RawSQL.strings(
                location,
                """
                SELECT c.relname || ' ' || c.relfilenode || CASE WHEN c.relkind = 'r' THEN ' ' || (xpath('/row/n/text()', query_to_xml(
                    format('SELECT count(*) AS n FROM %I.%I', n.nspname, c.relname), false, true, '')))[1]::text
                    || ' ' || coalesce((xpath('/row/x/text()', query_to_xml(
                    format('SELECT max(xmin::text::bigint) AS x FROM %I.%I', n.nspname, c.relname), false, true, '')))[1]::text, '-')
                    ELSE '' END
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i') ORDER BY c.relname
                """)
        } catch {
            // Two unreadable states would compare equal: a check of "nothing was written" must fail instead.
            Issue.record("The state of the PostgreSQL store at \(location) could not be read: \(error)")
        }
    }

    private init(tables: [String]?) { self.tables = tables }

    init(_ url: URL) {
        main = try? Data(contentsOf: url)
        // An empty WAL holds nothing: SQLite leaves one behind a read-only connection.
        wal = (try? Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))).flatMap { $0.isEmpty ? nil : $0 }
        journal = try? Data(contentsOf: URL(fileURLWithPath: url.path + "-journal"))
    }
}
