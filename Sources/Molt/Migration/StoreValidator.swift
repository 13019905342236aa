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

    static func validate(_ db: Database, against schema: Schema) throws {
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
        if let tables = try ForeignKeyScope.current?.tablesToCheck(db) {
            violations = try tables.sorted().flatMap { try Row.fetchAll(db, sql: "PRAGMA foreign_key_check(\(SchemaSQL.quote($0)))") }
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

/// What a migration run did to the store's tables, so that validation checks the foreign keys of only the
/// tables whose rows or links can have changed, as GRDB's `checkForeignKeys(in:)` lets a migration do.
///
/// A full `PRAGMA foreign_key_check` scans every row of every table that has a to-one relationship: on a
/// million objects it costs ~60 ms, thirty times the `ALTER TABLE ADD COLUMN` it validates. The store was
/// valid before the run (Molt writes with foreign keys on, and every migration is validated), so a link can
/// only break where rows were written, replaced or dropped. Each run of inferred steps records those tables;
/// the check covers them and the tables that link to them. Anything else that changed a row or the schema
/// during the run (a custom stage, raw SQL) is seen, and then the whole store is checked, as before.
final class ForeignKeyScope: @unchecked Sendable { // Used on one database connection's thread only.
    /// The scope of the migration running on this thread, or nil outside `Store.open`'s migration.
    @TaskLocal static var current: ForeignKeyScope?

    /// What one ``LightweightMigration/apply(in:)`` did.
    struct Effects {
        /// Tables whose rows were written, replaced, created or dropped: their links and the links to them
        /// are checked.
        var written: Set<String> = []
        /// Tables whose schema text changed without a row changing (a column added empty, renamed or
        /// dropped; an index; a table renamed): nothing to check.
        var altered: Set<String> = []
    }

    private struct Entry: Equatable {
        var table: String
        var rootPage: Int64?
        var sql: String?
    }

    private let entriesAtStart: [String: Entry]
    private var changesAfterLastStep: Int
    private var entriesAfterLastStep: [String: Entry]
    private var changedElsewhere = false
    private var effects = Effects()

    /// Notes the store's state before the migration starts.
    init(_ db: Database) throws {
        changesAfterLastStep = db.totalChangesCount
        entriesAtStart = try Self.entries(db)
        entriesAfterLastStep = entriesAtStart
    }

    /// Called as a run of inferred steps starts: notes whether anything changed the store since the last one.
    func stepWillStart(_ db: Database) throws {
        if try db.totalChangesCount != changesAfterLastStep || Self.entries(db) != entriesAfterLastStep {
            changedElsewhere = true
        }
    }

    /// Called as a run of inferred steps ends, with what it did.
    func stepDidEnd(_ effects: Effects, in db: Database) throws {
        self.effects.written.formUnion(effects.written)
        self.effects.altered.formUnion(effects.altered)
        changesAfterLastStep = db.totalChangesCount
        entriesAfterLastStep = try Self.entries(db)
    }

    /// The tables whose foreign keys must be checked, or nil when the whole store must be.
    func tablesToCheck(_ db: Database) throws -> Set<String>? {
        try stepWillStart(db)
        guard !changedElsewhere else { return nil }
        // Every table whose schema entry changed must be one the steps said they touched.
        let known = Set(effects.written.union(effects.altered).map { $0.lowercased() })
        for key in Set(entriesAfterLastStep.keys).union(entriesAtStart.keys) where entriesAfterLastStep[key] != entriesAtStart[key] {
            for table in [entriesAfterLastStep[key]?.table, entriesAtStart[key]?.table].compactMap({ $0 }) where !known.contains(table.lowercased()) {
                return nil
            }
        }
        let written = Set(effects.written.map { $0.lowercased() })
        var result: Set<String> = []
        for table in Set(entriesAfterLastStep.values.map(\.table)) {
            if try written.contains(table.lowercased())
                || db.foreignKeys(on: table).contains(where: { written.contains($0.destinationTable.lowercased()) }) {
                result.insert(table)
            }
        }
        return result
    }

    /// The schema entries of the store's tables and indexes, by type and name.
    private static func entries(_ db: Database) throws -> [String: Entry] {
        var result: [String: Entry] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master WHERE type IN ('table', 'index')") {
            let type: String = row["type"]
            let name: String = row["name"]
            result[type + " " + name] = Entry(table: row["tbl_name"], rootPage: row["rootpage"], sql: row["sql"])
        }
        return result
    }
}
