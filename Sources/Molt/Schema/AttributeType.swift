/// The type of an attribute's values.
public enum AttributeType: String, Codable, Sendable, CaseIterable {
    case string, int, double, bool, date, data, uuid

    /// Whether every value of `self` converts to `other` without loss, so that the change can be inferred.
    ///
    /// The safe conversions are `int → double`, `bool → int`, and any scalar to `string`.
    public func widens(to other: AttributeType) -> Bool {
        if self == other { return true }
        switch (self, other) {
        case (.int, .double), (.bool, .int): return true
        case (.int, .string), (.double, .string), (.bool, .string), (.date, .string), (.uuid, .string): return true
        default: return false
        }
    }

    /// The SQLite column type used to store the attribute.
    var sqlType: String {
        switch self {
        case .string, .uuid: return "TEXT"
        case .int, .bool: return "INTEGER"
        case .double, .date: return "REAL"
        case .data: return "BLOB"
        }
    }
}
