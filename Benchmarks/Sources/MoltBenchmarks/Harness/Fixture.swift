import Foundation
import GRDB
import Molt

/// The memo store every scenario starts from: 100 folders and N items of about 80 bytes each (two strings,
/// an integer, a double, a date, an optional string and a link to a folder), made with Molt at version 1.
enum Fixture {
    /// The schema the templates are created at.
    static let v1 = Schema(version: 1) {
        Entity("Folder") {
            Attribute("name", .string)
        }
        Entity("Item") {
            Attribute("title", .string)
            Attribute("body", .string)
            Attribute("count", .int)
            Attribute("score", .double)
            Attribute("created", .date)
            Attribute("legacy", .string, isOptional: true)
            Relationship("folder", to: "Folder")
        }
    }

    /// `v1` with Item's attributes replaced by `edit`, at version 2.
    static func v2(_ edit: (inout [Attribute]) -> Void) -> Schema {
        var entities = v1.entities
        let index = entities.firstIndex { $0.name == "Item" }!
        edit(&entities[index].attributes)
        return Schema(version: 2, entities: entities)
    }

    /// The GRDB configuration Molt opens stores with to migrate them, so that baselines run under the same
    /// settings: foreign keys on, the journal mode left as the file says (WAL: the templates are created by
    /// Molt in WAL mode), `synchronous` at SQLite's default (FULL). Molt switches to `synchronous = NORMAL`
    /// only once the store is open, after the migration.
    static var configuration: Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.journalMode = .default
        return configuration
    }

    /// The journal mode and `synchronous` setting a baseline connection runs with, for the report.
    static func settings(at url: URL) throws -> String {
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?"
            let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            return
                "\(journal.uppercased()), synchronous=\(["OFF", "NORMAL", "FULL", "EXTRA"][safe: synchronous] ?? "\(synchronous)")"
        }
    }

    /// Creates a store of `rows` items at `url`: Molt creates the file, then one raw SQL transaction fills it.
    static func create(rows: Int, at url: URL) throws {
        try Store.open(at: url, schema: v1).close()
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100)
                    INSERT INTO Folder (_id, name) SELECT x, printf('Folder %03d', x) FROM n
                    """)
            try db.execute(
                sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)
                    INSERT INTO Item (_id, title, body, count, score, created, legacy, folder)
                    SELECT x, printf('Memo number %08d', x), printf('Body of memo %08d, some words', x),
                           x % 1000, x * 0.5, 1700000000.0 + x, printf('L%06d', x % 1000000), x % 100 + 1
                    FROM n
                    """, arguments: [rows])
        }
        try queue.close()
    }

    /// Copies a closed store file (no WAL beside it) and flushes the copy, so that background write-back of
    /// the copy does not run during the measurement.
    static func copy(_ source: URL, to destination: URL) throws {
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.copyItem(at: source, to: destination)
        let handle = try FileHandle(forUpdating: destination)
        try handle.synchronize()
        try handle.close()
    }

    /// Deletes a store and the files SQLite keeps beside it (nothing for a `postgres://` store: its namespace
    /// belongs to ``PostgresStores``).
    static func remove(_ url: URL) {
        guard url.isFileURL else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    /// The columns (name and declared type, in order) and row count of a table, to check that Molt and the
    /// baseline produced the same thing.
    static func shape(of table: String, at url: URL) throws -> String {
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try shape(of: table, at: db) }
    }

    static func shape(of table: String, at db: Database) throws -> String {
        let columns = try db.columns(in: table)
        let declared = columns.map { "\($0.name) \($0.type)\($0.isNotNull ? " NOT NULL" : "")" }
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\"") ?? 0
        let sample =
            columns.contains { $0.name == "_id" }
            ? try Row.fetchOne(db, sql: "SELECT * FROM \"\(table)\" WHERE _id = 7")?.description ?? "-" : "-"
        return "\(declared.joined(separator: ", ")) | \(count) rows | \(sample)"
    }
}

extension Fixture {
    /// ``shape(of:at:)`` of each table, plus, per column, sums that change when any value changes: the total
    /// of its numbers and of its lengths, weighted by `_id` in an entity's table (so a value moved to another
    /// object shows) and by the first column in a join table (whose row order may differ between two ways of
    /// filling it). One scan per table, cheap enough to run after every repetition.
    static func fingerprint(of tables: [String], at url: URL) throws -> String {
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try tables.map { table in
                let columns = try db.columns(in: table).map(\.name)
                let weight = columns.contains("_id") ? "\"_id\"" : "\"\(columns[0])\""
                let sums = columns.flatMap { column in
                    [
                        "total(\"\(column)\")", "total(length(\"\(column)\"))",
                        "total(length(\"\(column)\") * \(weight))",
                    ]
                }
                let row = try Row.fetchOne(db, sql: "SELECT \(sums.joined(separator: ", ")) FROM \"\(table)\"")
                let totals =
                    row.map { row in (0..<row.count).map { "\(row[$0] as Double? ?? 0)" }.joined(separator: " ") }
                    ?? "-"
                return "\(table): \(try shape(of: table, at: db)) | \(totals)"
            }.joined(separator: "\n  ")
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
