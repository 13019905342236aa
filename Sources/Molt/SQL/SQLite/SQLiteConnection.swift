import Foundation
import GRDB
import GRDBSQLite

/// A GRDB `Database` seen through ``SQLConnection``: valid for the duration of one database access.
final class SQLiteConnection: SQLConnection {
    let db: Database
    let context: SQLiteErrors.Context

    init(_ db: Database, context: SQLiteErrors.Context = .objects) {
        self.db = db
        self.context = context
    }

    var dialect: any SQLDialect { SQLiteDialect.shared }

    @discardableResult
    func execute(_ sql: String, _ arguments: [Value]) throws -> Int {
        if arguments.isEmpty {
            do {
                try db.execute(sql: sql)
            } catch let error as DatabaseError {
                throw SQLiteErrors.map(error, context, connection: db.sqliteConnection)
            }
            return db.changesCount
        }
        return try makeStatement(sql).execute(arguments)
    }

    func cachedStatement(_ sql: String) throws -> any SQLStatement {
        do {
            return SQLiteStatement(statement: try db.cachedStatement(sql: sql), context: context)
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, context, connection: db.sqliteConnection)
        }
    }

    func makeStatement(_ sql: String) throws -> any SQLStatement {
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

    var statementObserver: (@Sendable (String) -> Void)? {
        didSet {
            if let observer = statementObserver {
                db.trace(options: .statement) { event in
                    if case .statement(let statement) = event { observer(statement.expandedSQL) }
                }
            } else {
                db.trace(options: [], nil)
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
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND NOT (name GLOB 'sqlite_*')")
        }
    }

    func columnNames(in table: String) throws -> [String] {
        try mapping { try db.columns(in: table).map(\.name) }
    }

    func indexes(on table: String) throws -> [SQLIndexInfo] {
        try mapping {
            try db.indexes(on: table).map {
                SQLIndexInfo(name: $0.name, columns: $0.columns, isUnique: $0.isUnique, isExplicit: $0.origin == .createIndex)
            }
        }
    }

    func tableShapes() throws -> [String: SQLTableShape] {
        try mapping { try Self.shapes(db) }
    }

    func expectedShapes(of schema: Schema) throws -> [String: SQLTableShape] {
        try mapping {
            let fresh = try DatabaseQueue()
            return try fresh.write { db in
                for statement in SchemaDDL(dialect: SQLiteDialect.shared).createStatements(schema) { try db.execute(sql: statement) }
                return try Self.shapes(db)
            }
        }
    }

    func brokenLinks(in tables: [String]?) throws -> [SQLBrokenLink] {
        try mapping {
            let rows: [Row]
            if let tables {
                rows = try tables.flatMap { try Row.fetchAll(db, sql: "PRAGMA foreign_key_check(\(SQLiteDialect.shared.quote($0)))") }
            } else {
                rows = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            }
            return rows.map { row in
                SQLBrokenLink(table: row["table"] ?? "?", parent: row["parent"] ?? "?", rowID: row["rowid"])
            }
        }
    }

    func tablesReferencing(_ tables: Set<String>) throws -> [String] {
        let lowercased = Set(tables.map { $0.lowercased() })
        return try mapping {
            try Self.applicationTables(db).filter { table in
                try lowercased.contains(table.lowercased())
                    || db.foreignKeys(on: table).contains { lowercased.contains($0.destinationTable.lowercased()) }
            }
        }
    }

    /// The tables that are neither SQLite's nor Molt's own.
    static func applicationTables(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND NOT (name GLOB 'sqlite_*') AND NOT (name GLOB '_molt_*') ORDER BY name")
    }

    /// The shapes of the application's tables, as SQLite reports them.
    static func shapes(_ db: Database) throws -> [String: SQLTableShape] {
        var result: [String: SQLTableShape] = [:]
        for table in try applicationTables(db) {
            var columns: [String: String] = [:]
            var order: [String] = []
            for column in try db.columns(in: table) {
                var text = column.type.uppercased()
                if column.primaryKeyIndex > 0 && text == "INTEGER" && column.name == StoreLayout.idColumn {
                    text += " PRIMARY KEY"
                } else if column.isNotNull {
                    text += " NOT NULL"
                }
                columns[column.name] = text
                order.append(column.name)
            }
            let references = Set(try db.foreignKeys(on: table).flatMap { key in
                key.mapping.map { "\($0.origin) → \(key.destinationTable)(\($0.destination))" }
            })
            let indexes = Set(try db.indexes(on: table).map { index in
                "\(index.isUnique ? "unique" : "index")(\(index.columns.joined(separator: ", ")))"
            })
            result[table] = SQLTableShape(columns: columns, references: references, indexes: indexes, order: order)
        }
        return result
    }
}
