extension Schema {
    /// The name of the column (or of the to-many relationship, whose join table is `Root_name`) that holds the
    /// property `property` of the objects of `entity`, declared by it or inherited: the property's own name, or
    /// `Declaring.property` when an entity before the declaring one in its hierarchy (the root first, then each
    /// entity's sub-entities in declaration order, depth first) declares a property of that name too, as two
    /// siblings may. Nil when neither the entity nor a parent declares it.
    ///
    /// ```swift
    /// // Message ← TextMessage (delivered), Message ← ImageMessage (delivered)
    /// schema.storedName(of: "delivered", in: "TextMessage")   // "delivered"
    /// schema.storedName(of: "delivered", in: "ImageMessage")  // "ImageMessage.delivered"
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
        return storedNames([root] + subEntities(of: root.name, recursive: true))[declaring.name]?[property]
            ?? property
    }

    /// For each of `members` (a hierarchy in storage order), its own properties' stored names.
    func storedNames(_ members: [Entity]) -> [String: [String: String]] {
        var taken: Set<String> = []
        var result: [String: [String: String]] = [:]
        for member in members {
            var names: [String: String] = [:]
            for name in member.attributes.map(\.name) + member.relationships.map(\.name) {
                let stored = taken.contains(name.lowercased()) ? "\(member.name).\(name)" : name
                taken.insert(name.lowercased())
                names[name] = stored
            }
            result[member.name] = names
        }
        return result
    }
}
