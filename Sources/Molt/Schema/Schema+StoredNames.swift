extension Schema {
    /// The name of the column (or of the to-many relationship, whose join table is `Root_name`) that holds the
    /// property `property` of the objects of `entity`, declared by it or inherited: the property's own name, or
    /// `Declaring.property` when an entity before the declaring one in its hierarchy declares a property of that
    /// name too, as two siblings may. Nil when neither the entity nor a parent declares it.
    ///
    /// "Before" is by name, not by declaration: the root first, then each entity's sub-entities in the order of
    /// their names, depth first, and each entity's properties in the order of their names. A store's layout must
    /// not change when the code lists the same entities in another order (the schema's ``contentHash``, which
    /// says whether a store is at a schema, ignores that order too).
    ///
    /// ```swift
    /// // Message ← TextMessage (delivered), Message ← ImageMessage (delivered)
    /// schema.storedName(of: "delivered", in: "ImageMessage")  // "delivered"
    /// schema.storedName(of: "delivered", in: "TextMessage")   // "TextMessage.delivered"
    /// ```
    package func storedName(of property: String, in entityName: String) -> String? {
        guard let declared = entity(named: entityName) else { return nil }
        let chain = [declared] + ancestors(of: entityName)
        guard
            let declaring = chain.first(where: {
                $0.attribute(named: property) != nil || $0.relationship(named: property) != nil
            })
        else { return nil }
        guard isInHierarchy(entityName), let root = chain.last else { return property }
        return storedNames(inHierarchyOf: root)[declaring.name]?[property] ?? property
    }

    /// For each entity of the hierarchy under `root`, its own properties' stored names.
    func storedNames(inHierarchyOf root: Entity) -> [String: [String: String]] {
        var taken: Set<String> = []
        var result: [String: [String: String]] = [:]
        var pending = [root]
        while let member = pending.popLast() {
            var names: [String: String] = [:]
            for name in (member.attributes.map(\.name) + member.relationships.map(\.name)).sorted() {
                let stored = taken.contains(name.lowercased()) ? "\(member.name).\(name)" : name
                taken.insert(name.lowercased())
                names[name] = stored
            }
            result[member.name] = names
            // Depth first, the sub-entities in name order: the last pushed is taken first.
            pending += (subEntityIndex[member.name] ?? []).sorted(by: >).compactMap { entity(named: $0) }
        }
        return result
    }
}
