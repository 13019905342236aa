import Foundation
import Molt

/// A Realm value as the Molt value it is adopted as, exactly, or a refusal naming the object.
///
/// - A `Date` is the one Realm Swift hands the app: realm-core keeps seconds and nanoseconds, and Realm Swift
///   reads them as `Date(timeIntervalSince1970: seconds + nanoseconds / 1e9)`, the same expression here, so the
///   adopted date is the app's own to the bit (a `Date` near today holds about a quarter of a microsecond, which
///   is all any Swift app ever read from the file).
/// - A `Decimal128` is the same number as a Foundation `Decimal` (its 34 digits fit the 38 of `Decimal`); a value
///   outside `Decimal`'s exponents (−128…127, after trailing zeros are dropped), NaN or an infinity is refused.
///   As Realm compares them, `1.10` and `1.1` are the same value: the scale is not kept.
/// - An `ObjectId` is its 24 lowercase hexadecimal digits (`ObjectId.stringValue`), which `ObjectId(string:)`
///   reads back.
/// - NaN in a `Float` or a `Double` is refused, as every Molt write refuses it.
enum RealmValues {
    /// `value` of `column` in object `key` of class `name`, as its Molt value.
    static func value(_ value: RealmValue, _ column: RealmColumn, of name: String, key: Int64) throws -> Value {
        func refuse(_ why: String) -> MoltError {
            MoltError(
                .invalidValue,
                "The Realm object \(key) of class '\(name)' holds \(why) in '\(column.name)', which Molt does not store, so the file was not adopted and was left as it was. Change that value with the Realm app first.",
                entity: name, property: column.name)
        }
        switch (value, column.kind) {
        case (.null, _) where column.isNullable: return .null
        case (.int(let integer), .int): return .int(integer)
        case (.bool(let flag), .bool): return .bool(flag)
        case (.string(let text), .string): return .string(text)
        case (.data(let bytes), .binary): return .data(bytes)
        case (.uuid(let uuid), .uuid): return .uuid(uuid)
        case (.objectID(let id), .objectID): return .string(id.description)
        case (.float(let real), .float):
            guard !real.isNaN else { throw refuse("NaN") }
            return .double(Double(real))
        case (.double(let real), .double):
            guard !real.isNaN else { throw refuse("NaN") }
            return .double(real)
        case (.timestamp(let stamp), .timestamp): return .date(date(stamp))
        case (.decimal(let number), .decimal):
            guard let decimal = decimal(number) else { throw refuse("the Decimal128 \(number)") }
            return .decimal(decimal)
        default:
            throw MoltError(
                .corruptStore,
                "The Realm object \(key) of class '\(name)' holds \(value) in '\(column.name)', a \(column.isNullable ? "optional " : "")\(column.kind) column: the file is damaged, so it was not adopted. Restore it from a backup.",
                entity: name, property: column.name)
        }
    }

    /// The `Date` Realm Swift reads for `stamp`.
    static func date(_ stamp: RealmTimestamp) -> Date {
        Date(timeIntervalSince1970: Double(stamp.seconds) + Double(stamp.nanoseconds) / 1_000_000_000)
    }

    /// The `Decimal` equal to `number`, or nil when `Decimal` cannot hold it (NaN, an infinity, an exponent out of
    /// its range).
    static func decimal(_ number: RealmDecimal128) -> Decimal? {
        guard !number.isNaN, !number.isInfinite else { return nil }
        let (exponent, high, low) = number.parts
        var digits = Array(RealmDecimal128.decimalDigits(high: high, low: low))
        var power = exponent
        if digits == ["0"] { return Decimal(0) }
        while digits.count > 1, digits.last == "0" {
            digits.removeLast()
            power += 1
        }
        // A large exponent with room in the 38 digits: write the zeros out.
        while power > Int(Int8.max), digits.count < 38 {
            digits.append("0")
            power -= 1
        }
        let text = "\(number.isNegative ? "-" : "")\(String(digits))E\(power)"
        // Parsed from its exact text, then checked against it: `Decimal` holds no NaN or rounding here.
        guard power >= Int(Int8.min), power <= Int(Int8.max), let decimal = Decimal(string: text), !decimal.isNaN,
            DecimalText.compare(DecimalText.text(decimal), text) == .orderedSame
        else { return nil }
        return decimal
    }
}
