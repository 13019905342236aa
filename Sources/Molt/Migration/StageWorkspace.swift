import GRDB

/// The store during a custom stage from version A to version B: A's tables, untouched, plus what B adds beside
/// them (new columns, new tables, new join tables), so that old and new data are visible together.
///
/// Preparing the workspace only adds: an `ALTER TABLE … ADD COLUMN` per new or retyped attribute (values that
/// convert safely are filled in), a `CREATE TABLE` per new entity or relationship. A's objects keep their
/// identifiers and are B's objects of the matching entity. When the stage ends, ``finalizer`` brings the
/// tables to B's exact layout, rebuilding a table at most once, and can absorb the inferred steps that follow.
struct StageWorkspace {
    let from: Schema
    let to: Schema
    /// Where B's objects live during the stage.
    let newLayout: StoreLayout
    /// B's entity → A's entity, for entities that existed in A.
    let origins: [String: String]
    /// The change from the workspace to B, not yet applied.
    private(set) var finalizer: LightweightMigration
    /// Required attributes of B whose workspace column may still hold nulls: entity → (attribute, column).
    let requiredWithoutDefault: [String: [(attribute: String, column: String)]]

    static func prepare(from: Schema, to: Schema, in db: Database) throws -> StageWorkspace {
        let diff = SchemaDiff(from: from, to: to)
        var tableNames = FreeNames(taken: try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        func freeTable(_ preferred: String) -> String { tableNames.claim(preferred) }
        var origins: [String: String] = [:]
        var tableOf: [String: String] = [:]  // B entity → workspace table
        for entity in to.entities {
            if let old = diff.originalName(ofEntity: entity.name), from.entity(named: old) != nil {
                origins[entity.name] = old
                tableOf[entity.name] = old
            }
        }
        for entity in to.entities where tableOf[entity.name] == nil { tableOf[entity.name] = freeTable(entity.name) }
        let tables: (String) -> String = { tableOf[$0] ?? $0 }

        var layouts: [String: StoreLayout.EntityLayout] = [:]
        var states: [String: LightweightMigration.TableState] = [:]
        var joins: [String: LightweightMigration.JoinState] = [:]
        var droppedTables: [String] = []
        var droppedJoinTables: [String] = []
        var required: [String: [(String, String)]] = [:]
        let q = SchemaSQL.quote

        for entity in to.entities {
            let table = tableOf[entity.name]!
            guard let oldName = origins[entity.name], let old = from.entity(named: oldName) else {
                // A new entity: its own table, exactly as B declares it.
                try db.execute(sql: SchemaSQL.createTable(entity, named: table, tables: tables))
                var columns: [String: LightweightMigration.ColumnSource] = [:]
                var layoutColumns: [String: String] = [:]
                for attribute in entity.attributes { columns[attribute.name] = .column(attribute.name); layoutColumns[attribute.name] = attribute.name }
                for relationship in entity.relationships where relationship.kind == .toOne {
                    columns[relationship.name] = .column(relationship.name)
                    layoutColumns[relationship.name] = relationship.name
                }
                var joinLayout: [String: String] = [:]
                for relationship in entity.relationships where relationship.kind == .toMany {
                    let joinTable = freeTable(SchemaSQL.joinTableName(entity: entity.name, relationship: relationship.name))
                    for statement in SchemaSQL.createJoinTable(entity: entity.name, relationship, named: joinTable, tables: tables) {
                        try db.execute(sql: statement)
                    }
                    joinLayout[relationship.name] = joinTable
                    joins[LightweightMigration.key(entity.name, relationship.name)] = .init(
                        originTable: joinTable, originOrdered: relationship.isOrdered, owner: entity.name, relationship: relationship)
                }
                var origin = entity
                origin.name = table
                states[entity.name] = .init(origin: origin, entity: entity, columns: columns)
                layouts[entity.name] = .init(table: table, columns: layoutColumns, joinTables: joinLayout)
                continue
            }

            var columnNames = FreeNames(taken: old.attributes.map(\.name) + old.relationships.map(\.name))
            func freeColumn(_ preferred: String) -> String { columnNames.claim(preferred) }
            var physical = old  // what the workspace table holds, as an entity description
            physical.name = table
            physical.relationships = old.relationships.filter { $0.kind == .toOne }
            var columns: [String: LightweightMigration.ColumnSource] = [:]
            var layoutColumns: [String: String] = [:]
            var shared: Set<String> = []
            var needsRebuild = false
            var requiredHere: [(String, String)] = []

            for attribute in entity.attributes {
                let oldAttribute = diff.originalName(ofProperty: attribute.name, inEntity: entity.name).flatMap { old.attribute(named: $0) }
                if let oldAttribute, oldAttribute.type.sqlType == attribute.type.sqlType,
                    LightweightMigration.convert(.column(oldAttribute.name), from: oldAttribute.type, to: attribute.type) == .column(oldAttribute.name)
                {
                    shared.insert(oldAttribute.name)
                    layoutColumns[attribute.name] = oldAttribute.name
                    if oldAttribute.isOptional != attribute.isOptional {
                        needsRebuild = true
                        if !attribute.isOptional {
                            if let fallback = attribute.defaultValue {
                                columns[attribute.name] = .expression("COALESCE(\(q(oldAttribute.name)), \(SchemaSQL.literal(fallback)))")
                                continue
                            }
                            requiredHere.append((attribute.name, oldAttribute.name))
                        }
                    }
                    columns[attribute.name] = .column(oldAttribute.name)
                    continue
                }
                let column = freeColumn(attribute.name)
                let notNull = !attribute.isOptional && attribute.defaultValue != nil
                var definition = "\(q(column)) \(attribute.type.sqlType)"
                if notNull { definition += " NOT NULL" }
                if let fallback = attribute.defaultValue { definition += " DEFAULT \(SchemaSQL.literal(fallback))" }
                try db.execute(sql: "ALTER TABLE \(q(table)) ADD COLUMN \(definition)")
                if let oldAttribute, oldAttribute.type.widens(to: attribute.type) {
                    var source = LightweightMigration.convert(.column(oldAttribute.name), from: oldAttribute.type, to: attribute.type).sql
                    if let fallback = attribute.defaultValue { source = "COALESCE(\(source), \(SchemaSQL.literal(fallback)))" }
                    try db.execute(sql: "UPDATE \(q(table)) SET \(q(column)) = \(source)")
                }
                physical.attributes.append(Attribute(column, attribute.type, isOptional: !notNull))
                layoutColumns[attribute.name] = column
                columns[attribute.name] = .column(column)
                if !attribute.isOptional && !notNull {
                    needsRebuild = true
                    requiredHere.append((attribute.name, column))
                }
            }
            var joinLayout: [String: String] = [:]
            for relationship in entity.relationships {
                let oldRelationship = diff.originalName(ofProperty: relationship.name, inEntity: entity.name).flatMap { old.relationship(named: $0) }
                let sameDestination = oldRelationship.map { origins[relationship.destination] == $0.destination } ?? false
                switch relationship.kind {
                case .toOne:
                    if let oldRelationship, oldRelationship.kind == .toOne, sameDestination {
                        shared.insert(oldRelationship.name)
                        layoutColumns[relationship.name] = oldRelationship.name
                        columns[relationship.name] = .column(oldRelationship.name)
                    } else {
                        let column = freeColumn(relationship.name)
                        try db.execute(sql: "ALTER TABLE \(q(table)) ADD COLUMN \(SchemaSQL.columnDefinition(relationship, named: column, destinationTable: tables(relationship.destination)))")
                        physical.relationships.append(Relationship(column, to: relationship.destination))
                        layoutColumns[relationship.name] = column
                        columns[relationship.name] = .column(column)
                    }
                case .toMany:
                    if let oldRelationship, oldRelationship.kind == .toMany, sameDestination {
                        let joinTable = SchemaSQL.joinTableName(entity: old.name, relationship: oldRelationship.name)
                        shared.insert(oldRelationship.name)
                        joinLayout[relationship.name] = joinTable
                        joins[LightweightMigration.key(entity.name, relationship.name)] = .init(
                            originTable: joinTable, originOrdered: oldRelationship.isOrdered, owner: entity.name, relationship: relationship)
                    } else {
                        let joinTable = freeTable(SchemaSQL.joinTableName(entity: entity.name, relationship: relationship.name))
                        for statement in SchemaSQL.createJoinTable(entity: entity.name, relationship, named: joinTable, tables: tables) {
                            try db.execute(sql: statement)
                        }
                        if let oldRelationship, oldRelationship.kind == .toOne, sameDestination {
                            let column = q(oldRelationship.name)
                            try db.execute(sql: """
                                INSERT INTO \(q(joinTable)) (\(q(SchemaSQL.ownerColumn)), \(q(SchemaSQL.targetColumn)))
                                SELECT \(q(SchemaSQL.idColumn)), \(column) FROM \(q(table)) WHERE \(column) IS NOT NULL
                                """)
                        }
                        joinLayout[relationship.name] = joinTable
                        joins[LightweightMigration.key(entity.name, relationship.name)] = .init(
                            originTable: joinTable, originOrdered: relationship.isOrdered, owner: entity.name, relationship: relationship)
                    }
                }
            }
            for relationship in old.relationships where relationship.kind == .toMany && !shared.contains(relationship.name) {
                droppedJoinTables.append(SchemaSQL.joinTableName(entity: old.name, relationship: relationship.name))
            }
            // New objects must give the old, soon dropped, required columns some value.
            let fillers = old.attributes.filter { !$0.isOptional && !shared.contains($0.name) }.map {
                (column: $0.name, literal: SchemaSQL.literal(zeroValue(of: $0.type)))
            }
            states[entity.name] = .init(origin: physical, entity: entity, columns: columns, needsRebuild: needsRebuild)
            layouts[entity.name] = .init(table: table, columns: layoutColumns, joinTables: joinLayout, fillers: fillers)
            if !requiredHere.isEmpty { required[entity.name] = requiredHere }
        }
        let kept = Set(origins.values)
        for entity in from.entities where !kept.contains(entity.name) {
            droppedTables.append(entity.name)
            for relationship in entity.relationships where relationship.kind == .toMany {
                droppedJoinTables.append(SchemaSQL.joinTableName(entity: entity.name, relationship: relationship.name))
            }
        }
        return StageWorkspace(
            from: from, to: to, newLayout: StoreLayout(entities: layouts), origins: origins,
            finalizer: LightweightMigration(
                start: from, current: to, tables: states, joins: joins, droppedTables: droppedTables,
                droppedJoinTables: droppedJoinTables),
            requiredWithoutDefault: required)
    }

    /// Names for what the workspace adds beside the old data: the preferred name when it is free (as SQLite
    /// compares names, ignoring case), otherwise `_molt_new_<name>`, numbered if needed.
    struct FreeNames {
        private var taken: Set<String>

        init(taken: [String]) { self.taken = Set(taken.map { $0.lowercased() }) }

        mutating func claim(_ preferred: String) -> String {
            var name = preferred
            var n = 1
            while taken.contains(name.lowercased()) {
                name = "_molt_new_\(preferred)" + (n > 1 ? "_\(n)" : "")
                n += 1
            }
            taken.insert(name.lowercased())
            return name
        }
    }

    static func zeroValue(of type: AttributeType) -> Value {
        switch type {
        case .string: return .string("")
        case .int: return .int(0)
        case .double: return .double(0)
        case .bool: return .bool(false)
        case .date: return .double(0)
        case .data: return .data(.init())
        case .uuid: return .string("00000000-0000-0000-0000-000000000000")
        }
    }
}

import Foundation
