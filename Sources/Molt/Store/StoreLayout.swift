/// Where each entity of a schema lives in SQLite: its table, the column of each attribute and to-one
/// relationship, and the join table of each to-many relationship.
///
/// A store's own layout names everything after the schema (``standard(_:)``). During a custom migration stage
/// the new version's objects live in the old version's tables, next to the old data, and the new version's
/// layout points there.
struct StoreLayout: Sendable {
    struct EntityLayout: Sendable {
        var table: String
        /// Attribute and to-one relationship name → column.
        var columns: [String: String]
        /// To-many relationship name → join table.
        var joinTables: [String: String]
        /// Columns that belong to no property of this version but must not be null (old data kept during a
        /// stage): inserts give them these SQL literals.
        var fillers: [(column: String, literal: String)] = []
    }

    var entities: [String: EntityLayout]

    /// The layout of a store at `schema`.
    static func standard(_ schema: Schema) -> StoreLayout {
        var entities: [String: EntityLayout] = [:]
        for entity in schema.entities {
            var columns: [String: String] = [:]
            for attribute in entity.attributes { columns[attribute.name] = attribute.name }
            var joinTables: [String: String] = [:]
            for relationship in entity.relationships {
                switch relationship.kind {
                case .toOne: columns[relationship.name] = relationship.name
                case .toMany: joinTables[relationship.name] = SchemaSQL.joinTableName(entity: entity.name, relationship: relationship.name)
                }
            }
            entities[entity.name] = EntityLayout(table: entity.name, columns: columns, joinTables: joinTables)
        }
        return StoreLayout(entities: entities)
    }

    /// The quoted table of an entity.
    func table(_ entity: String) -> String { SchemaSQL.quote(entities[entity]?.table ?? entity) }

    /// The quoted column of an attribute or to-one relationship (or `_id`).
    func column(_ entity: String, _ property: String) -> String {
        SchemaSQL.quote(entities[entity]?.columns[property] ?? property)
    }

    /// The quoted join table of a to-many relationship.
    func joinTable(_ entity: String, _ relationship: String) -> String {
        SchemaSQL.quote(entities[entity]?.joinTables[relationship] ?? SchemaSQL.joinTableName(entity: entity, relationship: relationship))
    }

    func fillers(_ entity: String) -> [(column: String, literal: String)] { entities[entity]?.fillers ?? [] }
}
