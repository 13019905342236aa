/// Aggregates over a model type's objects, by key path, computed by the engine in one statement (the dynamic
/// forms are ``Objects/sum(_:of:where:)`` and its neighbours).
///
/// ```swift
/// let pages: Int = try objects.sum(\Book.pages)
/// let newest: Date? = try objects.max(\Book.published, where: \.inPrint == true)
/// let perShelf: [String: Int] = try objects.counts(groupedBy: \Book.shelfName)
/// ```
extension Objects {
    /// The sum of an integer or double property over the matching models (0 when none match).
    ///
    /// - Throws: ``MoltError`` when a sum of integers does not fit 64 bits, or does not fit `V`.
    public func sum<M: PersistentModel, V: PersistentValue & AdditiveArithmetic>(
        _ keyPath: KeyPath<M, V>, where predicate: ModelPredicate<M>? = nil
    ) throws -> V {
        let name = try typedAttribute(keyPath)
        return try converted(try sum(name, of: M.entity.name, where: try predicate?.predicate()), M.self, name)
    }

    /// The smallest value of a property among the matching models, nil when there is none.
    public func min<M: PersistentModel, V: PersistentValue & Comparable>(
        _ keyPath: KeyPath<M, V>, where predicate: ModelPredicate<M>? = nil
    ) throws -> V? {
        let name = try typedAttribute(keyPath)
        return try convertedOrNil(try min(name, of: M.entity.name, where: try predicate?.predicate()), M.self, name)
    }

    /// The smallest value of an optional property among the matching models that have one.
    public func min<M: PersistentModel, V: PersistentValue & Comparable>(
        _ keyPath: KeyPath<M, V?>, where predicate: ModelPredicate<M>? = nil
    ) throws -> V? {
        let name = try typedAttribute(keyPath)
        return try convertedOrNil(try min(name, of: M.entity.name, where: try predicate?.predicate()), M.self, name)
    }

    /// The largest value of a property among the matching models, nil when there is none.
    public func max<M: PersistentModel, V: PersistentValue & Comparable>(
        _ keyPath: KeyPath<M, V>, where predicate: ModelPredicate<M>? = nil
    ) throws -> V? {
        let name = try typedAttribute(keyPath)
        return try convertedOrNil(try max(name, of: M.entity.name, where: try predicate?.predicate()), M.self, name)
    }

    /// The largest value of an optional property among the matching models that have one.
    public func max<M: PersistentModel, V: PersistentValue & Comparable>(
        _ keyPath: KeyPath<M, V?>, where predicate: ModelPredicate<M>? = nil
    ) throws -> V? {
        let name = try typedAttribute(keyPath)
        return try convertedOrNil(try max(name, of: M.entity.name, where: try predicate?.predicate()), M.self, name)
    }

    /// The average of a numeric property over the matching models, nil when none match.
    public func average<M: PersistentModel, V: PersistentValue & Numeric>(
        _ keyPath: KeyPath<M, V>, where predicate: ModelPredicate<M>? = nil
    ) throws -> Double? {
        try average(try typedAttribute(keyPath), of: M.entity.name, where: try predicate?.predicate())
    }

    /// The distinct values of a property among the matching models, sorted.
    public func distinctValues<M: PersistentModel, V: PersistentValue>(
        _ keyPath: KeyPath<M, V>, where predicate: ModelPredicate<M>? = nil
    ) throws -> [V] {
        let name = try typedAttribute(keyPath)
        return try distinctValues(name, of: M.entity.name, where: try predicate?.predicate()).map {
            try converted($0, M.self, name)
        }
    }

    /// How many matching models hold each value of a property.
    ///
    /// ```swift
    /// let perKind = try objects.counts(groupedBy: \Item.kind)   // ["book": 12, "disc": 3]
    /// ```
    public func counts<M: PersistentModel, V: PersistentValue & Hashable>(
        groupedBy keyPath: KeyPath<M, V>, where predicate: ModelPredicate<M>? = nil
    ) throws -> [V: Int] {
        let name = try typedAttribute(keyPath)
        var result: [V: Int] = [:]
        for (value, count) in try counts(groupedBy: name, of: M.entity.name, where: try predicate?.predicate()) {
            result[try converted(value, M.self, name)] = count
        }
        return result
    }

    /// The stored attribute a key path names, checked against the store's entity.
    private func typedAttribute<M: PersistentModel>(_ keyPath: PartialKeyPath<M>) throws -> String {
        _ = try typedEntity(M.self)
        return try M.storedName(keyPath)
    }

    private func converted<M: PersistentModel, V: ValueConvertible>(
        _ value: Value, _: M.Type, _ name: String
    ) throws
        -> V
    {
        guard let converted = V(moltValue: value) else {
            throw MoltError(
                .invalidValue,
                "The aggregate \(value) of '\(M.entity.name).\(name)' does not fit \(V.self); compute it over a wider type (Int64, Double), or with the dynamic API.",
                entity: M.entity.name, property: name)
        }
        return converted
    }

    private func convertedOrNil<M: PersistentModel, V: ValueConvertible>(
        _ value: Value, _ model: M.Type, _ name: String
    )
        throws -> V?
    {
        if case .null = value { return nil }
        return try converted(value, model, name)
    }
}
