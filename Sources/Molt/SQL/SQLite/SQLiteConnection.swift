import Foundation
import GRDB
import GRDBSQLite

/// A GRDB `Database` seen through ``SQLConnection``: valid for the duration of one database access.
final class SQLiteConnection: SQLConnection {
    let db: Database
    let context: SQLiteErrors.Context
    /// What reports the statements SQLite runs to ``statementObserver``, while one is set.
    private var trace: SQLiteStatementTrace?

    init(_ db: Database, context: SQLiteErrors.Context = .objects) {
        self.db = db
        self.context = context
    }

    var dialect: any SQLDialect { SQLiteDialect.shared }

    @discardableResult
    func execute(_ kind: SQLStatementKind, _ sql: String, _ arguments: [Value]) throws -> Int {
        if arguments.isEmpty {
            do {
                try db.execute(sql: sql)
            } catch let error as DatabaseError {
                throw SQLiteErrors.map(error, context, connection: db.sqliteConnection)
            }
            return db.changesCount
        }
        return try makeStatement(kind, sql).execute(arguments)
    }

    /// SQLite renders every change as ``SchemaDDL`` does: it accepts links to tables created later.
    func change(_ change: SQLSchemaChange) throws {
        try execute(change.kind, SchemaDDL(dialect: dialect).sql(for: change))
    }

