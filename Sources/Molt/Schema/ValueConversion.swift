import Foundation

/// The one rule set for turning a value of one attribute type into another, used by every path that converts:
/// inferred migrations, custom stages, `renameProperty`, mappings, typed stages and the dynamic API's writes.
///
/// A conversion is lossless or it does not happen: ``convert(_:to:)`` returns nil when the value would change
/// (an integer beyond 2^53 has no exact double; a double is not an integer; text is not a UUID), and every
/// path refuses such a value with the same message (``inexactDouble(entity:attribute:value:objectID:version:)``). SQL paths run the
/// same rules, through the text forms defined here.
package enum ValueConversion {
    /// `value` as a value of `type`, or nil when it cannot be converted without loss. Null stays null.
    ///
    /// Besides the widenings of ``AttributeType/widens(to:)``, a value converts to a type that holds it exactly:
    /// a whole double in range to an int, 0 and 1 to a bool, UUID text to a UUID.
    package static func convert(_ value: Value, to type: AttributeType) -> Value? {
        switch (value, type) {
        case (.null, _): return .null
        case (.double(let v), _) where v.isNaN: return nil
        case (.decimal(let v), _) where v.isNaN: return nil
        case (.string, .string), (.int, .int), (.double, .double), (.bool, .bool), (.date, .date), (.data, .data),
            (.uuid, .uuid), (.decimal, .decimal):
            return value
        case (_, .int16), (_, .int32), (_, .float), (_, .decimal), (.decimal, _):
            return convertNumber(value, to: type)
        case (.int(let v), .double): return Double(exactly: v).map(Value.double)
        case (.double(let v), .int): return Int64(exactly: v).map(Value.int)
        case (.int(let v), .bool) where v == 0 || v == 1: return .bool(v == 1)
        case (.bool(let v), .int): return .int(v ? 1 : 0)
        case (.string(let s), .uuid): return UUID(uuidString: s).map(Value.uuid)
        case (.int(let v), .string): return .string(String(v))
        case (.double(let v), .string): return .string(text(double: v))
        case (.bool(let v), .string): return .string(v ? "true" : "false")
        case (.date(let v), .string): return .string(text(dateSince1970: v.timeIntervalSince1970))
        case (.uuid(let v), .string): return .string(v.uuidString)
        default: return nil
        }
    }

    /// The refusal every path gives for an integer with no exact double (beyond 2^53): an inferred widening,
    /// a stage's write, `renameProperty`, a mapping.
    ///
    /// - Parameter version: The version that widens the attribute, when a migration does.
    package static func inexactDouble(
        entity: String, attribute: String, value: Int64, objectID: Int64?, version: Int? = nil, origin: String? = nil
    ) -> MoltError {
        let object = (objectID.map { " of the object with _id \($0)" } ?? "") + (origin.map { " (\($0))" } ?? "")
        let message: String
        if let version {
            message =
                "Attribute '\(entity).\(attribute)' cannot be widened from 'int' to 'double' in version \(version): the value \(value)\(object) has no exact double, and Molt never rounds a value silently. Convert the values in a custom stage to version \(version), or keep the attribute an int."
        } else {
            message =
                "Attribute '\(entity).\(attribute)' holds double values, but the value \(value)\(object) has no exact double, and Molt never rounds a value silently. Write the double you want (rounded as you choose), or keep the attribute an int."
        }
        return MoltError(
            version == nil ? .invalidValue : .migrationNotInferable, message, entity: entity, property: attribute)
    }

    // MARK: - Text forms

    /// The text of a double: the fewest significant digits, 15 to 17, that read back as the same double, with
    /// a decimal point always (`100.0`, `0.30000000000000004`, `1.0e+20`).
    package static func text(double value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value > 0 ? "inf" : "-inf" }
        var text = ""
        for digits in 15...17 {
            text = String(format: "%.\(digits)g", value)
            if Double(text) == value { break }
        }
        if !text.contains(".") {
            if let e = text.firstIndex(of: "e") { text.insert(contentsOf: ".0", at: e) } else { text += ".0" }
        }
        return text
    }

    /// The ISO 8601 text of an instant given in seconds since 1970, in UTC, with as many fractional digits as
    /// it takes to read back as the same number (at least three): `2023-11-14T22:13:20.500Z`,
    /// `2023-11-14T22:13:20.123456789Z`.
    package static func text(dateSince1970 secondsSince1970: Double) -> String {
        guard secondsSince1970.isFinite, abs(secondsSince1970) < 1e15 else { return text(double: secondsSince1970) }
        let whole = secondsSince1970.rounded(.down)
        let fraction = secondsSince1970 - whole  // exact: both have the same binary exponent range
        let (days, secondOfDay) = Int64(whole).quotientAndRemainder(dividingBy: 86_400)
        let (day, second) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let (year, month, dayOfMonth) = civil(fromDays: day)
        let digits = fractionDigits(fraction)
        return String(
            format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%@Z", year, month, dayOfMonth, second / 3600,
            second / 60 % 60, second % 60, digits)
    }

    /// Reads the text of ``text(dateSince1970:)`` for dates (and ISO 8601 in general) back as seconds since 1970.
    package static func secondsSince1970(fromText text: String) -> Double? {
        let scalars = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= scalars.count else { return nil }
            var result: Int64 = 0
            for i in range {
                guard (48...57).contains(scalars[i]) else { return nil }
                result = result * 10 + Int64(scalars[i] - 48)
            }
            return result
        }
        guard scalars.count >= 20, scalars[4] == 45, scalars[7] == 45, scalars[10] == 84, scalars[13] == 58,
            scalars[16] == 58, scalars.last == 90,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if scalars.count > 20 {
            guard scalars[19] == 46, number(20..<(scalars.count - 1)) != nil,
                let value = Double("0." + String(decoding: scalars[20..<(scalars.count - 1)], as: UTF8.self))
            else { return nil }
            fraction = value
        } else if scalars[19] != 90 {
            return nil
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
    }

    /// The digits after the decimal point of `fraction` (in [0, 1)): at least three, and as many as it takes
    /// for `0.<digits>` to read back as `fraction` exactly.
    private static func fractionDigits(_ fraction: Double) -> String {
        if fraction == 0 { return "000" }
        for count in 3...40 {
            let text = String(format: "%.\(count)f", fraction)
            if Double(text) == fraction { return String(text.dropFirst(2)) }
        }
        return String(String(format: "%.340f", fraction).dropFirst(2))
    }

    /// Year, month and day of the day `days` after 1970-01-01 (Howard Hinnant's algorithm).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
