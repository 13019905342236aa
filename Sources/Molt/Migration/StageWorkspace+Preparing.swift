extension StageWorkspace {
    /// Adds version B's columns and tables beside A's data, converting what converts safely, and returns the
    /// workspace.
    ///
    /// The tables are those of the step's storage diff (``MigrationStep/storageDiff``), where a hierarchy is the
    /// one table of its root: each entity of a hierarchy then finds its objects in that table, by the entity
    /// column, and its properties in the columns the storage gives them (``hierarchyLayouts(_:)``).
    static func prepare(_ step: MigrationStep, in db: any SQLConnection) throws -> StageWorkspace {
        let storage = step.storageDiff
        let (from, to, diff) = (storage.source, storage.destination, storage)
        var builder = try Builder(from: from, to: to, diff: diff, db: db)
        try builder.build()
        var finalizer = LightweightMigration(
            start: from, current: to, tables: builder.states, joins: builder.joins,
            droppedTables: builder.droppedTables,
            droppedJoinTables: builder.droppedJoinTables)
        // Validation compares the sides of pairs the step declares inverses, whatever the stage writes.
        finalizer.pairedInverses = diff.newlyPairedInverses().map { ($0.entity, $0.relationship.name) }
        let tables = StoreLayout(entities: builder.layouts, dialect: db.dialect)
        let workspace = StageWorkspace(
            diff: step.diff, storage: storage, tables: tables, newLayout: hierarchyLayouts(step, tables: tables),
            finalizer: finalizer, requiredWithoutDefault: builder.required)
        workspace.attach(db)
        try workspace.fillNewInverses(in: db)
        return workspace
    }

    /// The layout of B's entities in the workspace: `tables`, the layout of its storage entities (a hierarchy
    /// being one, named after its root), with each entity of a hierarchy placed in its root's table, its
    /// properties in the columns and join tables the storage gives them, and its objects told apart by the
    /// entity column.
    private static func hierarchyLayouts(_ step: MigrationStep, tables: StoreLayout) -> StoreLayout {
        let to = step.to
        guard to.entities.contains(where: { $0.parent != nil }) else { return tables }
        var layout = tables
        for entity in to.entities where to.isInHierarchy(entity.name) {
            guard let root = to.rootEntity(of: entity.name), let table = tables.entities[root.name] else { continue }
            var columns: [String: String] = [:]
            var joinTables: [String: String] = [:]
            for declaring in [entity] + to.ancestors(of: entity.name) {
                let stored = { (name: String) in to.storedName(of: name, in: declaring.name) ?? name }
                for attribute in declaring.attributes {
                    columns[attribute.name] = table.columns[stored(attribute.name)] ?? stored(attribute.name)
                }
                for relationship in declaring.relationships {
                    let name = stored(relationship.name)
                    switch relationship.kind {
                    case .toOne: columns[relationship.name] = table.columns[name] ?? name
                    case .toMany:
                        joinTables[relationship.name] =
                            table.joinTables[name] ?? StoreLayout.joinTableName(entity: root.name, relationship: name)
                    }
                }
            }
            layout.entities[entity.name] = StoreLayout.EntityLayout(
                table: table.table, columns: columns, joinTables: joinTables, fillers: table.fillers,
                hierarchy: StoreLayout.Hierarchy(
                    entities: to.concreteEntityNames(of: entity.name), isRoot: entity.parent == nil))
        }
        return layout
    }

    /// Collects the workspace while it creates its tables and columns.
    private struct Builder {
        let from: Schema
        let to: Schema
        let db: any SQLConnection
        let diff: SchemaDiff
        let ddl: SchemaDDL
        var tableNames: FreeNames
        /// B entity → A entity, for entities that existed in A.
        var origins: [String: String] = [:]
        /// B entity → workspace table.
        var tableOf: [String: String] = [:]
        var layouts: [String: StoreLayout.EntityLayout] = [:]
        var states: [String: LightweightMigration.TableState] = [:]
        var joins: [String: LightweightMigration.JoinState] = [:]
        var droppedTables: [String] = []
        var droppedJoinTables: [String] = []
        var required: [String: [(attribute: String, column: String)]] = [:]

        init(from: Schema, to: Schema, diff: SchemaDiff, db: any SQLConnection) throws {
            self.from = from
            self.to = to
            self.db = db
            self.diff = diff
            self.ddl = SchemaDDL(dialect: db.dialect)
            self.tableNames = FreeNames(taken: try db.tableNames())
        }

        private var q: (String) -> String { db.dialect.quote }

        mutating func build() throws {
            for entity in to.entities {
                if let old = diff.originalName(ofEntity: entity.name), from.entity(named: old) != nil {
                    origins[entity.name] = old
                    tableOf[entity.name] = old
                }
            }
            for entity in to.entities where tableOf[entity.name] == nil {
                tableOf[entity.name] = tableNames.claim(entity.name)
            }
            for entity in to.entities {
                if let oldName = origins[entity.name], let old = from.entity(named: oldName) {
                    try carry(entity, from: old)
                } else {
                    try create(entity)
                }
            }
            let kept = Set(origins.values)
            for entity in from.entities where !kept.contains(entity.name) {
                droppedTables.append(entity.name)
                for relationship in entity.relationships where relationship.kind == .toMany {
                    droppedJoinTables.append(
                        StoreLayout.joinTableName(entity: entity.name, relationship: relationship.name))
                }
            }
        }

        private func table(_ entity: String) -> String { tableOf[entity] ?? entity }

        /// A new entity: its own table, exactly as B declares it.
        private mutating func create(_ entity: Entity) throws {
            let table = tableOf[entity.name]!
            let tables = tableOf
            try db.change(.createTable(ddl.table(for: entity, named: table, tables: { tables[$0] ?? $0 })))
            var columns: [String: SQLColumnSource] = [:]
            var layoutColumns: [String: String] = [:]
            let names = entity.attributes.map(\.name) + entity.relationships.filter { $0.kind == .toOne }.map(\.name)
            for name in names {
                columns[name] = .column(name)
                layoutColumns[name] = name
            }
            var joinLayout: [String: String] = [:]
            for relationship in entity.relationships where relationship.kind == .toMany {
                joinLayout[relationship.name] = try createJoin(entity.name, relationship)
            }
            var origin = entity
            origin.name = table
            states[entity.name] = .init(origin: origin, entity: entity, columns: columns)
            layouts[entity.name] = .init(table: table, columns: layoutColumns, joinTables: joinLayout)
        }

        /// A new join table for a to-many relationship of B, registered for the finalizer.
        private mutating func createJoin(_ entity: String, _ relationship: Relationship) throws -> String {
            let joinTable = tableNames.claim(StoreLayout.joinTableName(entity: entity, relationship: relationship.name))
            let tables = tableOf
            for change in ddl.joinTable(entity: entity, relationship, named: joinTable, tables: { tables[$0] ?? $0 }) {
                try db.change(change)
            }
            joins[LightweightMigration.key(entity, relationship.name)] = .init(
                originTable: joinTable, originOrdered: relationship.isOrdered, owner: entity, relationship: relationship
            )
            return joinTable
        }

        /// An entity both versions have: A's table, with B's new columns added beside A's.
        private mutating func carry(_ entity: Entity, from old: Entity) throws {
            var carried = CarriedTable(old: old, table: table(entity.name))
            for attribute in entity.attributes {
                let oldAttribute = diff.originalName(ofProperty: attribute.name, inEntity: entity.name).flatMap {
                    old.attribute(named: $0)
                }
                try carryAttribute(attribute, of: entity, from: oldAttribute, into: &carried)
            }
            var joinLayout: [String: String] = [:]
            for relationship in entity.relationships {
                let oldRelationship = diff.originalName(ofProperty: relationship.name, inEntity: entity.name).flatMap {
                    old.relationship(named: $0)
                }
                let sameDestination =
                    oldRelationship.map { origins[relationship.destination] == $0.destination } ?? false
                switch relationship.kind {
                case .toOne:
                    try carryToOne(relationship, from: sameDestination ? oldRelationship : nil, into: &carried)
                case .toMany:
                    joinLayout[relationship.name] = try carryToMany(
                        relationship, of: entity, from: sameDestination ? oldRelationship : nil, in: old,
                        carried: &carried)
                }
            }
            for relationship in old.relationships
            where relationship.kind == .toMany && !carried.shared.contains(relationship.name) {
                droppedJoinTables.append(StoreLayout.joinTableName(entity: old.name, relationship: relationship.name))
            }
            // New objects must give the old, soon dropped, required columns some value.
            let fillers = old.attributes.filter { !$0.isOptional && !carried.shared.contains($0.name) }.map {
                (column: $0.name, literal: db.dialect.literal(StageWorkspace.zeroValue(of: $0.type)))
            }
            states[entity.name] = .init(
                origin: carried.physical, entity: entity, columns: carried.sources, needsRebuild: carried.needsRebuild)
            layouts[entity.name] = .init(
                table: carried.physical.name, columns: carried.layoutColumns, joinTables: joinLayout, fillers: fillers)
            if !carried.required.isEmpty { required[entity.name] = carried.required }
        }

        private mutating func carryAttribute(
            _ attribute: Attribute, of entity: Entity, from oldAttribute: Attribute?, into carried: inout CarriedTable
        ) throws {
            let dialect = db.dialect
            // A narrowing into a sized type (int → int16, double → float) shares no column even where the storage
            // is the same: the stage converts each value, and a value that does not fit is refused, named.
            if let oldAttribute, dialect.columnType(oldAttribute.type) == dialect.columnType(attribute.type),
                attribute.type.integerRange == nil && attribute.type != .float
                    || oldAttribute.type.widens(to: attribute.type),
                SQLColumnSource.convert(.column(oldAttribute.name), from: oldAttribute.type, to: attribute.type)
                    .simplified(for: dialect)
                    == .column(oldAttribute.name)
            {
                // Same storage: B reads A's column.
                carried.shared.insert(oldAttribute.name)
                carried.layoutColumns[attribute.name] = oldAttribute.name
                carried.sources[attribute.name] = .column(oldAttribute.name)
                if oldAttribute.isOptional != attribute.isOptional {
                    carried.needsRebuild = true
                    if !attribute.isOptional {
                        if let fallback = attribute.defaultValue {
                            carried.sources[attribute.name] = .coalesce(.column(oldAttribute.name), fallback)
                        } else {
                            carried.required.append((attribute.name, oldAttribute.name))
                        }
                    }
                }
                return
            }
            let column = carried.columnNames.claim(attribute.name)
            let notNull = !attribute.isOptional && attribute.defaultValue != nil
            let definition = SQLColumnDefinition(
                name: column, content: .value(attribute.type), isOptional: !notNull,
                defaultValue: attribute.defaultValue)
            try db.change(.addColumn(definition, to: carried.physical.name))
            if let oldAttribute, oldAttribute.type.widens(to: attribute.type) {
                if oldAttribute.type == .int && attribute.type == .double {
                    try ExactDoubles.check(
                        column: oldAttribute.name, table: carried.physical.name, entity: entity.name,
                        attribute: attribute.name,
                        version: to.version, in: db)
                }
                var source = SQLColumnSource.convert(
                    .column(oldAttribute.name), from: oldAttribute.type, to: attribute.type)
                if let fallback = attribute.defaultValue { source = .coalesce(source, fallback) }
                try db.execute(.update, "UPDATE \(q(carried.physical.name)) SET \(q(column)) = \(source.sql(dialect))")
            }
            carried.physical.attributes.append(Attribute(column, attribute.type, isOptional: !notNull))
            carried.layoutColumns[attribute.name] = column
            carried.sources[attribute.name] = .column(column)
            if !attribute.isOptional && !notNull {
                carried.needsRebuild = true
                carried.required.append((attribute.name, column))
            }
        }

        private mutating func carryToOne(
            _ relationship: Relationship, from oldRelationship: Relationship?, into carried: inout CarriedTable
        ) throws {
            if let oldRelationship, oldRelationship.kind == .toOne {
                carried.shared.insert(oldRelationship.name)
                carried.layoutColumns[relationship.name] = oldRelationship.name
                carried.sources[relationship.name] = .column(oldRelationship.name)
                return
            }
            let column = carried.columnNames.claim(relationship.name)
            let definition = ddl.column(relationship, named: column, destinationTable: table(relationship.destination))
            try db.change(.addColumn(definition, to: carried.physical.name))
            carried.physical.relationships.append(Relationship(column, to: relationship.destination))
            carried.layoutColumns[relationship.name] = column
            carried.sources[relationship.name] = .column(column)
        }

        /// The join table of a to-many relationship of B: A's when A had the same one, a new one otherwise
        /// (seeded from A's to-one column when the relationship became to-many).
        private mutating func carryToMany(
            _ relationship: Relationship, of entity: Entity, from oldRelationship: Relationship?, in old: Entity,
            carried: inout CarriedTable
        ) throws -> String {
            if let oldRelationship, oldRelationship.kind == .toMany {
                let joinTable = StoreLayout.joinTableName(entity: old.name, relationship: oldRelationship.name)
                carried.shared.insert(oldRelationship.name)
                joins[LightweightMigration.key(entity.name, relationship.name)] = .init(
                    originTable: joinTable, originOrdered: oldRelationship.isOrdered, owner: entity.name,
                    relationship: relationship)
                return joinTable
            }
            let joinTable = try createJoin(entity.name, relationship)
            if let oldRelationship, oldRelationship.kind == .toOne {
                let column = q(oldRelationship.name)
                try db.execute(
                    .insert(into: joinTable, explicitID: false),
                    """
                    INSERT INTO \(q(joinTable)) (\(q(StoreLayout.ownerColumn)), \(q(StoreLayout.targetColumn)))
                    SELECT \(q(StoreLayout.idColumn)), \(column) FROM \(q(carried.physical.name)) WHERE \(column) IS NOT NULL
                    """)
            }
            return joinTable
        }
    }

    /// An A table while B's columns are added to it.
    private struct CarriedTable {
        /// What the workspace table holds, as an entity description.
        var physical: Entity
        var columnNames: FreeNames
        var sources: [String: SQLColumnSource] = [:]
        var layoutColumns: [String: String] = [:]
        /// A's properties that B reads in place.
        var shared: Set<String> = []
        var needsRebuild = false
        var required: [(attribute: String, column: String)] = []

        init(old: Entity, table: String) {
            physical = old
            physical.name = table
            physical.relationships = old.relationships.filter { $0.kind == .toOne }
            columnNames = FreeNames(taken: old.attributes.map(\.name) + old.relationships.map(\.name))
        }
    }
}
