import Foundation

extension ValueShape {
    /// A value stored as JSON where it does not have a shape: the field (a path, `origin.country`, `steps[2]`;
    /// empty for the whole value) and what is wrong with it.
    struct Mismatch: Hashable, Sendable {
        var field: String
        var problem: String
    }

    /// Where the JSON `text` does not have this shape, or nil when it does: the first missing field, value of
    /// another type, or raw value that is not a case. Fields the shape does not name are ignored, as
    /// `JSONDecoder` ignores them; a null element of an array or a dictionary is accepted.
    func mismatch(inJSON text: String) -> Mismatch? {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            return Mismatch(field: "", problem: "is not JSON")
        }
        return mismatch(in: value, at: "")
    }

    private func mismatch(in value: JSONValue, at path: String) -> Mismatch? {
        func wrong() -> Mismatch { Mismatch(field: path, problem: "holds \(value), not \(name)") }
        switch (self, value) {
        case (.opaque, _): return nil
        case (.string, .string), (.data, .string), (.bool, .bool): return nil
        case (.int, .integer), (.double, .integer), (.double, .number), (.decimal, .integer), (.decimal, .number),
            (.date, .integer), (.date, .number):
            return nil
        case (.uuid, .string(let text)): return UUID(uuidString: text) == nil ? wrong() : nil
        case (.cases(let cases), .string(let text)):
            guard cases.contains(text) else {
                return Mismatch(
                    field: path,
                    problem: "holds \(value), which is not one of its cases (\(cases.joined(separator: ", ")))")
            }
            return nil
        case (.array(let element), .array(let items)):
            for (index, item) in items.enumerated() where item != .null {
                if let found = element.mismatch(in: item, at: path + "[\(index)]") { return found }
            }
            return nil
        case (.dictionary(let element), .object(let members)):
            for key in members.keys.sorted() where members[key] != .null {
                if let found = element.mismatch(in: members[key]!, at: Self.join(path, key)) { return found }
            }
            return nil
        case (.object(let fields), .object(let members)):
            for field in fields {
                let fieldPath = Self.join(path, field.name)
                guard let member = members[field.name], member != .null else {
                    if field.presence != .required { continue }
                    return Mismatch(field: fieldPath, problem: members[field.name] == nil ? "is missing" : "is null")
                }
                if let found = field.shape.mismatch(in: member, at: fieldPath) { return found }
            }
            return nil
        default: return wrong()
        }
    }

    private static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }
}

/// A JSON value as a shape check reads it.
enum JSONValue: Decodable, Hashable, CustomStringConvertible {
    case null, bool(Bool), integer(Int64), number(Double), string(String)
    case array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let bool = try? c.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? c.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? c.decode(Double.self) {
            self = .number(number)
        } else if let text = try? c.decode(String.self) {
            self = .string(text)
        } else if let items = try? c.decode([JSONValue].self) {
            self = .array(items)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    /// The value as an error message shows it: text quoted, a composite by its kind.
    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let text): "\"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
