import CSQLite
import Foundation

/// A connection to an SQLite file through the C API, for the harness's own reads and deliberate damage.
///
/// It is never used to migrate: molt does that. Values are written as SQL literals (``SQLiteValue/literal``), so
/// no binding is needed.
///
/// ```swift
/// let db = try SQLiteConnection(url)
/// try db.execute("PRAGMA journal_mode = DELETE")
/// let version = try db.scalar("PRAGMA user_version")
/// ```
final class SQLiteConnection {
    private var handle: OpaquePointer?
    let path: String

    /// Opens `url` for reading and writing (so that a hot journal is rolled back, as any application's opening
    /// would), or read-only; with `creating`, makes the file when there is none.
    init(_ url: URL, readOnly: Bool = false, creating: Bool = false, busyTimeout: Double = 10) throws {
        path = url.path
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (creating ? SQLITE_OPEN_CREATE : 0))
        let status = sqlite3_open_v2(url.path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(status)"
            sqlite3_close(handle)
            handle = nil
            throw SQLiteError(code: status, message: message, sql: "open \(url.path)")
        }
        sqlite3_busy_timeout(handle, Int32(busyTimeout * 1000))
    }

    deinit { close() }

    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs one or more statements, ignoring their rows.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: status, message: text, sql: sql)
        }
    }

    /// Calls `body` with each row of one statement.
    func forEachRow(_ sql: String, _ body: ([SQLiteValue]) throws -> Void) throws {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK else {
            throw SQLiteError(code: status, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        defer { sqlite3_finalize(statement) }
        let columns = sqlite3_column_count(statement)
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return }
            guard step == SQLITE_ROW else {
                throw SQLiteError(code: step, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
            }
            try body((0..<columns).map { SQLiteValue(statement!, column: $0) })
        }
    }

    /// Every row of one statement.
    func rows(_ sql: String) throws -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        try forEachRow(sql) { rows.append($0) }
        return rows
    }

    /// The first column of the first row, or nil.
    func scalar(_ sql: String) throws -> SQLiteValue? {
        try rows(sql).first?.first
    }

    /// The names of a statement's result columns.
    func columnNames(_ sql: String) throws -> [String] {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK else {
            throw SQLiteError(code: status, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        defer { sqlite3_finalize(statement) }
        return (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
    }
}

/// A value read from SQLite, with its storage class.
enum SQLiteValue: Equatable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    init(_ statement: OpaquePointer, column: Int32) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: self = .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            let pointer = sqlite3_column_text(statement, column)
            self = .text(
                pointer.map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            let pointer = sqlite3_column_blob(statement, column)
            self = .blob(pointer.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? [])
        default: self = .null
        }
    }

    var int: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The value as an SQL literal: `NULL`, `42`, `'it''s'`, `X'00FF'`.
    var literal: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return value.isFinite ? "\(value)" : (value > 0 ? "9e999" : "-9e999")
        case .text(let value): return SQLiteValue.quote(value)
        case .blob(let bytes): return "X'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    var description: String { literal }

    /// `text` as an SQL string literal.
    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// `name` as an SQL identifier.
    static func identifier(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// Feeds the value, with its storage class, to a hash.
    func hash(into fnv: inout FNV) {
        switch self {
        case .null: fnv.add(0)
        case .integer(let value): fnv.add(1); fnv.add(UInt64(bitPattern: value))
        case .real(let value): fnv.add(2); fnv.add(value.bitPattern)
        case .text(let value): fnv.add(3); fnv.add(value)
        case .blob(let bytes): fnv.add(4); bytes.withUnsafeBytes { fnv.add($0) }; fnv.add(UInt64(bytes.count))
        }
    }
}

/// An error of SQLite, with the statement that caused it.
struct SQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var sql: String

    var description: String { "SQLite error \(code): \(message) (in: \(Shell.shorten(sql, 200)))" }
}
