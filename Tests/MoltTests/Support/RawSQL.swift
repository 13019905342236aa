import Foundation
import GRDB
import Molt
import MoltPostgres

/// Direct SQLite access for what the public API does not show: table root pages, hand-damaged rows, foreign
/// SQLite files, and bulk fixtures.
enum RawSQL {
    /// Runs statements on the file at `url` in one transaction, with foreign key checks off.
    static func execute(_ url: URL, _ statements: String...) throws {
        try execute(url, statements: statements)
    }

    /// Runs statements on the file at `url` in one transaction, with foreign key checks off.
    static func execute(_ url: URL, statements: [String]) throws {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.inTransaction {
                for sql in statements { try db.execute(sql: sql) }
                return .commit
            }
        }
    }

    /// The first column of every row of a query, as text.
    static func strings(_ url: URL, _ sql: String) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: sql).map { row in
                switch (row[0] as DatabaseValue).storage {
                case .null: return "NULL"
                case .int64(let v): return String(v)
                case .double(let v): return String(v)
                case .string(let v): return v
                case .blob(let v): return v.base64EncodedString()
                }
            }
        }
    }

    /// The text of the first column of every row of a query, which must not be NULL, fetched in bulk.
    static func texts(_ url: URL, _ sql: String) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: sql) }
    }

    /// The root page of every table and index, by name: a rebuilt table gets a new one.
    static func rootPages(_ url: URL) throws -> [String: String] {
        let rows = try strings(
            url, "SELECT name || '=' || rootpage FROM sqlite_master WHERE type = 'table' ORDER BY name")
        var result: [String: String] = [:]
        for row in rows {
            let parts = row.split(separator: "=", maxSplits: 1).map(String.init)
            result[parts[0].trimmingCharacters(in: CharacterSet(charactersIn: "\""))] = parts[1]
        }
        return result
    }
}

extension RawSQL {
    /// The server and namespace of a PostgreSQL test store (its location's description is its URL: the test
    /// server has no password), or nil for a file.
    static func postgres(_ location: StoreLocation) -> (url: URL, namespace: String)? {
        guard location.url == nil, let components = URLComponents(string: location.description),
            let namespace = components.queryItems?.first(where: { $0.name == "schema" })?.value
        else { return nil }
        var server = components
        server.queryItems = nil
        return (server.url!, namespace)
    }

    /// Runs statements on the store at `location` in one transaction (SQLite: with foreign key checks off).
    static func execute(_ location: StoreLocation, _ statements: String...) throws {
        if let (url, namespace) = postgres(location) {
            try PostgresMaintenance.execute(statements, namespace: namespace, at: url)
        } else {
            try execute(location.url!, statements: statements)
        }
    }

    /// The first column of every row of a query on the store at `location`, as text.
    static func strings(_ location: StoreLocation, _ sql: String) throws -> [String] {
        if let (url, namespace) = postgres(location) {
            return try PostgresMaintenance.strings(sql, namespace: namespace, at: url)
        }
        return try strings(location.url!, sql)
    }

    /// Each table's storage identity: SQLite's root page, PostgreSQL's `relfilenode`; both change exactly when
    /// the table is rewritten.
    static func rootPages(_ location: StoreLocation) throws -> [String: String] {
        guard postgres(location) != nil else { return try rootPages(location.url!) }
        let rows = try strings(
            location,
            """
            SELECT c.relname || '=' || c.relfilenode FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.relname
            """)
        var result: [String: String] = [:]
        for row in rows {
            let parts = row.split(separator: "=", maxSplits: 1).map(String.init)
            result[parts[0]] = parts[1]
        }
        return result
    }
}

extension RawSQL {
    /// The first column of every row of the query for this kind's engine, on the store in `directory`.
    static func strings(
        _ kind: StoreKind, _ directory: TemporaryDirectory, sqlite: String, postgres: String
    ) throws -> [String] {
        kind == .postgres
            ? try strings(try kind.location(in: directory), postgres) : try strings(directory.file(), sqlite)
    }

    /// PostgreSQL: the columns of `table` named `column` (none or one).
    static func pgColumn(_ table: String, _ column: String) -> String {
        "SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '\(table)' AND column_name = '\(column)'"
    }

    /// PostgreSQL: the application tables whose names satisfy `condition` on `table_name`.
    static func pgTables(_ condition: String) -> String {
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() AND (\(condition)) ORDER BY 1"
    }
}
