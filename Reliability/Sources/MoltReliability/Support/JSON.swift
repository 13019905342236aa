import Foundation

/// A JSON value, for writing the campaign's inputs (snapshots, mappings, data files, their damaged variants) and
/// reading molt's outputs (`info --json`, `export`).
///
/// Integers and doubles stay apart, so that 64-bit integers round-trip. Two cases exist only to write inputs no
/// encoder would: ``number(_:)``, a number's literal text (`9223372036854775808`, `1e400`), and ``raw(_:)``, any
/// text at all (deep nesting, a cut-off document).
///
/// ```swift
/// let mapping: JSON = ["mappings": [["destination": "Pet", "attributes": ["label": "name"]]]]
/// try mapping.text().write(to: url, atomically: true, encoding: .utf8)
/// ```
indirect enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])
    case number(String)
    case raw(String)

    // MARK: Access

    subscript(key: String) -> JSON? {
        get {
            if case .object(let fields) = self { return fields[key] }
            return nil
        }
        set {
            if case .object(var fields) = self {
                fields[key] = newValue
                self = .object(fields)
            }
        }
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var intValue: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9.2e18: return Int64(value)
        default: return nil
        }
    }

    var arrayValue: [JSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var objectValue: [String: JSON]? {
        if case .object(let fields) = self { return fields }
        return nil
    }

    /// The value as a Double when it is a number.
    var numberValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// Equal as data: numbers by value (molt writes the double 5.0 as `5`), arrays in order, objects by key.
    func sameData(as other: JSON) -> Bool {
        switch (self, other) {
        case (.int(let a), .int(let b)): return a == b
        case (.int, .double), (.double, .int), (.double, .double): return numberValue == other.numberValue
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.sameData(as: $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { value.sameData(as: $0) } ?? false }
        default: return self == other
        }
    }

    // MARK: Writing

    /// The value as JSON text: compact, keys sorted.
    func text() -> String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The value as UTF-8 JSON.
    func data() -> Data { Data(text().utf8) }

    func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value): output += JSON.literal(value)
        case .string(let text): JSON.quote(text, into: &output)
        case .number(let literal), .raw(let literal): output += literal
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(to: &output)
            }
            output += "]"
        case .object(let fields):
            output += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                JSON.quote(key, into: &output)
                output += ":"
                fields[key]!.write(to: &output)
            }
            output += "}"
        }
    }

    /// A finite double as JSON: Swift's shortest round-tripping form.
    static func literal(_ value: Double) -> String {
        precondition(value.isFinite, "JSON has no \(value)")
        return "\(value)"
    }

    /// Appends `text` as a JSON string literal.
    static func quote(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int64) { self = .int(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: JSON...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, JSON)...) { self = .object(Dictionary(elements) { $1 }) }
    init(nilLiteral: ()) { self = .null }
    init(floatLiteral value: Double) { self = .double(value) }
}
