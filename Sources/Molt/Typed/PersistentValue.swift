import Foundation

/// A Swift type that a ``PersistentModel`` property can have: `String`, `Int`, `Int64`, `Double`, `Bool`,
/// `Date`, `Data`, `UUID`, and their optionals.
///
/// Each type names its ``AttributeType`` and reads and writes itself column by column through the store's value
/// codec when fetching and saving, so typed access costs no dictionary per object. The default
/// implementations go through ``Value``: a type only names its attribute type and converts to and from
/// ``Value`` (``ValueConvertible``).
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

    /// Reads the stored value of the column as ``attributeType`` and converts it with
    /// ``ValueConvertible/init(moltValue:)``.
    public static func read(from row: ModelRow, at index: Int) throws -> Self {
        try row.converted(index, Self.self)
    }

    /// Appends ``ValueConvertible/moltValue``.
    public func write(to columns: inout ModelColumns) {
        columns.appendValue(moltValue)
    }
}

extension String: PersistentValue {
    public static var attributeType: AttributeType { .string }
}

extension Int: PersistentValue {
    public static var attributeType: AttributeType { .int }
}

extension Int64: PersistentValue {
    public static var attributeType: AttributeType { .int }
}

extension Double: PersistentValue {
    public static var attributeType: AttributeType { .double }
}

extension Bool: PersistentValue {
    public static var attributeType: AttributeType { .bool }
}

extension Date: PersistentValue {
    public static var attributeType: AttributeType { .date }
}

extension Data: PersistentValue {
    public static var attributeType: AttributeType { .data }
}

extension UUID: PersistentValue {
    public static var attributeType: AttributeType { .uuid }
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
