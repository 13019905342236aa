import Foundation

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
    public internal(set) var id: Int64
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

    /// An object of `shape` with no identifier yet and null values, to be ``refill(id:from:row:slots:)``-ed.
    init(shape: ObjectShape) {
        self.init(id: 0, shape: shape, values: Array(repeating: .null, count: shape.entity.attributes.count))
    }

    /// Makes this object the one of a row of a batch, as a fresh object would be: its values come from the
    /// batch's `slots` (one per attribute, in order), unchanged and without problem. The value array is
    /// overwritten in place when no copy of the object shares it.
    mutating func refill(id: Int64, from batch: BatchReader.Batch, row: Int, slots: [(index: Int, type: AttributeType)])
    {
        self.id = id
        changed = 0
        manyChanged = false
        problem = nil
        values.withUnsafeMutableBufferPointer { values in
            for (i, slot) in slots.enumerated() { values[i] = batch[row, slot.index].reinterpreted(as: slot.type) }
        }
    }

    /// The entity's name in this object's version.
    public var entity: String { shape.entity.name }

    /// The value of an attribute; `.null` when it has none.
    public subscript(_ attribute: String) -> Value {
        get {
            guard let index = shape.position(of: attribute) else { return .null }
            shape.reads?[index] = true
            return values[index]
        }
        set {
            guard let index = shape.position(of: attribute) else {
                problem =
                    problem
                    ?? "Entity '\(shape.entity.name)' has no attribute '\(attribute)' in version \(shape.version); it has \(shape.entity.attributes.map(\.name).joined(separator: ", "))."
                return
            }
            // A value already of the attribute's type is what `coerce` would return, without copying the attribute.
            let checked =
                newValue.isNull || newValue.isStored(as: shape.types[index])
                ? newValue : shape.entity.attributes[index].coerce(newValue)
            guard let checked else {
                let type = shape.entity.attributes[index].type
                // A number a sized type cannot hold is named with the object, as every write path names it.
                let refusal = ValueConversion.numberRefusal(
                    entity: shape.entity.name, attribute: attribute, type: type, value: newValue, objectID: id)
                problem =
                    problem ?? refusal?.message
                    ?? "Attribute '\(shape.entity.name).\(attribute)' holds \(type.rawValue) values in version \(shape.version), not \(newValue)."
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
        if let reads = shape.reads { reads.update(repeating: true, count: shape.entity.attributes.count) }
        var dictionary: [String: Value] = [:]
        for (index, attribute) in shape.entity.attributes.enumerated() { dictionary[attribute.name] = values[index] }
        return DynamicObject(entity: shape.entity.name, id: id, values: dictionary)
    }

    func isChanged(_ index: Int) -> Bool { index < 64 ? changed & (1 << UInt64(index)) != 0 : manyChanged }
}

/// The attributes of one entity at one version, indexed by name, shared by every object of an enumeration.
final class ObjectShape: @unchecked Sendable {
    let entity: Entity
    let version: Int
    let index: [String: Int]
    /// The attributes' names in order, searched before ``index`` when there are few of them: comparing a
    /// handful of short names costs less than hashing one.
    private let names: [String]
    /// The attributes' types in order.
    let types: [AttributeType]
    /// For the old side of a stage: which attributes were read (one flag per attribute, set without locking:
    /// an enumeration runs on one thread), so that the run can tell values a stage carried from values lost.
    let reads: UnsafeMutablePointer<Bool>?

    /// - Parameter aliases: Other names that read an attribute: new name → old name, from
    ///   ``Migration/renameProperty(onType:from:to:)``, so that Realm code reading `old["title"]` after
    ///   renaming `memoTitle` to `title` works as written.
    init(entity: Entity, version: Int, aliases: [String: String] = [:], tracksReads: Bool = false) {
        if tracksReads {
            reads = .allocate(capacity: max(entity.attributes.count, 1))
            reads!.initialize(repeating: false, count: max(entity.attributes.count, 1))
        } else {
            reads = nil
        }
        self.entity = entity
        self.version = version
        var index: [String: Int] = [:]
        for (i, attribute) in entity.attributes.enumerated() { index[attribute.name] = i }
        for (alias, original) in aliases where index[alias] == nil {
            if let i = index[original] { index[alias] = i }
        }
        self.index = index
        self.names = entity.attributes.count <= 16 ? entity.attributes.map(\.name) : []
        self.types = entity.attributes.map(\.type)
    }

    deinit { reads?.deallocate() }

    /// The names of the attributes read so far (old names).
    var readAttributes: [String] {
        guard let reads else { return [] }
        return entity.attributes.indices.filter { reads[$0] }.map { entity.attributes[$0].name }
    }

    /// The position of an attribute's value, by its name or an alias.
    @inline(__always)
    func position(of name: String) -> Int? {
        for i in names.indices where names[i] == name { return i }
        return index[name]
    }
}

extension Value {
    /// Whether the value is of the case that stores `type` as is (a string for `.string`, …), so that
    /// ``Attribute/coerce(_:)`` would return it unchanged.
    @inline(__always)
    func isStored(as type: AttributeType) -> Bool {
        switch (self, type) {
        case (.string, .string), (.int, .int), (.double, .double), (.bool, .bool), (.date, .date), (.data, .data),
            (.uuid, .uuid):
            return true
        case (.int(let v), .int16), (.int(let v), .int32): return type.integerRange!.contains(v)
        case (.double(let v), .float): return Float(exactly: v) != nil
        case (.decimal(let v), .decimal): return !v.isNaN
        default:
            return false
        }
    }
}
