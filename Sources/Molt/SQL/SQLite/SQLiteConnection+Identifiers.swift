import Foundation
import GRDB

/// Identifiers are never handed out again.
///
/// Molt's tables number their objects with `"_id" INTEGER PRIMARY KEY AUTOINCREMENT`: SQLite then keeps the
/// largest identifier it ever gave in `sqlite_sequence`, and the next object gets one more, even after the
/// object with the largest identifier was deleted. (A plain `INTEGER PRIMARY KEY` would give that object's
/// identifier to the next one: an id kept in a URL, a notification or another store would point at the wrong
/// object, and a custom stage would pair an object it created with the deleted old object that had its id.)
extension SQLiteConnection {
    func keepIdentifiersIncreasing() throws { try upgradeLegacyIdentifiers() }

    /// The largest identifier `table` ever handed out, as `sqlite_sequence` records it; nil when it has no
    /// entry (no row was ever inserted, or the table does not use AUTOINCREMENT).
    func identifierMark(of table: String) throws -> Int64? {
        // `main.`: a stage's temporary snapshots have a `temp.sqlite_sequence` of their own, which an unqualified
        // name would find first.
        guard try fetchInt("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'") != nil
        else { return nil }
        return try fetchInt("SELECT seq FROM main.sqlite_sequence WHERE name = ?", [.string(table)])
    }

    /// Raises `table`'s recorded high-water mark to `mark` (never lowers it): after a rebuild copied the rows
    /// into a new table, whose sequence starts at the largest identifier still present.
    func raiseIdentifierMark(of table: String, to mark: Int64) throws {
        // Read first: a rebuild of a table whose newest objects were never deleted writes nothing here.
        switch try identifierMark(of: table) {
        case nil:
            try execute(
                .bookkeeping, "INSERT INTO main.sqlite_sequence (name, seq) VALUES (?, ?)",
                [.string(table), .int(mark)])
        case let current? where current < mark:
            try execute(
                .bookkeeping, "UPDATE main.sqlite_sequence SET seq = ? WHERE name = ?", [.int(mark), .string(table)])
        default: return
        }
    }

    /// Gives every application table of a store created before Molt numbered with AUTOINCREMENT the same
    /// guarantee, in place and in constant time per table: the table's definition gains `AUTOINCREMENT` (the
    /// rows, their pages and the indexes are the same either way) and its sequence starts at its largest
    /// identifier. Identifiers deleted before this ran cannot be known, and are not protected.
    ///
    /// Runs inside the caller's write transaction; a failure rolls the whole change back.
    ///
    /// - Returns: The tables converted.
    @discardableResult
    func upgradeLegacyIdentifiers() throws -> [String] {
        let legacy = try Self.legacyIdentifierTables(db)
        guard !legacy.isEmpty else { return [] }
        let plain = "\(dialect.quote(StoreLayout.idColumn)) INTEGER PRIMARY KEY"
        try mapping {
            // `sqlite_sequence` exists once an AUTOINCREMENT table was created; make sure it does.
            try db.execute(
                sql: "CREATE TABLE IF NOT EXISTS main.\"_molt_sequence_probe\" (x INTEGER PRIMARY KEY AUTOINCREMENT)")
            try db.execute(sql: "DROP TABLE main.\"_molt_sequence_probe\"")
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try db.execute(sql: "PRAGMA writable_schema = ON")
            defer { try? db.execute(sql: "PRAGMA writable_schema = OFF") }
            for table in legacy {
                try db.execute(
                    sql: "UPDATE main.sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?",
                    arguments: [plain, plain + " AUTOINCREMENT", table])
            }
            // Every connection (this one included) reads the changed definitions before its next statement.
            try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            try db.execute(sql: "PRAGMA writable_schema = OFF")
        }
        for table in legacy {
            let top =
                try fetchInt("SELECT MAX(\(dialect.quote(StoreLayout.idColumn))) FROM \(dialect.quote(table))") ?? 0
            try raiseIdentifierMark(of: table, to: top)
        }
        // The definitions are read back: one that did not take makes the transaction roll back.
        let left = try Self.legacyIdentifierTables(db)
        guard left.isEmpty else {
            throw MoltError(
                .migrationFailed,
                "Table(s) \(left.joined(separator: ", ")) could not be given AUTOINCREMENT identifiers; nothing was changed. Run `molt check` on the store and report the output."
            )
        }
        return legacy
    }

    /// Whether some application table still numbers with a plain `INTEGER PRIMARY KEY` (a store created by a
    /// Molt before AUTOINCREMENT): one query on the schema table.
    static func hasLegacyIdentifierTables(_ db: Database) throws -> Bool {
        try !legacyIdentifierTables(db).isEmpty
    }

    private static func legacyIdentifierTables(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT name FROM main.sqlite_master WHERE type = 'table' AND NOT (name GLOB 'sqlite_*')
                AND instr(sql, '"_id" INTEGER PRIMARY KEY') > 0 AND instr(sql, '"_id" INTEGER PRIMARY KEY AUTOINCREMENT') = 0
                ORDER BY name
                """)
    }
}
