import Foundation
import GRDB

/// Direct SQLite access for what the public API does not show: table root pages, hand-damaged rows, foreign
/// SQLite files, and bulk fixtures.
enum RawSQL {
    /// Runs statements on the file at `url` in one transaction, with foreign key checks off.
    static func execute(_ url: URL, _ statements: String...) throws {
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
        let rows = try strings(url, "SELECT name || '=' || rootpage FROM sqlite_master WHERE type = 'table' ORDER BY name")
        var result: [String: String] = [:]
        for row in rows {
            let parts = row.split(separator: "=", maxSplits: 1).map(String.init)
            result[parts[0].trimmingCharacters(in: CharacterSet(charactersIn: "\""))] = parts[1]
        }
        return result
    }
}
