import Foundation
import Molt

/// The data file of `molt export` and `molt import`.
///
/// ```json
/// {
///   "format" : "molt-data",
///   "formatVersion" : 1,
///   "identifierMarks" : { "UserMemo" : 7 },
///   "schemaVersion" : 6,
///   "entities" : {
///     "UserMemo" : [ { "_id" : 1, "memoDate" : 1700000000.25, "objectID" : "…", "title" : "Milk" } ]
///   }
/// }
/// ```
///
/// Every attribute type round-trips exactly:
/// - `string`, `bool`: JSON strings and booleans; `int`: JSON integers (all 64 bits).
/// - `double`: JSON numbers in the shortest form that reads back as the same Double; the infinities as the
///   strings `"Infinity"` and `"-Infinity"` (SQLite stores no NaN).
/// - `date`: the exact Double number of seconds since 1970-01-01T00:00:00Z (what the store holds), not ISO 8601,
///   which would round to milliseconds.
/// - `data`: Base64 text; `uuid`: the UUID's uppercase text.
/// - `null`: JSON null; a missing key reads as null (or the attribute's default on import).
/// - to-one relationships: the `_id` of the destination or null; to-many: an array of `_id`s, in order.
///
/// `identifierMarks` (optional) gives, per entity, the largest `_id` the store ever handed out, deleted objects
/// included: an import makes the new store hand out none of them again (the ObjectIdentity article).
package struct DataFile: Codable {
    package static let formatName = "molt-data"
    package static let currentFormatVersion = 1

    package var format: String
    package var formatVersion: Int
    package var schemaVersion: Int?
    package var identifierMarks: [String: Int64]?
    package var entities: [String: [[String: JSONValue]]]

    /// A value of an attribute as JSON.
    package static func json(_ value: Value) -> JSONValue {
        switch value {
        case .null: return .null
        case .string(let v): return .string(v)
        case .int(let v): return .int(v)
        case .double(let v): return v.isInfinite ? .string(v < 0 ? "-Infinity" : "Infinity") : .double(v)
        case .bool(let v): return .bool(v)
        case .date(let v): return .double(v.timeIntervalSince1970)
        case .data(let v): return .string(v.base64EncodedString())
        case .uuid(let v): return .string(v.uuidString)
        // As text: a JSON number would pass through a reader's double and lose digits.
        case .decimal(let v): return .string(DecimalText.text(v))
        }
    }

    /// A JSON value read as a value of `attribute`, or nil when it does not fit the attribute's type.
    package static func value(_ json: JSONValue, for type: AttributeType) -> Value? {
        switch (json, type) {
        case (.null, _): return .null
        case (.string(let v), .string): return .string(v)
        case (.int(let v), .int): return .int(v)
        // An integer a double cannot hold exactly is refused, never rounded (Molt's one conversion rule).
        case (.int(let v), .double): return Double(exactly: v).map(Value.double)
        case (.double(let v), .double): return .double(v)
        case (.string("Infinity"), .double): return .double(.infinity)
        case (.string("-Infinity"), .double): return .double(-.infinity)
        case (.bool(let v), .bool): return .bool(v)
        case (.int(let v), .date): return Double(exactly: v).map { .date(Date(timeIntervalSince1970: $0)) }
        case (.double(let v), .date): return .date(Date(timeIntervalSince1970: v))
        case (.string(let v), .data): return Data(base64Encoded: v).map(Value.data)
        case (.string(let v), .uuid): return UUID(uuidString: v).map(Value.uuid)
        // The sized types read as their wider kin; the write that follows refuses a value out of range, naming it.
        case (.int(let v), .int16), (.int(let v), .int32): return .int(v)
        case (.int(let v), .float): return Float(exactly: v).map { .double(Double($0)) } ?? .int(v)
        case (.double(let v), .float): return .double(v)
        case (.string("Infinity"), .float): return .double(.infinity)
        case (.string("-Infinity"), .float): return .double(-.infinity)
        case (.string(let v), .decimal): return DecimalText.decimal(fromText: v).map(Value.decimal)
        case (.int(let v), .decimal): return .decimal(Decimal(v))
        default: return nil
        }
    }

    /// How a value reads in a CSV cell: the JSON form's text; null is an empty cell, text is always quoted.
    package static func csvCell(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .bool(let v): return v ? "true" : "false"
        case .int(let v): return String(v)
        case .double(let v): return "\(v)"
        case .string(let v): return "\"" + v.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        case .array(let items): return "\"" + items.map(csvCell).joined(separator: " ") + "\""
        case .object: return ""
        }
    }
}
