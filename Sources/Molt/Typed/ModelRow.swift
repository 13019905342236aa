import Foundation
import GRDBSQLite

/// The stored values of one object, in column order, from which a ``PersistentModel`` initializes itself.
///
/// A row reads either straight from an SQLite statement (fetching: no dictionary, no boxing) or from a list of
/// ``Value``s (converting a ``DynamicObject``, for instance in a migration stage). Column `0` is the model's
/// first attribute; attributes come in declaration order, then to-one relationships.
///
/// Generated code reads it as below; a hand-written conformance does the same:
///
/// ```swift
/// init(row: ModelRow) throws {
///     persistentID = row.id
///     title = try row.value(at: 0)
///     count = try row.value(at: 1)
/// }
/// ```
public struct ModelRow {
    enum Storage {
        case statement(OpaquePointer)
        case values([Value], Entity)
    }

    let storage: Storage
    /// The identifier Molt gave the object, or nil for an object that is not stored yet.
    public let id: Int64?

    init(statement: OpaquePointer) {
        storage = .statement(statement)
        id = sqlite3_column_int64(statement, 0)
    }

    init(values: [Value], entity: Entity, id: Int64?) {
        storage = .values(values, entity)
        self.id = id
    }

    /// The value of column `index`, converted to the property's type.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/invalidValue`` when a value read from a dynamic object
    ///   does not fit the type (a required attribute left null, another type).
    public func value<V: PersistentValue>(at index: Int, as type: V.Type = V.self) throws -> V {
        try V.read(from: self, at: index)
    }

    /// Whether column `index` holds null.
    public func isNull(at index: Int) -> Bool {
        switch storage {
        case .statement(let statement): return sqlite3_column_type(statement, Int32(index + 1)) == SQLITE_NULL
        case .values(let values, _): return values[index].isNull
        }
    }

    /// The value of column `index` as a dynamic ``Value`` of `type`.
    public func dynamicValue(at index: Int, type: AttributeType) -> Value {
        switch storage {
        case .statement(let statement):
            let column = Int32(index + 1)
            switch sqlite3_column_type(statement, column) {
            case SQLITE_NULL: return .null
            default:
                switch type {
                case .string: return .string(Self.text(statement, column))
                case .int: return .int(sqlite3_column_int64(statement, column))
                case .double: return .double(sqlite3_column_double(statement, column))
                case .bool: return .bool(sqlite3_column_int64(statement, column) != 0)
                case .date: return .date(Date(timeIntervalSince1970: sqlite3_column_double(statement, column)))
                case .data: return .data(Self.blob(statement, column))
                case .uuid:
                    let text = Self.text(statement, column)
                    return UUID(uuidString: text).map(Value.uuid) ?? .string(text)
                }
            }
        case .values(let values, _):
            return values[index]
        }
    }

    /// Converts a dynamic value to `V`, or throws naming the attribute.
    func converted<V: ValueConvertible>(_ index: Int, _ type: V.Type) throws -> V {
        guard case .values(let values, let entity) = storage else { preconditionFailure("converted(_:_:) reads dynamic rows only") }
        let value = values[index]
        if let converted = V(moltValue: value) { return converted }
        let name = index < entity.attributes.count ? entity.attributes[index].name : "column \(index)"
        if value.isNull {
            throw MoltError(
                .invalidValue, "Attribute '\(entity.name).\(name)' is required but holds null; give it a value before reading it as '\(entity.name)'.",
                entity: entity.name, property: name)
        }
        throw MoltError(
            .invalidValue, "Attribute '\(entity.name).\(name)' holds \(value), which is not a \(V.self).", entity: entity.name, property: name)
    }

    static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    static func blob(_ statement: OpaquePointer, _ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}

/// The stored values of one object being written, in column order: what a ``PersistentModel`` encodes itself
/// into.
///
/// Values go straight to an SQLite statement when inserting or saving, or into a list of ``Value``s when
/// converting to a ``DynamicObject``. Append attributes in declaration order, then to-one relationships.
///
/// ```swift
/// func encode(to columns: inout ModelColumns) {
///     columns.append(title)
///     columns.append(count)
/// }
/// ```
public struct ModelColumns {
    enum Storage {
        case statement(OpaquePointer)
        case values([Value])
    }

    var storage: Storage
    /// The index of the next column.
    public private(set) var count = 0
    /// The first column given a NaN, which SQLite would store as null: inserting or saving refuses it.
    var nanColumn: Int?

    init(statement: OpaquePointer) { storage = .statement(statement) }
    init() { storage = .values([]) }

    /// Appends the next column's value.
    public mutating func append<V: PersistentValue>(_ value: V) {
        value.write(to: &self)
    }

    /// Appends the next column's value as a dynamic ``Value``.
    public mutating func appendValue(_ value: Value) {
        switch storage {
        case .statement(let statement):
            let index = Int32(count + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, index)
            case .string(let v): Self.bind(v, statement, index)
            case .int(let v): sqlite3_bind_int64(statement, index, v)
            case .double(let v): sqlite3_bind_double(statement, index, v)
            case .bool(let v): sqlite3_bind_int64(statement, index, v ? 1 : 0)
            case .date(let v): sqlite3_bind_double(statement, index, v.timeIntervalSince1970)
            case .data(let v): Self.bind(v, statement, index)
            case .uuid(let v): Self.bind(v.uuidString, statement, index)
            }
        case .values(var values):
            storage = .values([])
            values.append(value)
            storage = .values(values)
        }
        count += 1
    }

    /// The values appended so far, for a dynamic object.
    var values: [Value] {
        if case .values(let values) = storage { return values }
        return []
    }

    /// Notes that the next column's value is NaN, before appending it.
    mutating func flagNaN() {
        if nanColumn == nil { nanColumn = count }
    }

    /// Binds the next column through `statementBody`, or stores `value()` for a dynamic object.
    mutating func append(statement statementBody: (OpaquePointer, Int32) -> Void, value: () -> Value) {
        switch storage {
        case .statement(let statement):
            statementBody(statement, Int32(count + 1))
            count += 1
        case .values:
            appendValue(value())
        }
    }

    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func bind(_ string: String, _ statement: OpaquePointer, _ index: Int32) {
        var string = string
        string.withUTF8 { bytes in
            _ = sqlite3_bind_text(statement, index, bytes.baseAddress, Int32(bytes.count), transient)
        }
    }

    static func bind(_ data: Data, _ statement: OpaquePointer, _ index: Int32) {
        data.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), transient)
        }
    }
}
