extension Schema {
    /// The entity with this name as its objects are: the attributes, relationships and indexes of its parents
    /// (the root's first) followed by its own, and the primary key of the nearest entity that declares one.
    ///
    /// For an entity without a parent, this is the entity as declared.
    ///
    /// ```swift
    /// let schema = Schema(version: 1) {
    ///     Entity("Car", isAbstract: true) { Attribute("model", .string) }
    ///     Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int) }
    /// }
    /// schema.effectiveEntity(named: "SportCar")?.attributes.map(\.name)  // ["model", "topSpeed"]
    /// ```
    ///
    /// - Parameter name: The entity's name.
    /// - Returns: The entity with its inherited members, or nil when the schema has no such entity.
    public func effectiveEntity(named name: String) -> Entity? {
        guard var result = entity(named: name) else { return nil }
        guard result.parent != nil else { return result }
        for ancestor in ancestors(of: name) {
            result.attributes.insert(contentsOf: ancestor.attributes, at: 0)
            result.relationships.insert(contentsOf: ancestor.relationships, at: 0)
            result.indexes.insert(contentsOf: ancestor.indexes, at: 0)
            if result.primaryKey == nil { result.primaryKey = ancestor.primaryKey }
        }
        return result
    }

    /// The entities that inherit from this one: its direct sub-entities, or with `recursive` all of its
    /// descendants (parents before their sub-entities), in declaration order.
    ///
    /// ```swift
    /// schema.subEntities(of: "Car").map(\.name)  // ["SportCar"]
    /// ```
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - recursive: Whether to include the sub-entities of the sub-entities, and so on.
    public func subEntities(of name: String, recursive: Bool = false) -> [Entity] {
        var result: [Entity] = []
        var pending = subEntityIndex[name] ?? []
        var seen: Set<String> = [name]
        while !pending.isEmpty {
            let next = pending.removeFirst()
            guard seen.insert(next).inserted, let entity = entity(named: next) else { continue }
            result.append(entity)
            if recursive { pending.insert(contentsOf: subEntityIndex[next] ?? [], at: 0) }
        }
        return result
    }

    /// The entity at the top of this one's hierarchy: the entity itself when it has no parent. Every object of
    /// a hierarchy is stored in its root's table.
    ///
    /// ```swift
    /// schema.rootEntity(of: "SportCar")?.name  // "Car"
    /// ```
    public func rootEntity(of name: String) -> Entity? {
        ancestors(of: name).last ?? entity(named: name)
    }

    /// The entity's parent, the parent's parent, and so on, nearest first. It stops at a parent that is not in
    /// the schema, and before an entity seen already (a cycle, which validation refuses).
    func ancestors(of name: String) -> [Entity] {
        var result: [Entity] = []
        var seen: Set<String> = [name]
        var next = entity(named: name)?.parent
        while let parentName = next, seen.insert(parentName).inserted, let parent = entity(named: parentName) {
            result.append(parent)
            next = parent.parent
        }
        return result
    }

    /// Whether the entity has a parent or sub-entities: its objects share a table with those of other entities,
    /// told apart by the entity column.
    package func isInHierarchy(_ name: String) -> Bool {
        entity(named: name)?.parent != nil || subEntityIndex[name] != nil
    }

    /// The entity and all of its descendants that can have objects of their own (not abstract): the values the
    /// entity column holds for the objects a fetch of `name` returns.
    package func concreteEntityNames(of name: String) -> [String] {
        ([entity(named: name)].compactMap { $0 } + subEntities(of: name, recursive: true))
            .filter { !$0.isAbstract }.map(\.name)
    }

    /// Whether `name` is `ancestor` or one of its descendants: an object of `name` may be held by a relationship
    /// to `ancestor`.
    package func entity(_ name: String, inherits ancestor: String) -> Bool {
        name == ancestor || ancestors(of: name).contains { $0.name == ancestor }
    }
}

extension Entity {
    /// The entity without the attributes, relationships, indexes and primary key that `parent` has: what a
    /// sub-entity declares when its description repeats what it inherits (a typed model of a sub-entity).
    package func removingMembers(of parent: Entity) -> Entity {
        var own = self
        own.attributes.removeAll { parent.attribute(named: $0.name) != nil }
        own.relationships.removeAll { parent.relationship(named: $0.name) != nil }
        own.indexes.removeAll { parent.storedIndexes.contains($0) }
        if own.primaryKey == parent.primaryKey { own.primaryKey = nil }
        return own
    }
}
