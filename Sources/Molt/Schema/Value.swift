import Foundation

/// A value stored in an attribute of a Molt object.
///
/// `Value` is what the dynamic API reads and writes. Literals convert to it directly:
///
/// ```swift
/// memo["title"] = "Groceries"     // .string
/// memo["count"] = 3               // .int
/// memo["memoDate"] = .date(Date())
/// memo["price"] = .decimal(Decimal(string: "19.99")!)
/// let title = memo["title"].string // String?
/// ```
///
/// The sized types have no case of their own: an `int16` or `int32` attribute holds `.int` values in its range,
/// and a `float` attribute `.double` values that a `Float` holds exactly; a write of any other is refused.
public enum Value: Hashable, Sendable {
    case null
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    /// An exact decimal number, for a `decimal` attribute. Equal values are equal whatever their scale
    /// (`1.10 == 1.1`).
    case decimal(Decimal)

    /// Whether this is `.null`.
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The string, if this is a `.string`.
    public var string: String? { if case .string(let v) = self { return v } else { return nil } }
    /// The integer, if this is an `.int` (or a `.bool`, as 0 or 1).
    public var int: Int64? {
        switch self {
        case .int(let v): return v
        case .bool(let v): return v ? 1 : 0
        default: return nil
        }
    }
    /// The double, if this is a `.double`, or an `.int` that has an exact double.
    public var double: Double? {
        switch self {
        case .double(let v): return v
        case .int(let v): return Double(exactly: v)
        default: return nil
        }
    }
    /// The boolean, if this is a `.bool`.
    public var bool: Bool? { if case .bool(let v) = self { return v } else { return nil } }
    /// The date, if this is a `.date`.
    public var date: Date? { if case .date(let v) = self { return v } else { return nil } }
    /// The bytes, if this is a `.data`.
    public var data: Data? { if case .data(let v) = self { return v } else { return nil } }
    /// The UUID, if this is a `.uuid`.
    public var uuid: UUID? { if case .uuid(let v) = self { return v } else { return nil } }
    /// The decimal, if this is a `.decimal`, or an `.int` (which every decimal holds exactly).
    ///
    /// ```swift
    /// Value.decimal(Decimal(string: "0.1")!).decimal   // 0.1
    /// Value.int(3).decimal                              // 3
    /// ```
    public var decimal: Decimal? {
        switch self {
        case .decimal(let v): return v
        case .int(let v): return Decimal(v)
        default: return nil
        }
    }

    /// The attribute type this value belongs to, or nil for `.null`.
    public var type: AttributeType? {
        switch self {
        case .null: return nil
        case .string: return .string
        case .int: return .int
        case .double: return .double
        case .bool: return .bool
        case .date: return .date
        case .data: return .data
        case .uuid: return .uuid
        case .decimal: return .decimal
        }
    }
}

extension Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension Value: CustomStringConvertible {
    /// A short, human-readable rendering (`"text"`, `42`, `2024-01-01T00:00:00Z`, `null`).
    public var description: String {
        switch self {
        case .null: return "null"
        case .string(let v): return "\"\(v)\""
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .bool(let v): return String(v)
        case .date(let v): return ValueConversion.text(dateSince1970: v.timeIntervalSince1970)
        case .data(let v): return "<\(v.count) bytes>"
        case .uuid(let v): return v.uuidString
        case .decimal(let v): return DecimalText.text(v)
        }
    }

}

/// A Swift type that converts to and from a ``Value``, for typed subscripts.
///
/// ```swift
/// let title: String? = memo["title", as: String.self]
/// ```
public protocol ValueConvertible {
    /// The value stored for this Swift value.
    var moltValue: Value { get }
    /// The Swift value for a stored value, or nil when the value has another type.
    init?(moltValue: Value)
}

extension String: ValueConvertible {
    public var moltValue: Value { .string(self) }
    public init?(moltValue: Value) { guard let v = moltValue.string else { return nil }; self = v }
}
extension Int: ValueConvertible {
    public var moltValue: Value { .int(Int64(self)) }
    /// Nil when the value is not an integer, or does not fit `Int` (on 32-bit platforms).
    public init?(moltValue: Value) {
        guard let v = moltValue.int.flatMap({ Int(exactly: $0) }) else { return nil }; self = v
    }
}
extension Int64: ValueConvertible {
    public var moltValue: Value { .int(self) }
    public init?(moltValue: Value) { guard let v = moltValue.int else { return nil }; self = v }
}
extension Double: ValueConvertible {
    public var moltValue: Value { .double(self) }
    public init?(moltValue: Value) { guard let v = moltValue.double else { return nil }; self = v }
}
extension Bool: ValueConvertible {
    public var moltValue: Value { .bool(self) }
    public init?(moltValue: Value) { guard let v = moltValue.bool else { return nil }; self = v }
}
extension Date: ValueConvertible {
    public var moltValue: Value { .date(self) }
    public init?(moltValue: Value) { guard let v = moltValue.date else { return nil }; self = v }
}
extension Data: ValueConvertible {
    public var moltValue: Value { .data(self) }
    public init?(moltValue: Value) { guard let v = moltValue.data else { return nil }; self = v }
}
extension Int16: ValueConvertible {
    public var moltValue: Value { .int(Int64(self)) }
    /// Nil when the value is not an integer, or does not fit `Int16`.
    public init?(moltValue: Value) {
        guard let v = moltValue.int.flatMap({ Int16(exactly: $0) }) else { return nil }; self = v
    }
}
extension Int32: ValueConvertible {
    public var moltValue: Value { .int(Int64(self)) }
    /// Nil when the value is not an integer, or does not fit `Int32`.
    public init?(moltValue: Value) {
        guard let v = moltValue.int.flatMap({ Int32(exactly: $0) }) else { return nil }; self = v
    }
}
extension Float: ValueConvertible {
    /// The float as a `.double`, which holds every float exactly.
    public var moltValue: Value { .double(Double(self)) }
    /// Nil when the value is not a number that a `Float` holds exactly.
    public init?(moltValue: Value) {
        guard let v = moltValue.double, v.isNaN || Float(exactly: v) != nil else { return nil }
        self = Float(v)
    }
}
extension Decimal: ValueConvertible {
    public var moltValue: Value { .decimal(self) }
    /// Nil when the value is neither a decimal nor an integer.
    public init?(moltValue: Value) { guard let v = moltValue.decimal else { return nil }; self = v }
}
extension UUID: ValueConvertible {
    public var moltValue: Value { .uuid(self) }
    public init?(moltValue: Value) { guard let v = moltValue.uuid else { return nil }; self = v }
}
