extension Schema {
    /// The schema as its tables are: each hierarchy (see ``Entity/parent``) flattened into one entity named after
    /// its root, with the entity column (``StoreLayout/entityColumn``, whose default is the root's name) first,
    /// then the members of the root and of every descendant, and relationships that point to roots. Entities
    /// without a parent or sub-entities are as declared.
    ///
    /// DDL, expected shapes and inferred migrations work on this: a hierarchy's table is created, checked and
    /// altered as the table of one entity, and a sub-entity added is columns added to it.
    package var storageSchema: Schema {
        guard entities.contains(where: { $0.parent != nil }) else { return self }
        var copy = self
        copy.entities = entities.compactMap { entity -> Entity? in
            guard entity.parent == nil else { return nil }
            let members = [entity] + subEntities(of: entity.name, recursive: true)
            var flat = Entity(
                entity.name, primaryKey: nil, originalName: entity.originalName,
                attributes: members.count == 1
                    ? [] : [Attribute(StoreLayout.entityColumn, .string, default: .string(entity.name))])
            for member in members {
                flat.attributes += member.attributes.map { attribute in
                    var stored = attribute
                    if member.parent != nil { stored.isOptional = true }
                    return stored
                }
                flat.relationships += member.relationships.map { relationship in
                    var stored = relationship
                    stored.destination = rootEntity(of: relationship.destination)?.name ?? relationship.destination
                    return stored
                }
                flat.indexes += member.storedIndexes.filter { !flat.indexes.contains($0) }
            }
            return flat
        }
        return copy
    }
}
