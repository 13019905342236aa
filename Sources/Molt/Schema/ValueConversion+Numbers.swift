import Foundation

extension ValueConversion {
    /// The conversions to and from the sized and exact number types: a value converts when the type holds it
    /// exactly (an integer in an `int16`'s range, a double that is a `Float`, a whole decimal in an `int`'s
    /// range), never by rounding or truncating.
    ///
    /// (`nil` is never written as a `Value?` expression here: `Value` is `ExpressibleByNilLiteral`, and
    /// `condition ? value : nil` would give `.null`, not no value.)
    static func convertNumber(_ value: Value, to type: AttributeType) -> Value? {
        switch (value, type) {
        case (.int(let v), .int16), (.int(let v), .int32):
            return type.integerRange!.contains(v) ? .some(value) : .none
        case (.bool(let v), .int16), (.bool(let v), .int32): return .int(v ? 1 : 0)
        case (.double(let v), .int16), (.double(let v), .int32):
            return Int64(exactly: v).flatMap { convertNumber(.int($0), to: type) }
        case (.int(let v), .float): return Float(exactly: v).map { .double(Double($0)) }
        case (.double(let v), .float): return Float(exactly: v) != nil ? .some(value) : .none
        case (.int(let v), .decimal): return .decimal(Decimal(v))
        case (.double(let v), .decimal): return Int64(exactly: v).map { .decimal(Decimal($0)) }
        case (.decimal(let v), .int), (.decimal(let v), .int16), (.decimal(let v), .int32):
            guard let whole = Int64(DecimalText.text(v)) else { return nil }
            return type == .int ? .int(whole) : convertNumber(.int(whole), to: type)
        case (.decimal(let v), .string): return .string(DecimalText.text(v))
        default: return nil
        }
    }

    /// Why `value` does not fit an attribute of a sized or exact number type (`int16`, `int32`, `float`,
    /// `decimal`), as a refusal that names the entity, the attribute, the object and the value and says what
    /// to do; nil when the type is another or the value is of another kind altogether.
    ///
    /// - Parameter origin: Where the value comes from, when no object holds it yet (a mapping's expression).
    package static func numberRefusal(
        entity: String, attribute: String, type: AttributeType, value: Value, objectID: Int64?, origin: String? = nil
    ) -> MoltError? {
        let object = (objectID.map { " of the object with _id \($0)" } ?? "") + (origin.map { " (\($0))" } ?? "")
        let label = "Attribute '\(entity).\(attribute)'"
        let message: String
        switch (value, type) {
        case (.int(let v), .int16), (.int(let v), .int32):
            let range = type.integerRange!
            message =
                "\(label) holds \(type.rawValue) values (\(range.lowerBound) through \(range.upperBound)): the value \(v)\(object) does not fit, and Molt never truncates a value; nothing was written. Write a value in range, or widen the attribute (to \(type == .int16 ? "int32" : "int")) in a new schema version."
        case (.double(let v), .float) where !v.isNaN:
            let nearest = ValueConversion.text(double: Double(Float(v)))
            let why =
                v.isFinite && abs(v) > Double(Float.greatestFiniteMagnitude)
                ? "is beyond a float's range (±3.4028235e+38)" : "has no exact float (the nearest is \(nearest))"
            message =
                "\(label) holds float (32-bit) values: the value \(ValueConversion.text(double: v))\(object) \(why), and Molt never rounds a value silently; nothing was written. Write a value a Float holds (Double(Float(x)) rounds as you choose), or make the attribute a double."
        case (.int(let v), .float):
            message =
                "\(label) holds float (32-bit) values: the value \(v)\(object) has no exact float, and Molt never rounds a value silently; nothing was written. Write a value a Float holds, or make the attribute a double."
        case (.double(let v), .decimal) where !v.isNaN:
            message =
                "\(label) holds decimal values: the double \(ValueConversion.text(double: v))\(object) is binary, not an exact decimal, and Molt never rounds a value silently; nothing was written. Write a Decimal (`.decimal(Decimal(string: \"\(ValueConversion.text(double: v))\")!)`)."
        case (.decimal(let v), .decimal) where v.isNaN:
            message =
                "\(label) cannot store NaN\(object): Molt stores numbers, or null explicitly; nothing was written. Store a number, or null."
        default:
            return nil
        }
        return MoltError(.invalidValue, message, entity: entity, property: attribute)
    }
}
