/// A run of consecutive inferred steps, composed into one set of SQL changes.
///
/// Each step is folded into a per-table state that records, for every column of the newest version, the SQL
/// expression that computes it from the columns the table had when the run started. When the run is applied,
/// each table either receives cheap `ALTER TABLE` statements (adding and renaming a column only change the
/// schema text) or is rebuilt once with a single `INSERT … SELECT`, however many steps touched it.
struct LightweightMigration {
    typealias ColumnSource = SQLColumnSource

    struct TableState {
        /// The entity as it was when the run started, or nil when the run creates it.
        var origin: Entity?
        /// The entity in the newest version folded so far.
        var entity: Entity
        /// For every attribute and to-one relationship of `entity`: where its values come from.
        var columns: [String: ColumnSource]
        /// Set when a change cannot be done with `ALTER TABLE` (a constraint changed).
        var needsRebuild = false
        /// Integer columns of the origin table that the run widens to double: every value must have an exact
        /// double (integers beyond 2^53 do not), or the run is refused rather than rounding a value silently.
        var exactDoubleChecks: [SQLTableChange.ExactDouble] = []
    }

    struct JoinState {
        /// The table's name when the run started, or nil when the run creates it.
        var originTable: String?
        var originOrdered: Bool
        var owner: String
        var relationship: Relationship
        /// For a to-one relationship that became to-many: the origin table's name and the to-one column's source.
        var seed: (table: String, source: ColumnSource)?
    }

    private(set) var start: Schema
    private(set) var current: Schema
    var tables: [String: TableState] = [:]
    var joins: [String: JoinState] = [:]
    var droppedTables: [String] = []
    var droppedJoinTables: [String] = []
    /// Rows of origin tables, counted while counting what a step updates (``count(_:in:)``): an inferred run
    /// adds or removes no row of a table it keeps, so an engine that needs the count for progress need not
    /// scan the table again.
    var rowCounts: [String: Int] = [:]
    /// Widenings from int to double whose every stored value was found exact while counting their tables (under
    /// the lock of the change to come): the change need not look at them again.
    var verifiedExactDoubles: Set<SQLTableChange.ExactDouble> = []
    /// Columns a mapping computes in this run's rebuild rather than in a pass of its own: entity → attribute.
    var mappedColumns: [String: [String: MappedColumn]] = [:]
    /// Sides (entity, relationship; names of ``current``) of the pairs a folded step declared each other's
    /// inverse while both held links (``SchemaDiff/newlyPairedInverses()``): validation compares their sides.
    var pairedInverses: [(entity: String, relationship: String)] = []

    /// A column a mapping computes in the rebuild: its expression and what to check once it is computed.
    struct MappedColumn {
        var expression: String
        /// "the mapping of 'A' into 'B'", for messages.
        var label: String
        /// The version the mapping starts from, for messages.
        var fromVersion: Int
        /// Whether the engine may have kept a value of another type (SQLite's dynamic typing), to check after.
        var checksStorage: Bool
    }

    init(start: Schema) {
        self.start = start
        self.current = start
        for entity in start.entities {
            var columns: [String: ColumnSource] = [:]
            for attribute in entity.attributes { columns[attribute.name] = .column(attribute.name) }
            for relationship in entity.relationships where relationship.kind == .toOne {
                columns[relationship.name] = .column(relationship.name)
            }
            tables[entity.name] = TableState(origin: entity, entity: entity, columns: columns)
            for relationship in entity.relationships where relationship.kind == .toMany {
                joins[Self.key(entity.name, relationship.name)] = JoinState(
                    originTable: StoreLayout.joinTableName(entity: entity.name, relationship: relationship.name),
                    originOrdered: relationship.isOrdered, owner: entity.name, relationship: relationship)
            }
        }
    }

    /// A run that starts from tables laid out otherwise than `current` says: the state a custom stage leaves,
    /// where the new version's data sits in the old version's tables beside the old data.
    init(
        start: Schema, current: Schema, tables: [String: TableState], joins: [String: JoinState],
        droppedTables: [String], droppedJoinTables: [String]
    ) {
        self.start = start
        self.current = current
        self.tables = tables
        self.joins = joins
        self.droppedTables = droppedTables
        self.droppedJoinTables = droppedJoinTables
    }

    static func key(_ entity: String, _ relationship: String) -> String { entity + "." + relationship }

