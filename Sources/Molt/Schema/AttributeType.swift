/// The type of an attribute's values.
///
/// Integers come in three sizes (`int16`, `int32`, and `int`, which is 64-bit), binary floating point in two
/// (`float`, 32-bit, and `double`), and `decimal` holds a Swift `Decimal` exactly: up to 38 significant digits,
/// compared and sorted by value on every engine. A write of a value the type cannot hold (40 000 to an `int16`,
/// 0.1 to a `float`, which has no exact 0.1) is refused, naming the value; nothing is rounded or truncated.
///
/// ```swift
/// Attribute("quantity", .int16)
/// Attribute("price", .decimal)       // Decimal(string: "19.99")! is stored as 19.99, not a binary approximation
/// ```
public enum AttributeType: String, Codable, Sendable, CaseIterable {
    case string, int, double, bool, date, data, uuid
    /// A 16-bit integer (`Int16`): -32 768 through 32 767.
    case int16
    /// A 32-bit integer (`Int32`).
    case int32
    /// A 32-bit binary floating-point number (`Float`); a value is a ``Value/double(_:)`` that a `Float` holds
    /// exactly.
    case float
    /// An exact decimal number (`Decimal`): up to 38 significant digits, compared and sorted by value.
    case decimal

    /// Whether every value of `self` converts to `other` without loss, so that the change can be inferred.
    ///
    /// The safe conversions are the widenings of numbers (`int16 → int32 → int → decimal`, `int16`/`int32` to
    /// `float`/`double` where every value has an exact one, `float → double`, `int → double` — checked value by
    /// value, as a double holds integers exactly up to 2^53), `bool` to an integer, and any scalar to `string`.
    ///
    /// ```swift
    /// AttributeType.int16.widens(to: .decimal)   // true
    /// AttributeType.int.widens(to: .int32)       // false: a narrowing
    /// ```
    public func widens(to other: AttributeType) -> Bool {
        if self == other { return true }
        switch (self, other) {
        case (.int16, .int32), (.int16, .int), (.int32, .int), (.int16, .decimal), (.int32, .decimal),
            (.int, .decimal):
            return true
        case (.int, .double), (.int16, .double), (.int32, .double), (.int16, .float), (.float, .double): return true
        case (.bool, .int), (.bool, .int16), (.bool, .int32): return true
        case (.int, .string), (.double, .string), (.bool, .string), (.date, .string), (.uuid, .string): return true
        case (.int16, .string), (.int32, .string), (.float, .string), (.decimal, .string): return true
        default: return false
        }
    }

    /// Whether values of the type are integers (``Value/int(_:)``).
    var isInteger: Bool { self == .int || self == .int16 || self == .int32 }

    /// The range of a sized integer type; nil for other types (and `int`, whose range is `Int64`'s).
    var integerRange: ClosedRange<Int64>? {
        switch self {
        case .int16: return Int64(Int16.min)...Int64(Int16.max)
        case .int32: return Int64(Int32.min)...Int64(Int32.max)
        default: return nil
        }
    }
}
