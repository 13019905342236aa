import Foundation

/// A Swift type that a ``PersistentModel`` property can have: `String`, `Int`, `Int64`, `Int32` (stored as
/// `int32`), `Int16` (`int16`), `Double`, `Float` (`float`), `Decimal` (`decimal`), `Bool`, `Date`, `Data`, `UUID`,
/// and their optionals.
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
    /// The shape of the JSON the value is stored as (``Attribute/shape``): a ``StoredAsJSON`` type's
    /// ``ShapedValue/valueShape``; nil for every other type.
    static var storedShape: ValueShape? { get }
}

extension PersistentValue {
    /// False: only optionals may hold null.
    public static var isOptional: Bool { false }

    /// None: the value is not stored as JSON.
    public static var storedShape: ValueShape? { nil }

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
    /// The stored text, read straight from the statement when it is text; otherwise converted or refused.
    public static func read(from row: ModelRow, at index: Int) throws -> String {
        try row.storedText(at: index) ?? row.converted(index, String.self)
    }
}

extension Int: PersistentValue {
    public static var attributeType: AttributeType { .int }
    /// The stored integer, read straight from the statement when it is one; otherwise converted or refused.
    public static func read(from row: ModelRow, at index: Int) throws -> Int {
        if let stored = row.storedInt64(at: index), let value = Int(exactly: stored) { return value }
        return try row.converted(index, Int.self)
    }
}

extension Int64: PersistentValue {
    public static var attributeType: AttributeType { .int }
    /// The stored integer, read straight from the statement when it is one; otherwise converted or refused.
    public static func read(from row: ModelRow, at index: Int) throws -> Int64 {
        try row.storedInt64(at: index) ?? row.converted(index, Int64.self)
    }
}

extension Double: PersistentValue {
    public static var attributeType: AttributeType { .double }
    /// The stored real number, read straight from the statement when it is one; otherwise converted or refused.
    public static func read(from row: ModelRow, at index: Int) throws -> Double {
        try row.storedDouble(at: index) ?? row.converted(index, Double.self)
    }
}

extension Int16: PersistentValue {
    public static var attributeType: AttributeType { .int16 }
}

extension Int32: PersistentValue {
    public static var attributeType: AttributeType { .int32 }
}

extension Float: PersistentValue {
    public static var attributeType: AttributeType { .float }
}

extension Decimal: PersistentValue {
    public static var attributeType: AttributeType { .decimal }
}

extension Bool: PersistentValue {
    public static var attributeType: AttributeType { .bool }
}

extension Date: PersistentValue {
    public static var attributeType: AttributeType { .date }
    /// The stored seconds since 1970, read straight from the statement when they are a real number; otherwise
    /// converted or refused.
    public static func read(from row: ModelRow, at index: Int) throws -> Date {
        if let seconds = row.storedDouble(at: index) { return Date(timeIntervalSince1970: seconds) }
        return try row.converted(index, Date.self)
    }
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
    public static var storedShape: ValueShape? { Wrapped.storedShape }
    @inlinable
    public static func read(from row: ModelRow, at index: Int) throws -> Wrapped? {
        row.isNull(at: index) ? nil : try Wrapped.read(from: row, at: index)
    }
    public func write(to columns: inout ModelColumns) {
        if let self { self.write(to: &columns) } else { columns.appendValue(.null) }
    }
}

// MARK: - Values of the app's own types

extension ValueConvertible where Self: RawRepresentable, RawValue: ValueConvertible {
    /// The raw value's ``Value``.
    public var moltValue: Value { rawValue.moltValue }
    /// The case whose raw value is stored; nil for a raw value no case has.
    public init?(moltValue: Value) {
        guard let raw = RawValue(moltValue: moltValue) else { return nil }
        self.init(rawValue: raw)
    }
}

/// An enum stored as its raw value: declare the conformance, and the enum can be an attribute of a `@Model`
/// (and compared in predicates by its raw value).
///
/// ```swift
/// enum Status: String, PersistentValue { case draft, published }
/// @Model struct Post { var title: String; var status: Status }
/// try objects.fetch(Post.self, where: \.status == .published)
/// ```
///
/// A stored raw value that no case has is reported when the object is read, naming the attribute.
extension PersistentValue where Self: RawRepresentable, RawValue: PersistentValue {
    /// The raw value's attribute type.
    public static var attributeType: AttributeType { RawValue.attributeType }
}

/// A `Codable` value stored as JSON text in a string attribute: a small value type that belongs to its object
/// (an address, a list of ingredients) rather than being an entity of its own.
///
/// ```swift
/// struct Ingredient: StoredAsJSON { var name: String; var grams: Int }
/// @Model struct Recipe { var title: String; var main: Ingredient }
/// ```
///
/// The JSON has sorted keys, so that equal values are equal text and `==` works in predicates; other queries
/// see text. The schema records the type's shape (``ShapedValue/valueShape``): a change of it is a schema change,
/// and a migration checks every stored value against the new shape before it commits (see <doc:TypedModels>).
public protocol StoredAsJSON: PersistentValue, ShapedValue {}

extension StoredAsJSON {
    /// JSON values are stored as text.
    public static var attributeType: AttributeType { .string }

    /// The value as JSON text with sorted keys; `.null` when it cannot be encoded (a write refuses it instead).
    public var moltValue: Value { (try? jsonText()).map(Value.string) ?? .null }

    /// Appends the JSON text; a value that cannot be encoded (a NaN or an infinity inside it) makes the insert or
    /// save throw, rather than store null.
    public func write(to columns: inout ModelColumns) {
        do {
            columns.appendValue(.string(try jsonText()))
        } catch {
            if columns.failure == nil {
                columns.failure = MoltError(
                    .invalidValue,
                    "A value of type \(Self.self) cannot be stored as JSON (\(error)); nothing was written. JSON has no NaN or infinity: give such fields another value, or store them in attributes of their own.",
                    cause: error)
            }
            columns.appendValue(.null)
        }
    }

    private func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The value decoded from JSON text; nil when the text is not a value of this type.
    public init?(moltValue: Value) {
        guard case .string(let text) = moltValue,
            let value = try? JSONDecoder().decode(Self.self, from: Data(text.utf8))
        else { return nil }
        self = value
    }
}