    /// Folds one more inferred step into the run.
    ///
    /// - Throws: ``MoltError/Code/migrationNotInferable`` listing every change that needs a custom stage.
    /// - Parameter diff: The step, from the schema folded so far (``current``) to the next one.
    mutating func fold(_ diff: SchemaDiff) throws {
        if let error = diff.notInferableError { throw error }
        pairedInverses =
            Self.carried(pairedInverses, through: diff)
            + diff.newlyPairedInverses().map { ($0.entity, $0.relationship.name) }
        var newTables: [String: TableState] = [:]
        var newJoins: [String: JoinState] = [:]
        for entity in diff.destination.entities {
            guard let oldName = diff.originalName(ofEntity: entity.name), let state = tables[oldName] else {
                newTables[entity.name] = TableState(origin: nil, entity: entity, columns: [:])
                for relationship in entity.relationships where relationship.kind == .toMany {
                    newJoins[Self.key(entity.name, relationship.name)] = JoinState(
                        originTable: nil, originOrdered: relationship.isOrdered, owner: entity.name,
                        relationship: relationship)
                }
                continue
            }
            var folded = foldAttributes(of: entity, from: state, diff)
            folded.columns.merge(foldRelationships(of: entity, from: state, diff, joins: &newJoins)) { first, _ in first
            }
            folded.entity = entity
            newTables[entity.name] = folded
        }
        let carriedEntities = Set(newTables.values.compactMap { $0.origin?.name })
        for state in tables.values where state.origin != nil && !carriedEntities.contains(state.origin!.name) {
            droppedTables.append(state.origin!.name)
        }
        let carriedJoins = Set(newJoins.values.compactMap(\.originTable))
        for join in joins.values {
            if let table = join.originTable, !carriedJoins.contains(table) { droppedJoinTables.append(table) }
        }
        tables = newTables
        joins = newJoins
        current = diff.destination
    }

    /// The table state with the sources of `entity`'s attributes, composed from the previous state.
    private func foldAttributes(of entity: Entity, from previous: TableState, _ diff: SchemaDiff) -> TableState {
        var state = previous
        state.columns = [:]
        let old = previous.entity
        for attribute in entity.attributes {
            guard let oldName = diff.originalName(ofProperty: attribute.name, inEntity: entity.name),
                let oldAttribute = old.attribute(named: oldName), let source = previous.columns[oldName]
            else {
                state.columns[attribute.name] = .literal(attribute.defaultValue ?? .null)
                continue
            }
            var result = ColumnSource.convert(source, from: oldAttribute.type, to: attribute.type)
            if let check = Self.exactDoubleCheck(
                oldAttribute, attribute, source: source, entity: entity.name, version: diff.destination.version),
                !verifiedExactDoubles.contains(check)
            {
                state.exactDoubleChecks.append(check)
            }
            if oldAttribute.isOptional != attribute.isOptional {
                state.needsRebuild = true
                if !attribute.isOptional, let fallback = attribute.defaultValue { result = .coalesce(result, fallback) }
            }
            state.columns[attribute.name] = result
        }
        return state
    }

    /// The check a widening of `old` to `new` needs: an integer column becoming a double, straight from a column of
    /// the origin table (a value computed otherwise is checked where it is computed).
    static func exactDoubleCheck(
        _ old: Attribute, _ new: Attribute, source: ColumnSource, entity: String, version: Int
    ) -> SQLTableChange.ExactDouble? {
        guard old.type == .int, new.type == .double, case .column(let column) = source else { return nil }
        return SQLTableChange.ExactDouble(column: column, entity: entity, attribute: new.name, version: version)
    }

    /// The sources of `entity`'s to-one columns; its to-many relationships' join tables go into `newJoins`.
    private func foldRelationships(
        of entity: Entity, from state: TableState, _ diff: SchemaDiff, joins newJoins: inout [String: JoinState]
    ) -> [String: ColumnSource] {
        var columns: [String: ColumnSource] = [:]
        let old = state.entity
        for relationship in entity.relationships {
            let oldName = diff.originalName(ofProperty: relationship.name, inEntity: entity.name)
            let oldRelationship = oldName.flatMap { old.relationship(named: $0) }
            let key = Self.key(entity.name, relationship.name)
            switch (relationship.kind, oldRelationship?.kind) {
            case (.toOne, .toOne?):
                columns[relationship.name] = state.columns[oldName!] ?? .literal(.null)
            case (.toOne, _):
                columns[relationship.name] = .literal(.null)
            case (.toMany, .toMany?):
                var join = joins[Self.key(old.name, oldName!)]!
                join.owner = entity.name
                join.relationship = relationship
                newJoins[key] = join
            case (.toMany, .toOne?):
                var join = JoinState(
                    originTable: nil, originOrdered: relationship.isOrdered, owner: entity.name,
                    relationship: relationship)
                if let table = state.origin?.name, let source = state.columns[oldName!] { join.seed = (table, source) }
                newJoins[key] = join
            case (.toMany, nil):
                newJoins[key] = JoinState(
                    originTable: nil, originOrdered: relationship.isOrdered, owner: entity.name,
                    relationship: relationship)
            }
        }
        return columns
    }

    /// The sides named in `diff`'s older schema, named as its newer schema names them (dropped when removed).
    static func carried(
        _ sides: [(entity: String, relationship: String)], through diff: SchemaDiff
    ) -> [(entity: String, relationship: String)] {
        sides.compactMap { side in
            guard
                let entity = diff.destination.entities.first(where: {
                    diff.originalName(ofEntity: $0.name) == side.entity
                }),
                let relationship = entity.relationships.first(where: {
                    diff.originalName(ofProperty: $0.name, inEntity: entity.name) == side.relationship
                })
            else { return nil }
            return (entity.name, relationship.name)
        }
    }
}
