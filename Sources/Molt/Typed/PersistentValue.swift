import Foundation
import GRDBSQLite

/// A Swift type that a ``PersistentModel`` property can have: `String`, `Int`, `Int64`, `Double`, `Bool`,
/// `Date`, `Data`, `UUID`, and their optionals.
///
/// Each type names its ``AttributeType`` and reads and writes itself column by column, straight from and to
/// SQLite when fetching and saving, so typed access costs no dictionary per object.
///
/// ```swift
/// String.attributeType        // .string
/// Optional<Date>.isOptional   // true
/// ```
public protocol PersistentValue: ValueConvertible, Sendable {
    /// The attribute type that stores this Swift type.
    static var attributeType: AttributeType { get }
    /// Whether the attribute may hold null: true for optionals.
    static var isOptional: Bool { get }
    /// Reads the value of column `index` of a row.
    ///
    /// - Throws: ``MoltError`` when a dynamic value does not fit the type.
    static func read(from row: ModelRow, at index: Int) throws -> Self
    /// Appends the value as the next column.
    func write(to columns: inout ModelColumns)
}

extension PersistentValue {
    /// False: only optionals may hold null.
    public static var isOptional: Bool { false }
}

extension String: PersistentValue {
    public static var attributeType: AttributeType { .string }
    public static func read(from row: ModelRow, at index: Int) throws -> String {
        if case .statement(let s) = row.storage { return ModelRow.text(s, Int32(index + 1)) }
        return try row.converted(index, String.self)
    }
    public func write(to columns: inout ModelColumns) {
        columns.append(statement: { ModelColumns.bind(self, $0, $1) }, value: { .string(self) })
    }
}

extension Int: PersistentValue {
    public static var attributeType: AttributeType { .int }
    public static func read(from row: ModelRow, at index: Int) throws -> Int {
        if case .statement(let s) = row.storage { return Int(sqlite3_column_int64(s, Int32(index + 1))) }
        return try row.converted(index, Int.self)
    }
    public func write(to columns: inout ModelColumns) {
        columns.append(statement: { sqlite3_bind_int64($0, $1, Int64(self)) }, value: { .int(Int64(self)) })
    }
}

extension Int64: PersistentValue {
    public static var attributeType: AttributeType { .int }
    public static func read(from row: ModelRow, at index: Int) throws -> Int64 {
        if case .statement(let s) = row.storage { return sqlite3_column_int64(s, Int32(index + 1)) }
        return try row.converted(index, Int64.self)
    }
    public func write(to columns: inout ModelColumns) {
        columns.append(statement: { sqlite3_bind_int64($0, $1, self) }, value: { .int(self) })
    }
}

extension Double: PersistentValue {
    public static var attributeType: AttributeType { .double }
    public static func read(from row: ModelRow, at index: Int) throws -> Double {
        if case .statement(let s) = row.storage { return sqlite3_column_double(s, Int32(index + 1)) }
        return try row.converted(index, Double.self)
    }
    public func write(to columns: inout ModelColumns) {
        if isNaN { columns.flagNaN() }
        columns.append(statement: { sqlite3_bind_double($0, $1, self) }, value: { .double(self) })
    }
}

extension Bool: PersistentValue {
    public static var attributeType: AttributeType { .bool }
    public static func read(from row: ModelRow, at index: Int) throws -> Bool {
        if case .statement(let s) = row.storage { return sqlite3_column_int64(s, Int32(index + 1)) != 0 }
        return try row.converted(index, Bool.self)
    }
    public func write(to columns: inout ModelColumns) {
        columns.append(statement: { sqlite3_bind_int64($0, $1, self ? 1 : 0) }, value: { .bool(self) })
    }
}

extension Date: PersistentValue {
    public static var attributeType: AttributeType { .date }
    public static func read(from row: ModelRow, at index: Int) throws -> Date {
        if case .statement(let s) = row.storage { return Date(timeIntervalSince1970: sqlite3_column_double(s, Int32(index + 1))) }
        return try row.converted(index, Date.self)
    }
    public func write(to columns: inout ModelColumns) {
        if timeIntervalSince1970.isNaN { columns.flagNaN() }
        columns.append(statement: { sqlite3_bind_double($0, $1, self.timeIntervalSince1970) }, value: { .date(self) })
    }
}

extension Data: PersistentValue {
    public static var attributeType: AttributeType { .data }
    public static func read(from row: ModelRow, at index: Int) throws -> Data {
        if case .statement(let s) = row.storage { return ModelRow.blob(s, Int32(index + 1)) }
        return try row.converted(index, Data.self)
    }
    public func write(to columns: inout ModelColumns) {
        columns.append(statement: { ModelColumns.bind(self, $0, $1) }, value: { .data(self) })
    }
}

extension UUID: PersistentValue {
    public static var attributeType: AttributeType { .uuid }
    public static func read(from row: ModelRow, at index: Int) throws -> UUID {
        if case .statement(let s) = row.storage {
            let text = ModelRow.text(s, Int32(index + 1))
            guard let uuid = UUID(uuidString: text) else {
                throw MoltError(.invalidValue, "Column \(index) holds '\(text)', which is not a UUID.")
            }
            return uuid
        }
        return try row.converted(index, UUID.self)
    }
    public func write(to columns: inout ModelColumns) {
        columns.append(statement: { ModelColumns.bind(self.uuidString, $0, $1) }, value: { .uuid(self) })
    }
}

extension Optional: ValueConvertible where Wrapped: ValueConvertible {
    /// The wrapped value's ``Value``, or `.null`.
    public var moltValue: Value { self?.moltValue ?? .null }
    /// `.none` for `.null`, the wrapped value when it converts; the initializer fails for another type.
    public init?(moltValue: Value) {
        if moltValue.isNull { self = .none; return }
        guard let wrapped = Wrapped(moltValue: moltValue) else { return nil }
        self = .some(wrapped)
    }
}

extension Optional: PersistentValue where Wrapped: PersistentValue {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public static var isOptional: Bool { true }
    public static func read(from row: ModelRow, at index: Int) throws -> Wrapped? {
        row.isNull(at: index) ? nil : try Wrapped.read(from: row, at: index)
    }
    public func write(to columns: inout ModelColumns) {
        if let self { self.write(to: &columns) } else { columns.appendValue(.null) }
    }
}
