/// An object of any entity, read and written by attribute name.
///
/// This is what migrations, the CLI and apps without generated model types work with.
///
/// ```swift
/// var memo = try objects.insert("UserMemo", ["title": "Groceries"])
/// memo["favorite"] = true
/// try objects.update(memo)
/// let title: String? = memo["title", as: String.self]
/// ```
public struct DynamicObject: Hashable, Sendable, CustomStringConvertible {
    /// The entity's name.
    public let entity: String
    /// The identifier Molt gave the object, stable across migrations; nil before it is inserted.
    public internal(set) var id: Int64?
    var values: [String: Value]

    /// Creates an object that is not in a store yet.
    public init(entity: String, values: [String: Value] = [:]) {
        self.entity = entity
        self.id = nil
        self.values = values
    }

    init(entity: String, id: Int64, values: [String: Value]) {
        self.entity = entity
        self.id = id
        self.values = values
    }

    /// The value of an attribute; `.null` when it has none.
    public subscript(_ attribute: String) -> Value {
        get { values[attribute] ?? .null }
        set { values[attribute] = newValue }
    }

    /// The value of an attribute as a Swift type, or nil when it is null or of another type.
    public subscript<T: ValueConvertible>(_ attribute: String, as type: T.Type) -> T? {
        T(moltValue: self[attribute])
    }

    /// The attribute values, by name.
    public var attributeValues: [String: Value] { values }

    public var description: String {
        let fields = values.keys.sorted().map { "\($0): \(values[$0]!)" }.joined(separator: ", ")
        return "\(entity)(\(id.map { "_id: \($0), " } ?? "")\(fields))"
    }
}
