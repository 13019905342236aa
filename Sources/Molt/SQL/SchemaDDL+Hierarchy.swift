extension SchemaDDL {
    /// Maps an entity onto the table that stores its objects: its hierarchy's root (itself without a parent).
    package static func rootTables(_ schema: Schema) -> (String) -> String {
        { schema.rootEntity(of: $0)?.name ?? $0 }
    }

    /// The table of a hierarchy and its indexes: `_id`, the entity column, the root's columns as declared, then
    /// those of every descendant, optional in SQL (a row of another entity has no value there; a required one
    /// is enforced when an object of its entity is written). Each entity's indexes are on the table, named after
    /// the entity that declares them.
    package func hierarchyTable(root: Entity, schema: Schema) -> [SQLSchemaChange] {
        let tables = Self.rootTables(schema)
        var definition = table(for: root, tables: tables)
        definition.columns.insert(Self.entityColumn, at: 1)
        var changes: [SQLSchemaChange] = []
        for entity in [root] + schema.subEntities(of: root.name, recursive: true) {
            if entity.name != root.name {
                definition.columns += table(for: entity, tables: tables).columns.dropFirst().map {
                    var column = $0
                    column.isOptional = true
                    return column
                }
            }
            let indexes = entity.parent == nil ? entity.storedIndexes : entity.indexes
            changes += indexes.map {
                index(table: root.name, $0, named: fitted(Self.indexName(table: entity.name, $0)))
            }
        }
        return [.createTable(definition)] + changes
    }

    /// The column that names the entity of each row of a hierarchy's table.
    package static let entityColumn = SQLColumnDefinition(
        name: StoreLayout.entityColumn, content: .value(.string), isOptional: false)
}
