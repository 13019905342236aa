/// An object seen by a custom stage: the old version's values (read-only) or the new version's (writable).
///
/// ```swift
/// try migration.enumerateObjects(ofType: "Person") { old, new in
///     let first = old["firstName"].string ?? ""
///     let last = old["lastName"].string ?? ""
///     new["fullName"] = .string("\(first) \(last)")
/// }
/// ```
///
/// Writing an attribute the version does not have, or a value of the wrong type, makes the enumeration throw
/// a ``MoltError`` naming it once the closure returns.
public struct MigrationObject: Sendable {
    /// The object's identifier, the same in the old and the new version.
    public let id: Int64
    let shape: ObjectShape
    var values: [Value]
    var changed: UInt64 = 0
    var manyChanged = false
    var problem: String?

    init(id: Int64, shape: ObjectShape, values: [Value]) {
        self.id = id
        self.shape = shape
        self.values = values
    }

    /// The entity's name in this object's version.
    public var entity: String { shape.entity.name }

    /// The value of an attribute; `.null` when it has none.
    public subscript(_ attribute: String) -> Value {
        get {
            guard let index = shape.index[attribute] else { return .null }
            return values[index]
        }
        set {
            guard let index = shape.index[attribute] else {
                problem = problem ?? "Entity '\(shape.entity.name)' has no attribute '\(attribute)' in version \(shape.version); it has \(shape.entity.attributes.map(\.name).joined(separator: ", "))."
                return
            }
            let attributeInfo = shape.entity.attributes[index]
            guard let checked = newValue.isNull ? Value.null : attributeInfo.coerce(newValue) else {
                problem = problem ?? "Attribute '\(shape.entity.name).\(attribute)' holds \(attributeInfo.type.rawValue) values in version \(shape.version), not \(newValue)."
                return
            }
            values[index] = checked
            if index < 64 { changed |= 1 << UInt64(index) } else { manyChanged = true }
        }
    }

    /// The value of an attribute as a Swift type, or nil when it is null or of another type.
    public subscript<T: ValueConvertible>(_ attribute: String, as type: T.Type) -> T? {
        T(moltValue: self[attribute])
    }

    /// The object as a ``DynamicObject``, for the relationship calls of ``Objects``.
    public var dynamicObject: DynamicObject {
        var dictionary: [String: Value] = [:]
        for (index, attribute) in shape.entity.attributes.enumerated() { dictionary[attribute.name] = values[index] }
        return DynamicObject(entity: shape.entity.name, id: id, values: dictionary)
    }

    func isChanged(_ index: Int) -> Bool { index < 64 ? changed & (1 << UInt64(index)) != 0 : manyChanged }
}

/// The attributes of one entity at one version, indexed by name, shared by every object of an enumeration.
final class ObjectShape: Sendable {
    let entity: Entity
    let version: Int
    let index: [String: Int]

    /// - Parameter aliases: Other names that read an attribute: new name → old name, from
    ///   ``Migration/renameProperty(onType:from:to:)``, so that Realm code reading `old["title"]` after
    ///   renaming `memoTitle` to `title` works as written.
    init(entity: Entity, version: Int, aliases: [String: String] = [:]) {
        self.entity = entity
        self.version = version
        var index: [String: Int] = [:]
        for (i, attribute) in entity.attributes.enumerated() { index[attribute.name] = i }
        for (alias, original) in aliases where index[alias] == nil {
            if let i = index[original] { index[alias] = i }
        }
        self.index = index
    }
}
