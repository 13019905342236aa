extension Schema {
    /// The schema as its tables are: each hierarchy (see ``Entity/parent``) flattened into one entity named after
    /// its root, with the entity column (``StoreLayout/entityColumn``, whose default is the root's name) first,
    /// then the members of the root and of every descendant, and relationships that point to roots. Entities
    /// without a parent or sub-entities are as declared.
    ///
    /// A member is named after its column (``storedName(of:declaredBy:)``): its own name, or for a property that
    /// a sibling before it (by name) already declares, `Entity.property`. Names are resolved against this
    /// version alone; a step between two versions maps the columns (``MigrationStep/storageDiff``).
    ///
    /// DDL, expected shapes and inferred migrations work on this: a hierarchy's table is created, checked and
    /// altered as the table of one entity, and a sub-entity added is columns added to it.
    package var storageSchema: Schema {
        guard entities.contains(where: { $0.parent != nil }) else { return self }
        var copy = self
        copy.entities = entities.compactMap { entity -> Entity? in
            guard entity.parent == nil else { return nil }
            let members = [entity] + subEntities(of: entity.name, recursive: true)
            let names = storedNames(inHierarchyOf: entity)
            var flat = Entity(
                entity.name, primaryKey: nil, originalName: entity.originalName,
                attributes: members.count == 1
                    ? [] : [Attribute(StoreLayout.entityColumn, .string, default: .string(entity.name))])
            for member in members {
                let stored = names[member.name] ?? [:]
                flat.attributes += member.attributes.map { attribute in
                    var column = attribute
                    column.name = stored[attribute.name] ?? attribute.name
                    if member.parent != nil { column.isOptional = true }
                    return column
                }
                flat.relationships += member.relationships.map { relationship in
                    var column = relationship
                    column.name = stored[relationship.name] ?? relationship.name
                    column.destination = rootEntity(of: relationship.destination)?.name ?? relationship.destination
                    column.inverse = relationship.inverse.map {
                        storedName(of: $0, in: relationship.destination) ?? $0
                    }
                    return column
                }
                let chain = [member] + ancestors(of: member.name)
                for index in member.storedIndexes {
                    let columns = Index(
                        index.attributes.map { name in
                            chain.lazy.compactMap { names[$0.name]?[name] }.first ?? name
                        }, unique: index.isUnique)
                    if !flat.indexes.contains(columns) { flat.indexes.append(columns) }
                }
            }
            return flat
        }
        return copy
    }
}
