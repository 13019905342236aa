import GRDB

extension LightweightMigration {
    /// Applies the folded steps to the store's tables, inside the caller's transaction, with foreign key
    /// enforcement off (it is checked once, before commit).
    ///
    /// - Parameter linkedTables: Receives the tables whose rows were written, replaced, created or dropped: the
    ///   only places where a link can have broken, so that validation checks those (and the tables linking to
    ///   them) rather than every row of the store. Adding an empty column, renaming and dropping a column leave
    ///   every link as it was.
    /// - Returns: The number of rows written (copied by rebuilds, filled by conversions).
    func apply(in db: Database, linkedTables: inout Set<String>) throws -> Int {
        var written = 0
        for table in droppedJoinTables + droppedTables {
            try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaSQL.quote(table))")
            linkedTables.insert(table)
        }
        try renameTables(
            tables.values.compactMap { state in
                guard let origin = state.origin, origin.name != state.entity.name else { return nil }
                return (origin.name, state.entity.name)
            }, in: db)
        try renameTables(
            joins.values.compactMap { join in
                let table = SchemaSQL.joinTableName(entity: join.owner, relationship: join.relationship.name)
                guard let origin = join.originTable, origin != table else { return nil }
                return (origin, table)
            }, in: db)
        for entity in current.entities where tables[entity.name]?.origin == nil {
            try db.execute(sql: SchemaSQL.createTable(entity))
            try syncIndexes(of: entity, in: db)
            linkedTables.insert(entity.name)
        }
        for entity in current.entities {
            for relationship in entity.relationships where relationship.kind == .toMany {
                guard let join = joins[entity.name + "." + relationship.name] else { continue }
                written += try applyJoin(join, in: db, linkedTables: &linkedTables)
            }
        }
        for entity in current.entities {
            guard let state = tables[entity.name], state.origin != nil else { continue }
            written += try applyTable(state, in: db, linkedTables: &linkedTables)
        }
        return written
    }

    private func renameTables(_ renames: [(from: String, to: String)], in db: Database) throws {
        guard !renames.isEmpty else { return }
        // SQLite rewrites the links to a renamed table in the tables that hold them; no row changes.
        if renames.count == 1 {
            try db.execute(sql: "ALTER TABLE \(SchemaSQL.quote(renames[0].from)) RENAME TO \(SchemaSQL.quote(renames[0].to))")
            return
        }
        // Two phases, so that swapped or chained names never collide.
        for (i, rename) in renames.enumerated() {
            try db.execute(sql: "ALTER TABLE \(SchemaSQL.quote(rename.from)) RENAME TO \(SchemaSQL.quote("_molt_rename_\(i)"))")
        }
        for (i, rename) in renames.enumerated() {
            try db.execute(sql: "ALTER TABLE \(SchemaSQL.quote("_molt_rename_\(i)")) RENAME TO \(SchemaSQL.quote(rename.to))")
        }
    }

    private func applyJoin(_ join: JoinState, in db: Database, linkedTables: inout Set<String>) throws -> Int {
        let table = SchemaSQL.joinTableName(entity: join.owner, relationship: join.relationship.name)
        let q = SchemaSQL.quote
        guard join.originTable != nil else {
            linkedTables.insert(table)
            for statement in SchemaSQL.createJoinTable(entity: join.owner, join.relationship) { try db.execute(sql: statement) }
            guard let seed = join.seed else { return 0 }
            let source = seed.source.sql
            try db.execute(sql: """
                INSERT INTO \(q(table)) (\(q(SchemaSQL.ownerColumn)), \(q(SchemaSQL.targetColumn)))
                SELECT \(q(SchemaSQL.idColumn)), \(source) FROM \(q(join.owner)) WHERE \(source) IS NOT NULL
                """)
            return db.changesCount
        }
        guard join.originOrdered != join.relationship.isOrdered else { return 0 }
        if join.relationship.isOrdered {
            try db.execute(sql: "ALTER TABLE \(q(table)) ADD COLUMN \(q(SchemaSQL.positionColumn)) INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "UPDATE \(q(table)) SET \(q(SchemaSQL.positionColumn)) = rowid")
            return db.changesCount
        } else {
            try db.execute(sql: "ALTER TABLE \(q(table)) DROP COLUMN \(q(SchemaSQL.positionColumn))")
            return 0
        }
    }

    /// Alters or rebuilds one carried entity table; a table is rebuilt at most once.
    private func applyTable(_ state: TableState, in db: Database, linkedTables: inout Set<String>) throws -> Int {
        let q = SchemaSQL.quote
        let entity = state.entity
        let origin = state.origin!
        let table = entity.name
        let originToOne = Set(origin.relationships.filter { $0.kind == .toOne }.map(\.name))
        let originColumns = origin.attributes.map(\.name) + origin.relationships.filter { $0.kind == .toOne }.map(\.name)
        let finalColumns: [(name: String, definition: String, source: ColumnSource)] =
            entity.attributes.map { ($0.name, SchemaSQL.columnDefinition($0), state.columns[$0.name] ?? .literal(.null)) }
            + entity.relationships.filter { $0.kind == .toOne }.map {
                ($0.name, SchemaSQL.columnDefinition($0), state.columns[$0.name] ?? .literal(.null))
            }

        try checkExactDoubles(state, table: table, in: db)
        var rebuild = state.needsRebuild
        var used: Set<String> = []
        var renames: [(String, String)] = []
        var adds: [String] = []
        for column in finalColumns {
            switch column.source {
            case .column(let name):
                used.insert(name)
                if name != column.name { renames.append((name, column.name)) }
            case .literal(let value):
                adds.append(value.isNull ? column.definition : "\(column.definition) DEFAULT \(SchemaSQL.literal(value))")
            case .expression:
                rebuild = true
            }
        }
        let drops = originColumns.filter { !used.contains($0) }
        if drops.count > 1 || drops.contains(where: originToOne.contains) { rebuild = true }
        if renames.contains(where: { used.contains($0.1) }) { rebuild = true }

        if rebuild {
            linkedTables.insert(table)
            let temporary = "_molt_new_" + table
            try db.execute(sql: SchemaSQL.createTable(entity, named: temporary))
            let names = [SchemaSQL.idColumn] + finalColumns.map(\.name)
            let sources = [q(SchemaSQL.idColumn)] + finalColumns.map(\.source.sql)
            try db.execute(sql: """
                INSERT INTO \(q(temporary)) (\(names.map(q).joined(separator: ", ")))
                SELECT \(sources.joined(separator: ", ")) FROM \(q(table))
                """)
            let written = db.changesCount
            try db.execute(sql: "DROP TABLE \(q(table))")
            try db.execute(sql: "ALTER TABLE \(q(temporary)) RENAME TO \(q(table))")
            try syncIndexes(of: entity, in: db)
            return written
        }
        // Dropping, renaming or adding a column leaves every link as it was (a to-one column is always added
        // empty), so nothing here goes into `linkedTables`.
        for column in drops {
            for index in try db.indexes(on: table) where index.columns.contains(column) && index.origin == .createIndex {
                try db.execute(sql: "DROP INDEX \(q(index.name))")
            }
            try db.execute(sql: "ALTER TABLE \(q(table)) DROP COLUMN \(q(column))")
        }
        for (from, to) in renames {
            try db.execute(sql: "ALTER TABLE \(q(table)) RENAME COLUMN \(q(from)) TO \(q(to))")
        }
        for definition in adds {
            try db.execute(sql: "ALTER TABLE \(q(table)) ADD COLUMN \(definition)")
        }
        try syncIndexes(of: entity, in: db)
        return 0
    }

    /// Refuses an `int → double` widening when a stored integer has no exact double (beyond 2^53): SQLite would
    /// round it, and Molt never changes a value silently.
    private func checkExactDoubles(_ state: TableState, table: String, in db: Database) throws {
        let q = SchemaSQL.quote
        for check in state.exactDoubleChecks {
            let column = q(check.column)
            let sql = "SELECT \(q(SchemaSQL.idColumn)), \(column) FROM \(q(table)) WHERE typeof(\(column)) = 'integer' AND CAST(\(column) AS REAL) <> \(column) LIMIT 1"
            guard let row = try Row.fetchOne(db, sql: sql) else { continue }
            let id: Int64 = row[0]
            let value: Int64 = row[1]
            throw MoltError(
                .migrationNotInferable,
                "Attribute '\(check.entity).\(check.attribute)' cannot be widened from 'int' to 'double' in version \(check.version): the value \(value) of the object with _id \(id) has no exact double, and Molt never rounds a value silently. Convert the values in a custom stage to version \(check.version), or keep the attribute an int.",
                entity: check.entity, property: check.attribute)
        }
    }

    /// Drops the indexes Molt made that the entity no longer declares, and creates the missing ones, checking the
    /// data first for a new uniqueness constraint.
    func syncIndexes(of entity: Entity, in db: Database) throws {
        let q = SchemaSQL.quote
        let expected = SchemaSQL.indexes(of: entity)
        let actual = try db.indexes(on: entity.name).filter { $0.origin == .createIndex }
        for index in actual where !expected.contains(Index(index.columns, unique: index.isUnique)) {
            try db.execute(sql: "DROP INDEX \(q(index.name))")
        }
        for index in expected where !actual.contains(where: { $0.columns == index.attributes && $0.isUnique == index.isUnique }) {
            if index.isUnique { try checkUniqueness(of: index, in: entity, db: db) }
            var name = SchemaSQL.indexName(table: entity.name, index)
            var suffix = 2
            while try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE name = ?", arguments: [name]) ?? false {
                name = SchemaSQL.indexName(table: entity.name, index) + "_\(suffix)"
                suffix += 1
            }
            try db.execute(sql: SchemaSQL.createIndex(table: entity.name, index, named: name))
        }
    }

    private func checkUniqueness(of index: Index, in entity: Entity, db: Database) throws {
        let q = SchemaSQL.quote
        let columns = index.attributes.map(q).joined(separator: ", ")
        let notNull = index.attributes.map { "\(q($0)) IS NOT NULL" }.joined(separator: " AND ")
        let sql = "SELECT \(columns), COUNT(*) FROM \(q(entity.name)) WHERE \(notNull) GROUP BY \(columns) HAVING COUNT(*) > 1 LIMIT 1"
        guard let row = try Row.fetchOne(db, sql: sql) else { return }
        let values = index.attributes.indices.map { i -> String in
            let attribute = entity.attribute(named: index.attributes[i])!
            return Value(row[i] as DatabaseValue, as: attribute.type).description
        }
        let count: Int = row[index.attributes.count]
        let label = "'\(entity.name)'(\(index.attributes.joined(separator: ", ")))"
        throw MoltError(
            .constraintViolation,
            "Cannot add the uniqueness constraint on \(label) in version \(current.version): the value (\(values.joined(separator: ", "))) is held by \(count) objects. Make the values unique in a custom stage before this version, or drop the constraint.",
            entity: entity.name, property: index.attributes.first)
    }
}