    func cachedStatement(_ kind: SQLStatementKind, _ sql: String) throws -> any SQLStatement {
        do {
            return SQLiteStatement(statement: try db.cachedStatement(sql: sql), context: context)
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, context, connection: db.sqliteConnection)
        }
    }

    func makeStatement(_ kind: SQLStatementKind, _ sql: String) throws -> any SQLStatement {
        do {
            return SQLiteStatement(statement: try db.makeStatement(sql: sql), context: context)
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, context, connection: db.sqliteConnection)
        }
    }

    /// The concrete statement, for the hot loops that read and bind through the C API.
    func rawStatement(_ sql: String, cached: Bool) throws -> SQLiteStatement {
        do {
            let statement = cached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
            return SQLiteStatement(statement: statement, context: context)
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, context, connection: db.sqliteConnection)
        }
    }

    var statementObserver: SQLStatementObserver? {
        didSet {
            trace?.remove()
            trace = statementObserver.flatMap { observer in
                db.sqliteConnection.map { SQLiteStatementTrace(observer, on: $0) }
            }
        }
    }

    /// Runs `body` mapping GRDB's errors with this connection's context.
    func mapping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, context, connection: db.sqliteConnection)
        }
    }

    // MARK: - Introspection

    func tableNames() throws -> [String] {
        try mapping {
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND NOT (name GLOB 'sqlite_*')")
        }
    }

    func deferReferenceChecks() throws { _ = try execute(.read, "PRAGMA defer_foreign_keys = ON") }

    /// Nothing to take: a migration's transaction (`BEGIN IMMEDIATE`) already keeps every other writer out.
    func lockForChange(_ table: String) throws {}

    func tableExists(_ table: String) throws -> Bool {
        try fetchInt(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE LIMIT 1", [.string(table)])
            != nil
    }

    func columnNames(in table: String) throws -> [String] {
        try Self.columns(table, db).map(\.name)
    }

    func indexes(on table: String) throws -> [SQLIndexInfo] {
        try Self.indexes(table, db)
    }

    // The catalog is read with PRAGMAs, table by table: GRDB's schema helpers reload the whole schema after each
    // change of it, which costs as many rows as the store has tables, per call.

    struct ColumnInfo {
        var name: String
        var type: String
        var notNull: Bool
        var primaryKey: Bool
    }

    static func columns(_ table: String, _ db: Database) throws -> [ColumnInfo] {
        try Row.fetchAll(db, sql: "PRAGMA table_info(\(SQLiteDialect.shared.quote(table)))").map { row in
            ColumnInfo(
                name: row["name"], type: row["type"] ?? "", notNull: row["notnull"] == 1,
                primaryKey: (row["pk"] as Int? ?? 0) > 0)
        }
    }

    static func indexes(_ table: String, _ db: Database) throws -> [SQLIndexInfo] {
        let q = SQLiteDialect.shared.quote
        return try Row.fetchAll(db, sql: "PRAGMA index_list(\(q(table)))").map { row in
            let name: String = row["name"]
            let columns = try Row.fetchAll(db, sql: "PRAGMA index_info(\(q(name)))")
                .sorted { ($0["seqno"] as Int? ?? 0) < ($1["seqno"] as Int? ?? 0) }
                .compactMap { $0["name"] as String? }
            return SQLIndexInfo(
                name: name, columns: columns, isUnique: row["unique"] == 1, isExplicit: row["origin"] == "c")
        }
    }

    static func foreignKeys(_ table: String, _ db: Database) throws -> [(from: String, table: String, to: String)] {
        try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(SQLiteDialect.shared.quote(table)))").map { row in
            (row["from"], row["table"], row["to"] ?? StoreLayout.idColumn)
        }
    }

    func tableShapes() throws -> [String: SQLTableShape] {
        try mapping { try Self.shapes(db) }
    }

    func expectedShapes(of schema: Schema) throws -> [String: SQLTableShape] {
        try mapping {
            // SQLite's CREATE TABLE costs as much as the schema already has tables (it scans its schema table and
            // every table's cached triggers), so one scratch database of 10k tables costs 10k² steps: the tables are
            // created in scratch databases of `batch` tables each instead, which keeps the whole linear.
            let batch = 200
            let ddl = SchemaDDL(dialect: SQLiteDialect.shared)
            let groups = ddl.createChangesByTable(schema).map { $0.map(ddl.sql(for:)) }
            var shapes: [String: SQLTableShape] = [:]
            for start in stride(from: 0, to: groups.count, by: batch) {
                var configuration = Configuration()
                configuration.prepareDatabase { db in SQLiteFunctions.register(in: db) }
                let fresh = try DatabaseQueue(configuration: configuration)
                try fresh.write { db in
                    for statement in groups[start..<min(start + batch, groups.count)].joined() {
                        try db.execute(sql: statement)
                    }
                    shapes.merge(try Self.shapes(db)) { first, _ in first }
                }
            }
            return shapes
        }
    }

    func brokenLinks(around tables: Set<String>?) throws -> [SQLBrokenLink] {
        try mapping {
            let rows: [Row]
            if let tables {
                rows = try tablesReferencing(tables).flatMap {
                    try Row.fetchAll(db, sql: "PRAGMA foreign_key_check(\(SQLiteDialect.shared.quote($0)))")
                }
            } else {
                rows = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            }
            return rows.map { row in
                SQLBrokenLink(table: row["table"] ?? "?", parent: row["parent"] ?? "?", rowID: row["rowid"])
            }
        }
    }

    /// The application tables that are among `tables` or hold a reference to one of them (names compared as
    /// SQLite compares them, without regard to case).
    private func tablesReferencing(_ tables: Set<String>) throws -> [String] {
        let lowercased = Set(tables.map { $0.lowercased() })
        return try Self.applicationTables(db).filter { table in
            try lowercased.contains(table.lowercased())
                || Self.foreignKeys(table, db).contains { lowercased.contains($0.table.lowercased()) }
        }
    }

    /// The tables that are neither SQLite's nor Molt's own.
    static func applicationTables(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql:
                "SELECT name FROM sqlite_master WHERE type = 'table' AND NOT (name GLOB 'sqlite_*') AND NOT (name GLOB '_molt_*') ORDER BY name"
        )
    }

    /// The shapes of the application's tables, as SQLite reports them.
    /// The affinity SQLite gives a column declared with `type` (upper-cased), by its rules ("Determination Of
    /// Column Affinity"): `INTEGER`, `TEXT`, `BLOB`, `REAL` or `NUMERIC`.
    static func affinity(_ type: String) -> String {
        if type.contains("INT") { return "INTEGER" }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return "TEXT" }
        if type.contains("BLOB") || type.isEmpty { return "BLOB" }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return "REAL" }
        return "NUMERIC"
    }

    static func shapes(_ db: Database) throws -> [String: SQLTableShape] {
        var result: [String: SQLTableShape] = [:]
        for table in try applicationTables(db) {
            var columns: [String: String] = [:]
            var order: [String] = []
            for column in try Self.columns(table, db) {
                // What SQLite stores by: the column's affinity, not the spelling of its type (`VARCHAR(42)` is
                // `TEXT`, as another tool may have written it). Only `INTEGER` itself makes `_id` the rowid.
                let declared = column.type.uppercased()
                var text = Self.affinity(declared)
                if column.primaryKey && declared == "INTEGER" && column.name == StoreLayout.idColumn {
                    text += " PRIMARY KEY"
                } else if column.notNull {
                    text += " NOT NULL"
                }
                columns[column.name] = text
                order.append(column.name)
            }
            let references = Set(try Self.foreignKeys(table, db).map { "\($0.from) → \($0.table)(\($0.to))" })
            let indexes = Set(
                try Self.indexes(table, db).map { index in
                    "\(index.isUnique ? "unique" : "index")(\(index.columns.joined(separator: ", ")))"
                })
            result[table] = SQLTableShape(columns: columns, references: references, indexes: indexes, order: order)
        }
        return result
    }
}
