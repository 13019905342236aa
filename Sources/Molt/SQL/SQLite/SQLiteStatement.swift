import Foundation
import GRDB
import GRDBSQLite

/// A prepared SQLite statement, and the one codec between ``Value`` and SQLite's storage.
///
/// Writing: strings and bytes are bound with their length, so a string with a NUL is stored whole; NaN is
/// refused (SQLite would store null); dates are seconds since 1970 as a REAL; bools 0 and 1; UUIDs their
/// uppercase text; decimals their canonical text (``DecimalText``). Reading: a stored value converts to the attribute's type only when it holds exactly that
/// value (a whole REAL for an int, 0 or 1 for a bool, UUID text for a UUID); otherwise ``value(_:as:)`` is nil
/// and the caller refuses the value, naming it.
struct SQLiteStatement: SQLStatement {
    let statement: Statement
    let context: SQLiteErrors.Context
    var handle: OpaquePointer { statement.sqliteStatement }

    var sql: String { statement.sql }

    func bind(_ arguments: [Value]) throws {
        sqlite3_reset(handle)
        for (index, argument) in arguments.enumerated() { try bind(argument, at: index) }
    }

    func bind(_ value: Value, at index: Int) throws {
        let position = Int32(index + 1)
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, position)
        case .int(let v): code = sqlite3_bind_int64(handle, position, v)
        case .bool(let v): code = sqlite3_bind_int64(handle, position, v ? 1 : 0)
        case .double(let v):
            guard !v.isNaN else { throw Self.nanRefusal(decimal: false) }
            code = sqlite3_bind_double(handle, position, v)
        case .date(let v): code = sqlite3_bind_double(handle, position, v.timeIntervalSince1970)
        case .string(let v): code = Self.bindText(v, handle, position)
        case .uuid(let v): code = Self.bindText(v.uuidString, handle, position)
        case .decimal(let v):
            guard !v.isNaN else { throw Self.nanRefusal(decimal: true) }
            code = Self.bindText(DecimalText.text(v), handle, position)
        case .data(let v):
            code = v.withUnsafeBytes { bytes in
                sqlite3_bind_blob64(
                    handle, position, bytes.baseAddress ?? Self.empty, sqlite3_uint64(bytes.count), Self.transient)
            }
        }
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// `value` as ``bind(_:at:)`` stores it, for a Swift function's result in SQL (a bulk copy's conversions,
    /// ``SQLiteRowCopy``): the same encoding, so that a value written either way is stored alike.
    static func databaseValue(_ value: Value) throws -> DatabaseValue {
        switch value {
        case .null: return .null
        case .int(let v): return v.databaseValue
        case .bool(let v): return (v ? 1 : 0).databaseValue
        case .double(let v):
            guard !v.isNaN else { throw Self.nanRefusal(decimal: false) }
            return v.databaseValue
        case .date(let v): return v.timeIntervalSince1970.databaseValue
        case .string(let v): return v.databaseValue
        case .uuid(let v): return v.uuidString.databaseValue
        case .decimal(let v):
            guard !v.isNaN else { throw Self.nanRefusal(decimal: true) }
            return DecimalText.text(v).databaseValue
        case .data(let v): return v.databaseValue
        }
    }

    /// Why NaN is not stored: SQLite keeps a NaN real as null, and a decimal has no text for it.
    private static func nanRefusal(decimal: Bool) -> MoltError {
        decimal
            ? MoltError(.invalidValue, "NaN cannot be stored as a decimal. Store a number, or null explicitly.")
            : MoltError(
                .invalidValue,
                "NaN cannot be stored: SQLite would keep it as null. Store a number, or null explicitly.")
    }

    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let failure = error(code)
        sqlite3_reset(handle)
        throw failure
    }

    func reset() { sqlite3_reset(handle) }

    @discardableResult
    func execute(_ arguments: [Value]) throws -> Int {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        while try step() {}
        return Int(sqlite3_changes64(sqlite3_db_handle(handle)))
    }

    func insert(_ arguments: [Value]) throws -> Int64 {
        try execute(arguments)
        return sqlite3_last_insert_rowid(sqlite3_db_handle(handle))
    }

    func insertOrUpdate() throws -> Int64? {
        // The update branch of an upsert leaves the last inserted rowid alone: 0 (never an identifier) then
        // says that the statement updated a row.
        let connection = sqlite3_db_handle(handle)
        sqlite3_set_last_insert_rowid(connection, 0)
        defer { sqlite3_reset(handle) }
        while try step() {}
        let id = sqlite3_last_insert_rowid(connection)
        return id == 0 ? nil : id
    }

    // MARK: - Reading

    func isNull(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }
    func int64(_ column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }
    func double(_ column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }
    func text(_ column: Int) -> String { Self.text(handle, Int32(column)) }
    func data(_ column: Int) -> Data { Self.data(handle, Int32(column)) }

    func value(_ column: Int, as type: AttributeType) -> Value? {
        Self.value(handle, Int32(column), as: type)
    }

    func rowReader() -> SQLRowReader { SQLiteRowReader(self) }

    func rawValue(_ column: Int) -> Value {
        let index = Int32(column)
        switch sqlite3_column_type(handle, index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .string(Self.text(handle, index))
        default: return .data(Self.data(handle, index))
        }
    }

    func describe(_ column: Int) -> String {
        switch rawValue(column) {
        case .null: return "null"
        case .int(let v): return "the integer \(v)"
        case .double(let v): return "the real \(ValueConversion.text(double: v))"
        case .string(let v): return "the text '\(v.count > 40 ? v.prefix(40) + "…" : Substring(v))'"
        case .data(let v): return "a blob of \(v.count) bytes"
        default: return "a value"
        }
    }

    // MARK: - The codec, on a raw statement (hot loops call these directly)

    /// The value of a column as `type`, or nil when the stored value is not exactly a value of that type.
    @inline(__always)
    static func value(_ handle: OpaquePointer, _ column: Int32, as type: AttributeType) -> Value? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            let v = sqlite3_column_int64(handle, column)
            switch type {
            case .int: return .int(v)
            case .bool: return v == 0 || v == 1 ? .bool(v == 1) : nil
            case .double: return Double(exactly: v).map(Value.double)
            case .date: return Double(exactly: v).map { .date(Date(timeIntervalSince1970: $0)) }
            case .int16, .int32, .float, .decimal: return ValueConversion.convert(.int(v), to: type)
            default: return nil
            }
        case SQLITE_FLOAT:
            let v = sqlite3_column_double(handle, column)
            switch type {
            case .double: return .double(v)
            case .date: return .date(Date(timeIntervalSince1970: v))
            case .int: return Int64(exactly: v).map(Value.int)
            case .float: return ValueConversion.convert(.double(v), to: .float)
            case .int16, .int32: return ValueConversion.convert(.double(v), to: type)
            default: return nil
            }
        case SQLITE_TEXT:
            switch type {
            case .string: return .string(text(handle, column))
            case .uuid: return UUID(uuidString: text(handle, column)).map(Value.uuid)
            case .decimal: return DecimalText.decimal(fromText: text(handle, column)).map(Value.decimal)
            default: return nil
            }
        default:
            return type == .data ? .data(data(handle, column)) : nil
        }
    }

    /// The text of a column, every byte kept (NULs included).
    @inline(__always)
    static func text(_ handle: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    static func data(_ handle: OpaquePointer, _ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    nonisolated(unsafe) static let transient = unsafeBitCast(
        OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    nonisolated(unsafe) private static let empty = UnsafeRawPointer(bitPattern: 1)!

    /// Binds text with its byte count: a NUL inside is stored, not an end.
    @inline(__always)
    static func bindText(_ text: String, _ handle: OpaquePointer, _ position: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { (bytes: UnsafeBufferPointer<UInt8>) -> Int32 in
            let base = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer<UInt8>(OpaquePointer(empty)))
            return sqlite3_bind_text64(
                handle, position, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count), transient,
                UInt8(SQLITE_UTF8))
        }
    }

    func error(_ code: Int32) -> MoltError {
        SQLiteErrors.map(code: code, connection: sqlite3_db_handle(handle), sql: statement.sql, context)
    }
}

/// The rows of an SQLite query read straight from its statement's handle: a column that holds exactly the
/// kind asked for is read with one `sqlite3_column_type` and one read of the value, no ``Value`` in between.
final class SQLiteRowReader: SQLRowReader {
    private let handle: OpaquePointer

    init(_ statement: SQLiteStatement) {
        handle = statement.handle
        super.init(statement)
    }

    override func id() -> Int64 { sqlite3_column_int64(handle, 0) }

    override func isNull(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }

    override func storedInt64(_ column: Int) -> Int64? {
        sqlite3_column_type(handle, Int32(column)) == SQLITE_INTEGER ? sqlite3_column_int64(handle, Int32(column)) : nil
    }

    override func storedDouble(_ column: Int) -> Double? {
        sqlite3_column_type(handle, Int32(column)) == SQLITE_FLOAT ? sqlite3_column_double(handle, Int32(column)) : nil
    }

    override func storedText(_ column: Int) -> String? {
        sqlite3_column_type(handle, Int32(column)) == SQLITE_TEXT
            ? SQLiteStatement.text(handle, Int32(column)) : nil
    }
}
