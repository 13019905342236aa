extension Schema {
    /// Checks the inheritance of the schema's entities: every parent exists, no entity inherits from itself,
    /// no entity declares a property its parents declare (siblings may share a name, each with its column),
    /// at most one entity of a chain declares a primary key, and a hierarchy's table has few enough columns.
    func validateHierarchies() throws {
        for entity in entities {
            guard let parent = entity.parent else { continue }
            guard self.entity(named: parent) != nil else {
                throw invalid(
                    "entity '\(entity.name)' inherits from '\(parent)', which is not in the schema; add it, or remove `parent: \"\(parent)\"`.",
                    entity.name)
            }
            if parent == entity.name || ancestors(of: parent).contains(where: { $0.name == entity.name }) {
                throw invalid(
                    "entity '\(entity.name)' inherits from itself through \(([entity.name] + ancestors(of: entity.name).map(\.name) + [entity.name]).joined(separator: " → ")); an entity cannot be its own ancestor. Remove one of the parents.",
                    entity.name)
            }
            let keyed = [entity] + ancestors(of: entity.name)
            let keys = keyed.filter { $0.primaryKey != nil }
            if keys.count > 1 {
                throw invalid(
                    "entities '\(keys[0].name)' and '\(keys[1].name)' of one hierarchy both declare a primary key; a sub-entity inherits its parent's. Declare it once.",
                    entity.name)
            }
        }
        for root in entities where root.parent == nil && subEntityIndex[root.name] != nil {
            try validateHierarchyMembers(root: root)
        }
    }

    /// No entity of the hierarchy under `root` declares a property that a parent of it declares (ignoring case,
    /// as the engines do): an object has one value per name. Siblings may each declare one, and each has its
    /// column (``storedName(of:in:)``). The hierarchy fits in one table.
    private func validateHierarchyMembers(root: Entity) throws {
        var columns = 2  // _id and _entity
        for entity in [root] + subEntities(of: root.name, recursive: true) {
            columns += entity.attributes.count + entity.relationships.count(where: { $0.kind == .toOne })
            let ancestors = ancestors(of: entity.name)
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) {
                let lowered = name.lowercased()
                guard
                    let other = ancestors.first(where: { ancestor in
                        (ancestor.attributes.map(\.name) + ancestor.relationships.map(\.name)).contains {
                            $0.lowercased() == lowered
                        }
                    })
                else { continue }
                throw invalid(
                    "entity '\(entity.name)' declares a property '\(name)', which it inherits from '\(other.name)'; an object has one value per property. Remove it from '\(entity.name)', or rename it.",
                    entity.name, name)
            }
        }
        guard columns <= Self.maximumColumns else {
            throw invalid(
                "the hierarchy of '\(root.name)' needs \(columns) columns (_id, _entity, and the attributes and to-one relationships of all its entities, which share one table), more than the \(Self.maximumColumns) a table may have (PostgreSQL's limit). Move some attributes to another entity linked by a to-one relationship.",
                root.name)
        }
    }
}
