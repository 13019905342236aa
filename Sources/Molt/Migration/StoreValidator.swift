import GRDB

/// Checks a migrated store against its target schema before the migration commits: the tables, columns,
/// foreign keys and indexes a fresh store of that schema would have, then every foreign key's target.
enum StoreValidator {
    /// The shape of one table, as SQLite reports it.
    struct TableShape: Equatable {
        var columns: [String: String]
        var foreignKeys: Set<String>
        var indexes: Set<String>

        func render(order: [String]) -> String {
            let names = order.filter { columns[$0] != nil } + columns.keys.filter { !order.contains($0) }.sorted()
            var text = names.map { "\($0) \(columns[$0]!)" }.joined(separator: ", ")
            if !foreignKeys.isEmpty { text += "; references: " + foreignKeys.sorted().joined(separator: ", ") }
            if !indexes.isEmpty { text += "; indexes: " + indexes.sorted().joined(separator: ", ") }
            return text
        }
    }

    /// - Parameter linkedTables: The tables whose rows the migration wrote, replaced, created or dropped, or nil
    ///   when it may have written anywhere (a custom stage ran). The store was valid before the run (Molt writes
    ///   with foreign keys on, and every migration is validated), so a link can only break there: the check
    ///   covers those tables and the tables that link to them, as GRDB's `checkForeignKeys(in:)` lets a
    ///   migration do, instead of scanning every row of the store (~60 ms on a million objects, thirty times
    ///   the `ALTER TABLE` it validates).
    static func validate(_ db: Database, against schema: Schema, checkingLinksOf linkedTables: Set<String>? = nil) throws {
        let expectedDB = try DatabaseQueue()
        let expected = try expectedDB.write { edb -> [String: TableShape] in
            for statement in SchemaSQL.createStatements(schema) { try edb.execute(sql: statement) }
            return try shapes(edb)
        }
        let expectedOrder = try expectedDB.read { edb in
            try Dictionary(uniqueKeysWithValues: expected.keys.map { table in (table, try edb.columns(in: table).map(\.name)) })
        }
        let found = try shapes(db)
        var problems: [String] = []
        for table in SchemaSQL.tableNames(schema) {
            let order = expectedOrder[table] ?? []
            guard let actual = found[table] else {
                problems.append("Table '\(table)':\n  Expected: \(expected[table]!.render(order: order))\n  Found:    no such table")
                continue
            }
            if actual != expected[table]! {
                problems.append("Table '\(table)':\n  Expected: \(expected[table]!.render(order: order))\n  Found:    \(actual.render(order: order))")
            }
        }
        for table in found.keys.sorted() where expected[table] == nil {
            problems.append("Table '\(table)':\n  Expected: no such table\n  Found:    \(found[table]!.render(order: []))")
        }
        if !problems.isEmpty {
            throw MoltError(
                .validationFailed,
                "The migration to version \(schema.version) did not produce the expected store, so nothing was committed:\n\(problems.joined(separator: "\n"))")
        }
        let violations: [Row]
        if let linkedTables {
            let written = Set(linkedTables.map { $0.lowercased() })
            var tables: [String] = []
            for table in found.keys.sorted() {
                if try written.contains(table.lowercased())
                    || db.foreignKeys(on: table).contains(where: { written.contains($0.destinationTable.lowercased()) }) {
                    tables.append(table)
                }
            }
            violations = try tables.flatMap { try Row.fetchAll(db, sql: "PRAGMA foreign_key_check(\(SchemaSQL.quote($0)))") }
        } else {
            violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
        }
        if let first = violations.first {
            let table: String = first["table"]
            let parent: String = first["parent"]
            let rowid: Int64? = first["rowid"]
            throw MoltError(
                .validationFailed,
                "The migration to version \(schema.version) left \(violations.count) broken link(s), so nothing was committed: a row of '\(table)'\(rowid.map { " (_id \($0))" } ?? "") points to a missing '\(parent)'. Delete or relink such objects in a custom stage.",
                entity: table)
        }
    }

    /// The shapes of every table that is not SQLite's or Molt's own.
    static func shapes(_ db: Database) throws -> [String: TableShape] {
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND NOT (name GLOB 'sqlite_*') AND NOT (name GLOB '_molt_*')")
        var result: [String: TableShape] = [:]
        for table in tables {
            var columns: [String: String] = [:]
            for column in try db.columns(in: table) {
                var text = column.type.uppercased()
                if column.primaryKeyIndex > 0 && column.type.uppercased() == "INTEGER" && column.name == SchemaSQL.idColumn {
                    text += " PRIMARY KEY"
                } else if column.isNotNull {
                    text += " NOT NULL"
                }
                columns[column.name] = text
            }
            let foreignKeys = Set(try db.foreignKeys(on: table).flatMap { key in
                key.mapping.map { "\($0.origin) → \(key.destinationTable)(\($0.destination))" }
            })
            let indexes = Set(try db.indexes(on: table).map { index in
                "\(index.isUnique ? "unique" : "index")(\(index.columns.joined(separator: ", ")))"
            })
            result[table] = TableShape(columns: columns, foreignKeys: foreignKeys, indexes: indexes)
        }
        return result
    }
}
