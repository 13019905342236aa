/// A condition on a model's stored properties, written with key paths and compiled to an ``ObjectPredicate``.
///
/// ```swift
/// try objects.fetch(Note.self, where: \.title == "Milk" || (\.count > 3 && .contains(\.title, "Bread")))
/// ```
///
/// The key paths are resolved when the predicate is built, so a predicate is `Sendable` and can be captured by
/// an asynchronous transaction. A key path that is not stored (computed, `@Transient`) makes the fetch throw.
public struct ModelPredicate<Model: PersistentModel>: Sendable {
    /// The dynamic predicate, or the error that building it met.
    let compiled: Result<ObjectPredicate, MoltError>

    /// Wraps a dynamic predicate on the model's entity, for what key paths can't say.
    ///
    /// ```swift
    /// let hasSubtitle: ModelPredicate<Note> = .dynamic(.isNotNull("subtitle"))
    /// ```
    public static func dynamic(_ predicate: ObjectPredicate) -> ModelPredicate {
        ModelPredicate(compiled: .success(predicate))
    }

    /// The dynamic predicate.
    ///
    /// - Throws: ``MoltError`` when a key path is not a stored property.
    public func predicate() throws -> ObjectPredicate { try compiled.get() }

    static func make(_ keyPath: PartialKeyPath<Model>, _ build: (String) -> ObjectPredicate) -> ModelPredicate {
        ModelPredicate(compiled: Result { () throws(MoltError) in try Model.storedName(keyPath) }.map(build))
    }

    static func combine(_ parts: [ModelPredicate], _ build: ([ObjectPredicate]) -> ObjectPredicate) -> ModelPredicate {
        ModelPredicate(
            compiled: Result { () throws(MoltError) in
                try build(parts.map { part throws(MoltError) in try part.compiled.get() })
            })
    }

    /// The string property contains `text` (case-sensitive).
    public static func contains(_ keyPath: KeyPath<Model, String>, _ text: String) -> ModelPredicate {
        make(keyPath) { .contains($0, text) }
    }

    /// The optional string property contains `text` (case-sensitive); null never matches.
    public static func contains(_ keyPath: KeyPath<Model, String?>, _ text: String) -> ModelPredicate {
        make(keyPath) { .contains($0, text) }
    }

    /// The string property starts with `text` (case-sensitive).
    public static func hasPrefix(_ keyPath: KeyPath<Model, String>, _ text: String) -> ModelPredicate {
        make(keyPath) { .hasPrefix($0, text) }
    }

    /// The property equals one of `values`.
    public static func isIn<V: PersistentValue>(_ keyPath: KeyPath<Model, V>, _ values: [V]) -> ModelPredicate {
        make(keyPath) { .in($0, values.map(\.moltValue)) }
    }

    /// The to-one relationship points at `destination` (at nothing for nil).
    public static func linked<D>(_ keyPath: KeyPath<Model, ToOne<D>>, to destination: D?) -> ModelPredicate {
        make(keyPath) { .equal($0, destination?.persistentID.map(Value.int) ?? .null) }
    }

    /// Both conditions hold.
    public static func && (lhs: ModelPredicate, rhs: ModelPredicate) -> ModelPredicate {
        combine([lhs, rhs], ObjectPredicate.and)
    }
    /// At least one condition holds.
    public static func || (lhs: ModelPredicate, rhs: ModelPredicate) -> ModelPredicate {
        combine([lhs, rhs], ObjectPredicate.or)
    }
    /// The condition does not hold.
    public static prefix func ! (operand: ModelPredicate) -> ModelPredicate { combine([operand]) { .not($0[0]) } }
    /// Every condition holds (true for none).
    public static func and(_ parts: [ModelPredicate]) -> ModelPredicate { combine(parts, ObjectPredicate.and) }
    /// At least one condition holds (false for none).
    public static func or(_ parts: [ModelPredicate]) -> ModelPredicate { combine(parts, ObjectPredicate.or) }
}

/// The property equals the value (`\.subtitle == nil` tests for null).
public func == <M: PersistentModel, V: PersistentValue>(lhs: KeyPath<M, V>, rhs: V) -> ModelPredicate<M> {
    .make(lhs) { .equal($0, rhs.moltValue) }
}
/// The property differs from the value (`\.subtitle != nil` tests for non-null).
public func != <M: PersistentModel, V: PersistentValue>(lhs: KeyPath<M, V>, rhs: V) -> ModelPredicate<M> {
    .make(lhs) { .notEqual($0, rhs.moltValue) }
}
/// The property is smaller than the value.
public func < <M: PersistentModel, V: PersistentValue & Comparable>(lhs: KeyPath<M, V>, rhs: V) -> ModelPredicate<M> {
    .make(lhs) { .less($0, rhs.moltValue) }
}
/// The property is smaller than or equal to the value.
public func <= <M: PersistentModel, V: PersistentValue & Comparable>(lhs: KeyPath<M, V>, rhs: V) -> ModelPredicate<M> {
    .make(lhs) { .lessOrEqual($0, rhs.moltValue) }
}
/// The property is larger than the value.
public func > <M: PersistentModel, V: PersistentValue & Comparable>(lhs: KeyPath<M, V>, rhs: V) -> ModelPredicate<M> {
    .make(lhs) { .greater($0, rhs.moltValue) }
}
/// The property is larger than or equal to the value.
public func >= <M: PersistentModel, V: PersistentValue & Comparable>(lhs: KeyPath<M, V>, rhs: V) -> ModelPredicate<M> {
    .make(lhs) { .greaterOrEqual($0, rhs.moltValue) }
}

/// An order for fetched models, by key path.
///
/// ```swift
/// try objects.fetch(Note.self, orderBy: [.descending(\.count), .ascending(\.title)])
/// ```
public struct ModelSort<Model: PersistentModel>: Sendable {
    let compiled: Result<ObjectSort, MoltError>

    /// Smaller values first.
    public static func ascending<V: PersistentValue>(_ keyPath: KeyPath<Model, V>) -> ModelSort {
        ModelSort(compiled: Result { () throws(MoltError) in try Model.storedName(keyPath) }.map { ObjectSort($0) })
    }

    /// Larger values first.
    public static func descending<V: PersistentValue>(_ keyPath: KeyPath<Model, V>) -> ModelSort {
        ModelSort(
            compiled: Result { () throws(MoltError) in try Model.storedName(keyPath) }.map {
                ObjectSort($0, ascending: false)
            })
    }
}
