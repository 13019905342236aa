/// A value to set on every model an update matches, by key path (`Objects.updateAll(_:where:set:)`).
///
/// ```swift
/// try objects.updateAll(Note.self, where: \.pinned == true, set: [.set(\.count, to: 0), .set(\.subtitle, to: nil)])
/// ```
public struct ModelAssignment<Model: PersistentModel>: Sendable {
    let compiled: Result<(String, Value), MoltError>

    /// Sets the stored property at `keyPath` to `value`.
    public static func set<V: PersistentValue>(_ keyPath: KeyPath<Model, V>, to value: V) -> ModelAssignment {
        ModelAssignment(compiled: Result { () throws(MoltError) in (try Model.storedName(keyPath), value.moltValue) })
    }
}

extension Objects {
    /// Sets the same values on every model of a type that matches a predicate (all of them without one), in one
    /// statement; the dynamic form takes an entity name and a dictionary of values.
    ///
    /// ```swift
    /// let archived = try objects.updateAll(Note.self, where: \.created < cutoff, set: [.set(\.archived, to: true)])
    /// ```
    ///
    /// - Returns: How many models were updated.
    /// - Throws: ``MoltError`` when a key path names no stored property, a value does not fit its attribute
    ///   (nothing is written), or the update would give two objects the same value of a unique attribute.
    @discardableResult
    public func updateAll<M: PersistentModel>(
        _ type: M.Type, where predicate: ModelPredicate<M>? = nil, set assignments: [ModelAssignment<M>]
    ) throws -> Int {
        _ = try typedEntity(M.self)
        var values: [String: Value] = [:]
        for assignment in assignments {
            let (name, value) = try assignment.compiled.get()
            values[name] = value
        }
        return try updateAll(M.entity.name, where: try predicate?.predicate(), set: values)
    }
}
