/// Where each entity of a schema lives in the database: its table, the column of each attribute and to-one
/// relationship, and the join table of each to-many relationship.
///
/// A store's own layout names everything after the schema (``standard(_:)``): one table per entity with an
/// `_id` integer primary key, a column per attribute and per to-one relationship, and a join table
/// `Entity_relationship` (`owner`, `target`, and `position` when ordered) per to-many relationship. The entities
/// of a hierarchy (see ``Entity/parent``) share the table of its root, with a column per property of each of them
/// and the ``entityColumn`` naming each row's entity, as Core Data lays out a hierarchy; two siblings that
/// declare the same property name each have a column (see ``Schema/storedName(of:in:)``). During a
/// custom migration stage the new version's objects live in the old version's tables, next to the old data,
/// and the new version's layout points there.
///
/// Names returned by ``table(_:)``, ``column(_:_:)`` and ``joinTable(_:_:)`` are quoted for SQL.
package struct StoreLayout: Sendable {
    /// The integer identifier column every entity table has.
    package static let idColumn = "_id"
    /// The column of a hierarchy's table that names the entity of each row.
    package static let entityColumn = Entity.entityColumnName
    /// The join table column of the object that owns a to-many relationship.
    package static let ownerColumn = "owner"
    /// The join table column of the object it points to.
    package static let targetColumn = "target"
    /// The join table column that orders an ordered relationship.
    package static let positionColumn = "position"

    /// The join table that stores a to-many relationship.
    package static func joinTableName(entity: String, relationship: String) -> String {
        Entity.joinTableName(entity: entity, relationship: relationship)
    }

    package struct EntityLayout: Sendable {
        package var table: String
        /// Attribute and to-one relationship name → column.
        package var columns: [String: String]
        /// To-many relationship name → join table.
        package var joinTables: [String: String]
        /// Columns that belong to no property of this version but must not be null (old data kept during a
        /// stage): inserts give them these SQL literals.
        package var fillers: [(column: String, literal: String)] = []
        /// For an entity of a hierarchy: the entities whose rows are its objects (itself and its concrete
        /// descendants), told apart by ``StoreLayout/entityColumn``; nil for an entity that has its table alone.
        package var hierarchy: Hierarchy?

        package init(
            table: String, columns: [String: String], joinTables: [String: String],
            fillers: [(column: String, literal: String)] = [], hierarchy: Hierarchy? = nil
        ) {
            self.table = table
            self.columns = columns
            self.joinTables = joinTables
            self.fillers = fillers
            self.hierarchy = hierarchy
        }
    }

    /// Where an entity sits in the hierarchy that shares its table.
    package struct Hierarchy: Sendable {
        /// The entity column values of its objects: itself unless abstract, and its concrete descendants.
        package var entities: [String]
        /// Whether every row of the table is one of its objects (it is the root): no filter needed.
        package var isRoot: Bool
    }

    package var entities: [String: EntityLayout]
    /// The dialect that quotes the names.
    package let dialect: any SQLDialect
    /// The tables of the layout that live among the connection's temporary tables (a stage's snapshots).
    package var temporaryTables: Set<String> = []

    package init(entities: [String: EntityLayout], dialect: any SQLDialect) {
        self.entities = entities
        self.dialect = dialect
    }

    /// A table's name for SQL: quoted, and qualified when it is temporary.
    package func reference(_ table: String) -> String {
        temporaryTables.contains(table) ? dialect.temporaryTable(table) : dialect.quote(table)
    }

    /// The layout of a store at `schema`.
    package static func standard(_ schema: Schema, dialect: any SQLDialect) -> StoreLayout {
        let key = dialect.engine
        if let cached = standardCache.withLock({ $0[key] }), cached.schema === schema.derived { return cached.layout }
        let layout = makeStandard(schema, dialect: dialect)
        standardCache.withLock { $0[key] = (schema.derived, layout) }
        return layout
    }

    /// The last standard layout made per engine, with the schema value it was made for (held, so that its
    /// identity cannot be reused): an app opens its stores with the same schema, and each open needs it.
    private static let standardCache = LockedValue<[DatabaseEngine: (schema: AnyObject, layout: StoreLayout)]>([:])

    private static func makeStandard(_ schema: Schema, dialect: any SQLDialect) -> StoreLayout {
        var entities: [String: EntityLayout] = [:]
        for entity in schema.entities {
            var columns: [String: String] = [:]
            var joinTables: [String: String] = [:]
            let chain = entity.parent == nil ? [entity] : [entity] + schema.ancestors(of: entity.name)
            // A hierarchy's to-many relationships are stored as those of its root's table: `Root_relationship`,
            // or `Root_Entity.relationship` for a name an earlier sibling declares too.
            let owner = chain.last!.name
            for declaring in chain {
                let stored = { (name: String) in schema.storedName(of: name, in: declaring.name) ?? name }
                for attribute in declaring.attributes { columns[attribute.name] = stored(attribute.name) }
                for relationship in declaring.relationships {
                    switch relationship.kind {
                    case .toOne: columns[relationship.name] = stored(relationship.name)
                    case .toMany:
                        joinTables[relationship.name] = joinTableName(
                            entity: owner, relationship: stored(relationship.name))
                    }
                }
            }
            let hierarchy =
                schema.isInHierarchy(entity.name)
                ? Hierarchy(entities: schema.concreteEntityNames(of: entity.name), isRoot: entity.parent == nil) : nil
            entities[entity.name] = EntityLayout(
                table: chain.last!.name, columns: columns, joinTables: joinTables, hierarchy: hierarchy)
        }
        return StoreLayout(entities: entities, dialect: dialect)
    }

    /// The quoted table of an entity.
    package func table(_ entity: String) -> String { reference(physicalTable(entity)) }

    /// The unquoted name of an entity's table.
    package func physicalTable(_ entity: String) -> String { entities[entity]?.table ?? entity }

    /// The unquoted column of an attribute or to-one relationship.
    package func physicalColumn(_ entity: String, _ property: String) -> String {
        entities[entity]?.columns[property] ?? property
    }

    /// The unquoted join table of a to-many relationship.
    package func physicalJoinTable(_ entity: String, _ relationship: String) -> String {
        entities[entity]?.joinTables[relationship] ?? Self.joinTableName(entity: entity, relationship: relationship)
    }

    /// The quoted column of an attribute or to-one relationship (or `_id`).
    package func column(_ entity: String, _ property: String) -> String {
        dialect.quote(entities[entity]?.columns[property] ?? property)
    }

    /// The quoted join table of a to-many relationship.
    package func joinTable(_ entity: String, _ relationship: String) -> String {
        reference(physicalJoinTable(entity, relationship))
    }

    package func fillers(_ entity: String) -> [(column: String, literal: String)] { entities[entity]?.fillers ?? [] }

    /// Where the entity sits in the hierarchy that shares its table, if it has one.
    package func hierarchy(_ entity: String) -> Hierarchy? { entities[entity]?.hierarchy }

    /// The SQL condition that keeps the rows of an entity's objects in its hierarchy's table (the rows of its
    /// concrete entities), or nil when every row of the table is one.
    package func entityCondition(_ entity: String) -> String? {
        guard let hierarchy = entities[entity]?.hierarchy, !hierarchy.isRoot else { return nil }
        let names = hierarchy.entities.map { dialect.literal(.string($0)) }
        if names.isEmpty { return "0 = 1" }
        if names.count == 1 { return "\(dialect.quote(Self.entityColumn)) = \(names[0])" }
        return "\(dialect.quote(Self.entityColumn)) IN (\(names.joined(separator: ", ")))"
    }

    /// The SQL condition that keeps the rows of the entity's own objects (not its sub-entities') in its hierarchy's
    /// table, or nil for an entity that has its table alone: what counts and scans per entity read.
    package func ownRowsCondition(_ entity: String) -> String? {
        guard entities[entity]?.hierarchy != nil else { return nil }
        return "\(dialect.quote(Self.entityColumn)) = \(dialect.literal(.string(entity)))"
    }

    /// Whether the entity's table and columns are named after the schema (no stage workspace, no filler).
    package func isStandard(_ entity: String) -> Bool {
        guard let layout = entities[entity] else { return true }
        return layout.table == entity && layout.hierarchy == nil && layout.fillers.isEmpty
            && layout.columns.allSatisfy { $0.key == $0.value }
            && !temporaryTables.contains(layout.table)
    }

    /// Every table a schema owns: entity tables (one per hierarchy) and join tables.
    package static func tableNames(_ schema: Schema) -> [String] {
        schema.storageSchema.entities.flatMap { entity in
            [entity.name]
                + entity.relationships.filter { $0.kind == .toMany }.map {
                    joinTableName(entity: entity.name, relationship: $0.name)
                }
        }
    }
}
