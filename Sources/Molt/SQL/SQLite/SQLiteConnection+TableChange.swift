extension SQLiteConnection {
    func indexNames() throws -> [String] {
        try fetchRows("SELECT name FROM sqlite_master WHERE type = 'index'", types: [.string]).compactMap {
            $0.first?.string
        }
    }

    /// Alters or rebuilds one table; a table is rebuilt at most once.
    ///
    /// Adding a column (empty or with a constant default), renaming one and dropping one plain column are
    /// `ALTER TABLE`s that change only the schema text. Anything else (a computed column, a changed constraint,
    /// several drops, a dropped reference, a rename onto a name still in use) rebuilds the table with one
    /// `INSERT … SELECT`.
    func rewritesRows(_ change: SQLTableChange) -> Bool { Plan(change, dialect: dialect).rebuild }

    /// What applying a change takes: a rebuild, or these `ALTER TABLE`s.
    private struct Plan {
        var rebuild: Bool
        var renames: [(String, String)] = []
        var adds: [String] = []
        var drops: [String] = []

        init(_ change: SQLTableChange, dialect: any SQLDialect) {
            let ddl = SchemaDDL(dialect: dialect)
            let entity = change.entity
            func definition(_ column: String) -> String {
                if let attribute = entity.attribute(named: column) { return ddl.sql(for: ddl.column(attribute)) }
                return ddl.sql(for: ddl.column(entity.relationship(named: column)!))
            }
            rebuild = change.constraintsChanged
            var used: Set<String> = []
            for column in change.finalColumns(for: dialect) {
                switch column.source {
                case .column(let name):
                    used.insert(name)
                    if name != column.name { renames.append((name, column.name)) }
                case .literal(let value):
                    adds.append(
                        value.isNull
                            ? definition(column.name) : "\(definition(column.name)) DEFAULT \(dialect.literal(value))")
                case .converted, .coalesce, .sql:
                    rebuild = true
                }
            }
            drops = change.originColumns.filter { !used.contains($0) }
            if drops.count > 1 || drops.contains(where: change.originReferences.contains) { rebuild = true }
            if renames.contains(where: { used.contains($0.1) }) { rebuild = true }
        }
    }

    /// Rows copied by one statement of a rebuild, between two progress reports.
    static let rebuildChunk: Int64 = 65_536

    func apply(_ change: SQLTableChange, progress: (Int, Int) throws -> Void) throws -> SQLTableChangeResult {
        let q = dialect.quote
        let ddl = SchemaDDL(dialect: dialect)
        let entity = change.entity
        let table = change.table
        let plan = Plan(change, dialect: dialect)
        let (renames, adds, drops) = (plan.renames, plan.adds, plan.drops)
        for check in change.exactDoubles { try ExactDoubles.check(check, table: table, in: self) }
        if plan.rebuild {
            let temporary = "_molt_new_" + table
            try self.change(.createTable(ddl.table(for: entity, named: temporary)))
            let names = [StoreLayout.idColumn] + change.finalColumns.map(\.name)
            let sources = [q(StoreLayout.idColumn)] + change.finalColumns.map { $0.source.sql(dialect) }
            let written = try copyInChunks(
                into: temporary, columns: names, from: table, sources: sources, progress: progress)
            // The new table's sequence starts at the largest identifier copied; the old one may have handed out
            // larger ones (objects deleted since): carry its mark over, so that none is handed out again.
            let mark = try identifierMark(of: table)
            try self.change(.dropTable(table))
            try self.change(.renameTable(temporary, to: table))
            if let mark { try raiseIdentifierMark(of: table, to: mark) }
            try syncIndexes(of: entity, table: table, version: change.version)
            return SQLTableChangeResult(rowsWritten: written, wroteLinks: true)
        }
        // Dropping, renaming or adding a column leaves every link as it was (a to-one column is always added
        // empty).
        for column in drops {
            for index in try indexes(on: table) where index.columns.contains(column) && index.isExplicit {
                try execute(.alter, "DROP INDEX \(q(index.name))")
            }
            try execute(.alter, "ALTER TABLE \(q(table)) DROP COLUMN \(q(column))")
        }
        for (from, to) in renames {
            try execute(.alter, "ALTER TABLE \(q(table)) RENAME COLUMN \(q(from)) TO \(q(to))")
        }
        for definition in adds {
            try execute(.alter, "ALTER TABLE \(q(table)) ADD COLUMN \(definition)")
        }
        try syncIndexes(of: entity, table: table, version: change.version)
        return SQLTableChangeResult(rowsWritten: 0, wroteLinks: false)
    }

    /// `INSERT INTO into (columns) SELECT sources FROM from`, in chunks of rows taken in identifier order (however
    /// sparse the identifiers), so that progress is reported (and a cancellation honoured) while a large table
    /// is copied.
    private func copyInChunks(
        into target: String, columns: [String], from table: String, sources: [String],
        progress: (Int, Int) throws -> Void
    ) throws -> Int {
        let q = dialect.quote
        let id = q(StoreLayout.idColumn)
        let total = Int(try fetchInt("SELECT COUNT(*) FROM \(q(table))") ?? 0)
        let insert = try makeStatement(
            .insert(into: target, explicitID: true),
            """
            INSERT INTO \(q(target)) (\(columns.map(q).joined(separator: ", ")))
            SELECT \(sources.joined(separator: ", ")) FROM \(q(table)) WHERE \(id) > ? ORDER BY \(id) LIMIT \(Self.rebuildChunk)
            """)
        let lastCopied = try makeStatement(.read, "SELECT MAX(\(id)) FROM \(q(target))")
        var copied = 0
        var last = Int64.min
        try progress(0, total)
        while true {
            let rows = try insert.execute([.int(last)])
            guard rows > 0 else { break }
            copied += rows
            try progress(copied, total)
            guard rows == Int(Self.rebuildChunk), try lastCopied.step() else { break }
            last = lastCopied.int64(0)
            lastCopied.reset()
        }
        // The last line of defence against a rebuild that keeps fewer rows than it read.
        guard copied == total else {
            throw MoltError(
                .migrationFailed,
                "Rebuilding table '\(table)' copied \(copied) of its \(total) rows, so the migration was stopped and rolled back; nothing was lost. An expression that combines rows (count, sum, a window function) in a mapping does this: compute such values in a custom stage."
            )
        }
        return copied
    }
}
