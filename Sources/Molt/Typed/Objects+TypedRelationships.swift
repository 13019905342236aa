/// Typed relationships: follow and change ``ToOne`` and ``ToMany`` properties, keeping inverses in step.
///
/// ```swift
/// try objects.add(note, to: \.notes, of: folder)
/// let notes = try objects.destinations(\.notes, of: folder)
/// let home = try objects.destination(\.folder, of: note)
/// ```
extension Objects {
    private func relationshipName<M: PersistentModel>(_ keyPath: PartialKeyPath<M>) throws -> String {
        try M.storedName(keyPath)
    }

    private func handle<M: PersistentModel>(_ model: M) throws -> DynamicObject {
        guard let id = model.persistentID else {
            throw MoltError(
                .objectNotFound, "This '\(M.entity.name)' value was never inserted; insert it before linking it.",
                entity: M.entity.name)
        }
        return DynamicObject(entity: M.entity.name, id: id, values: [:])
    }

    /// The destination of a to-one relationship as the model holds it, or nil.
    public func destination<M: PersistentModel, D: PersistentModel>(
        _ keyPath: KeyPath<M, ToOne<D>>, of model: M
    ) throws -> D? {
        guard let id = model[keyPath: keyPath].id else { return nil }
        return try self.model(D.self, id: id)
    }

    /// The destinations of a to-many relationship as the store holds them, in order for an ordered one.
    public func destinations<M: PersistentModel, D: PersistentModel>(
        _ keyPath: KeyPath<M, ToMany<D>>, of model: M
    ) throws -> [D] {
        let entity = try typedEntity(M.self)
        let relationship = try self.relationship(try relationshipName(keyPath), of: entity)
        let ids = try destinationIDs(entity: entity, relationship: relationship, of: try handle(model).id!)
        return try ids.compactMap { try self.model(D.self, id: $0) }
    }

    /// Points a to-one relationship at a model (or at nothing) in the store, keeping its inverse in step.
    ///
    /// The value you hold is not changed: fetch it again, or set its property too.
    public func set<M: PersistentModel, D: PersistentModel>(
        _ keyPath: KeyPath<M, ToOne<D>>, of model: M, to destination: D?
    ) throws {
        try set(try relationshipName(keyPath), of: try handle(model), to: try destination.map(handle))
    }

    /// Replaces the destinations of a to-many relationship, keeping inverses in step.
    public func set<M: PersistentModel, D: PersistentModel>(
        _ keyPath: KeyPath<M, ToMany<D>>, of model: M, to destinations: [D]
    ) throws {
        try set(try relationshipName(keyPath), of: try handle(model), to: try destinations.map(handle))
    }

    /// Adds a model to a to-many relationship (at the end of an ordered one), keeping its inverse in step.
    public func add<M: PersistentModel, D: PersistentModel>(
        _ destination: D, to keyPath: KeyPath<M, ToMany<D>>, of model: M
    ) throws {
        try add(try handle(destination), to: try relationshipName(keyPath), of: try handle(model))
    }

    /// Removes a model from a to-many relationship, keeping its inverse in step.
    public func remove<M: PersistentModel, D: PersistentModel>(
        _ destination: D, from keyPath: KeyPath<M, ToMany<D>>, of model: M
    ) throws {
        try remove(try handle(destination), from: try relationshipName(keyPath), of: try handle(model))
    }
}
