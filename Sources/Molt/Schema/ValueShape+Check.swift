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
        func wrong() -> Mismatch { Mismatch(field: path, problem: "holds \(value.brief), not \(name)") }
        switch (self, value) {
        case (.opaque, _): return nil
        case (.string, .string), (.data, .string), (.bool, .bool): return nil
        case (.int, .int), (.double, .int), (.double, .double), (.decimal, .int), (.decimal, .double),
            (.date, .int), (.date, .double):
            return nil
        case (.uuid, .string(let text)): return UUID(uuidString: text) == nil ? wrong() : nil
        case (.cases(let cases), .string(let text)):
            guard cases.contains(text) else {
                return Mismatch(
                    field: path,
                    problem: "holds \(value.brief), which is not one of its cases (\(cases.joined(separator: ", ")))")
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

extension JSONValue {
    /// The value as a shape check's message shows it: text quoted (its first 40 characters), a composite by its
    /// kind.
    var brief: String {
        switch self {
        case .null, .bool, .int, .double: description
        case .string(let text): "\"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
