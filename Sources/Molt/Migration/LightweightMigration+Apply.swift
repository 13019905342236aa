extension LightweightMigration {
    /// Applies the folded steps to the store's tables, inside the caller's exclusive transaction, with
    /// reference checks deferred (they are checked once, before commit).
    ///
    /// - Parameter linkedTables: Receives the tables whose rows were written, replaced, created or dropped: the
    ///   only places where a link can have broken, so that validation checks those (and the tables linking to
    ///   them) rather than every row of the store. Adding an empty column, renaming and dropping a column leave
    ///   every link as it was, and so does an in-place conversion of other columns
    ///   (``SQLTableChangeResult/wroteLinks``).
    /// - Returns: The number of rows written (copied by rebuilds, filled by conversions).
    /// - Parameter inverseTables: Receives the tables of the relationship sides the run filled from their
    ///   inverse, or whose inverse it declared anew: where the two sides of a relationship may disagree, for
    ///   validation to compare.
    func apply(
        in db: any SQLConnection, linkedTables: inout Set<String>, inverseTables: inout Set<String>,
        run: RunContext? = nil
    ) throws -> Int {
        let ddl = SchemaDDL(dialect: db.dialect)
        var written = 0
        for table in droppedJoinTables + droppedTables {
            if try db.tableExists(table) { try db.change(.dropTable(table)) }
            linkedTables.insert(table)
        }
        try renameTables(
            tables.values.compactMap { state in
                guard let origin = state.origin, origin.name != state.entity.name else { return nil }
                return (origin.name, state.entity.name)
            }, in: db)
        try renameTables(
            joins.values.compactMap { join in
                let table = StoreLayout.joinTableName(entity: join.owner, relationship: join.relationship.name)
                guard let origin = join.originTable, origin != table else { return nil }
                return (origin, table)
            }, in: db)
        for entity in current.entities where tables[entity.name]?.origin == nil {
            try db.change(.createTable(ddl.table(for: entity)))
            try db.syncIndexes(of: entity, table: entity.name, version: current.version)
            linkedTables.insert(entity.name)
        }
        for entity in current.entities {
            for relationship in entity.relationships where relationship.kind == .toMany {
                guard let join = joins[Self.key(entity.name, relationship.name)] else { continue }
                written += try applyJoin(join, in: db, linkedTables: &linkedTables)
            }
        }
        for entity in current.entities {
            guard let change = tableChange(for: entity), !leavesAsIs(change, db.dialect) else { continue }
            let result: SQLTableChangeResult
            do {
                var begun = false
                result = try db.apply(change) { copied, total in
                    guard let run else { return }
                    if !begun {
                        run.begin("rebuilding '\(entity.name)'", entity: entity.name, total: total)
                        begun = true
                    }
                    if copied > 0 { run.report(completed: copied) }
                    try run.checkCancellation()
                }
            } catch let error as MoltError where error.code == .constraintViolation {
                throw try mappedColumnError(entity, in: db) ?? error
            }
            written += result.rowsWritten
            if result.wroteLinks { linkedTables.insert(entity.name) }
            try checkMappedStorage(entity, in: db)
        }
        written += try fillNewInverses(in: db, linkedTables: &linkedTables, inverseTables: &inverseTables)
        return written
    }

    /// Fills each relationship side the run adds empty while its inverse holds links (`Owner.items` added as the
    /// inverse of `Item.owner`), so that both sides read the same links; refuses a to-one side that the inverse
    /// links from several objects. Pairs that were two separate relationships and become inverses are handed to
    /// validation, which refuses them if they disagree.
    private func fillNewInverses(
        in db: any SQLConnection, linkedTables: inout Set<String>, inverseTables: inout Set<String>
    ) throws -> Int {
        let layout = StoreLayout.standard(current, dialect: db.dialect)
        var written = 0
        let sides = InverseLink.sidesToFill(in: current) { entity, relationship in
            guard let state = tables[entity], state.origin != nil else { return true }
            if let join = joins[Self.key(entity, relationship)] { return join.originTable == nil && join.seed == nil }
            if case .literal(let value)? = state.columns[relationship] { return value.isNull }
            return false
        }
        for side in sides where tables[side.entity]?.origin != nil {
            if let overfull = try side.overfull(in: db, layout: layout) {
                throw MoltError(
                    .dataLossRefused,
                    "Version \(current.version) adds \(side.label) as the to-one inverse of \(side.inverseLabel), but \(side.entity) #\(overfull.object) is linked from \(overfull.count) \(side.destination) objects (#\(overfull.linkedFrom.map(String.init).joined(separator: ", #"))\(overfull.count > 3 ? ", …" : "")), and a to-one holds one: the other links would be lost. Make \(side.label) to-many, or keep one link per object in a custom stage from version \(start.version) to \(current.version). Nothing was written.",
                    entity: side.entity, property: side.relationship.name)
            }
            written += try side.fill(in: db, layout: layout)
            let table =
                side.relationship.kind == .toOne
                ? side.entity : StoreLayout.joinTableName(entity: side.entity, relationship: side.relationship.name)
            linkedTables.insert(table)
            inverseTables.insert(table)
        }
        for pair in InverseLink.pairs(in: current, bothWays: true)
        where pairedInverses.contains(where: { $0.entity == pair.entity && $0.relationship == pair.relationship.name })
        {
            inverseTables.formUnion(pair.tables)
        }
        return written
    }

    /// SQLite keeps what an expression gives, whatever the column's type: refuse a mapped value of the wrong
    /// type, naming the attribute and an object, rather than commit it.
    private func checkMappedStorage(_ entity: Entity, in db: any SQLConnection) throws {
        let q = db.dialect.quote
        for (name, mapped) in (mappedColumns[entity.name] ?? [:]).sorted(by: { $0.key < $1.key })
        where mapped.checksStorage {
            guard let attribute = entity.attribute(named: name),
                let mismatch = db.dialect.storageMismatchCondition(q(name), type: attribute.type)
            else { continue }
            let sql =
                "SELECT \(q(StoreLayout.idColumn)), typeof(\(q(name))), quote(\(q(name))) FROM \(q(entity.name)) WHERE \(mismatch) LIMIT 1"
            guard let row = try db.fetchRows(sql, types: [.int, .string, .string]).first,
                case .int(let objectID) = row[0], case .string(let storage) = row[1], case .string(let text) = row[2]
            else { continue }
            throw MappingChecks.wrongStorage(
                label: mapped.label, entity: entity.name, attribute: attribute, expression: mapped.expression,
                storage: storage,
                text: text, objectID: objectID, fromVersion: mapped.fromVersion)
        }
    }

    /// Whether `change` leaves its table as the run found it: a table of the run's start schema (which the store
    /// held, validated), every column from itself, the same definitions, constraints and indexes. No engine need
    /// look at it (PostgreSQL would read its columns and indexes from the catalog, a few milliseconds for each of a
    /// store's unchanged tables). A table a stage's workspace made is never one: it gets its indexes here.
    private func leavesAsIs(_ change: SQLTableChange, _ dialect: any SQLDialect) -> Bool {
        guard let state = tables[change.table], let origin = change.origin, !state.needsRebuild,
            change.exactDoubles.isEmpty,
            change.finalColumns(for: dialect).map(\.source) == change.originColumns.map(SQLColumnSource.column),
            Set(origin.storedIndexes) == Set(change.entity.storedIndexes)
        else { return false }
        let ddl = SchemaDDL(dialect: dialect)
        return ddl.table(for: origin) == ddl.table(for: change.entity)
    }

    /// The change that brings the table of `entity` (of ``current``) from its origin to `entity`, or nil for a
    /// table the run creates.
    func tableChange(for entity: Entity) -> SQLTableChange? {
        guard let state = tables[entity.name], let origin = state.origin else { return nil }
        return SQLTableChange(
            table: entity.name, entity: entity,
            originColumns: origin.attributes.map(\.name)
                + origin.relationships.filter { $0.kind == .toOne }.map(\.name),
            originReferences: Set(origin.relationships.filter { $0.kind == .toOne }.map(\.name)),
            sources: state.columns, constraintsChanged: state.needsRebuild, version: current.version,
            exactDoubles: state.exactDoubleChecks, rowCount: rowCounts[origin.name],
            origin: start.entity(named: origin.name) == origin ? origin : nil)
    }

    /// When a rebuild that computes mapped columns fails a constraint: the mapped required attribute that a
    /// row leaves empty, named as a stage's would be.
    private func mappedColumnError(_ entity: Entity, in db: any SQLConnection) throws -> MoltError? {
        let q = db.dialect.quote
        for (attribute, mapped) in (mappedColumns[entity.name] ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard entity.attribute(named: attribute)?.isOptional == false,
                let source = tables[entity.name]?.columns[attribute]
            else { continue }
            let missing =
                try db.fetchInt("SELECT COUNT(*) FROM \(q(entity.name)) WHERE \(source.sql(db.dialect)) IS NULL") ?? 0
            guard missing > 0 else { continue }
            return MoltError(
                .validationFailed,
                "Attribute '\(entity.name).\(attribute)' is required in version \(current.version), but the expression `\(mapped.expression)` of \(mapped.label) gives no value for \(missing) object(s). Make the expression give a value for every object (for example with COALESCE), give the attribute a default, or make it optional. The store was left at its old version.",
                entity: entity.name, property: attribute)
        }
        return nil
    }

    private func renameTables(_ renames: [(from: String, to: String)], in db: any SQLConnection) throws {
        guard !renames.isEmpty else { return }
        // Links to a renamed table follow it (SQLite rewrites them; PostgreSQL references by identity).
        if renames.count == 1 {
            try db.change(.renameTable(renames[0].from, to: renames[0].to))
            return
        }
        // Two phases, so that swapped or chained names never collide.
        for (i, rename) in renames.enumerated() {
            try db.change(.renameTable(rename.from, to: "_molt_rename_\(i)"))
        }
        for (i, rename) in renames.enumerated() {
            try db.change(.renameTable("_molt_rename_\(i)", to: rename.to))
        }
    }

    private func applyJoin(_ join: JoinState, in db: any SQLConnection, linkedTables: inout Set<String>) throws -> Int {
        let table = StoreLayout.joinTableName(entity: join.owner, relationship: join.relationship.name)
        let dialect = db.dialect
        let q = dialect.quote
        guard join.originTable != nil else {
            linkedTables.insert(table)
            for change in SchemaDDL(dialect: dialect).joinTable(entity: join.owner, join.relationship) {
                try db.change(change)
            }
            guard let seed = join.seed else { return 0 }
            let source = seed.source.sql(dialect)
            return try db.execute(
                .insert(into: table, explicitID: false),
                """
                INSERT INTO \(q(table)) (\(q(StoreLayout.ownerColumn)), \(q(StoreLayout.targetColumn)))
                SELECT \(q(StoreLayout.idColumn)), \(source) FROM \(q(join.owner)) WHERE \(source) IS NOT NULL
                """)
        }
        guard join.originOrdered != join.relationship.isOrdered else { return 0 }
        if join.relationship.isOrdered {
            try db.change(.addColumn(SchemaDDL.positionColumn, to: table))
            return try db.execute(
                .update, "UPDATE \(q(table)) SET \(q(StoreLayout.positionColumn)) = \(dialect.insertionOrder)")
        } else {
            try db.execute(.alter, "ALTER TABLE \(q(table)) DROP COLUMN \(q(StoreLayout.positionColumn))")
            return 0
        }
    }
}
