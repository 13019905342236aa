extension SQLiteConnection {
    func indexNames() throws -> [String] {
        try fetchRows("SELECT name FROM sqlite_master WHERE type = 'index'", types: [.string]).compactMap { $0.first?.string }
    }

    /// Alters or rebuilds one table; a table is rebuilt at most once.
    ///
    /// Adding a column (empty or with a constant default), renaming one and dropping one plain column are
    /// `ALTER TABLE`s that change only the schema text. Anything else (a computed column, a changed constraint,
    /// several drops, a dropped reference, a rename onto a name still in use) rebuilds the table with one
    /// `INSERT … SELECT`.
    func apply(_ change: SQLTableChange) throws -> SQLTableChangeResult {
        let q = dialect.quote
        let ddl = SchemaDDL(dialect: dialect)
        let entity = change.entity
        let table = change.table
        func definition(_ column: String) -> String {
            if let attribute = entity.attribute(named: column) { return ddl.columnDefinition(attribute) }
            return ddl.columnDefinition(entity.relationship(named: column)!)
        }
        var rebuild = change.constraintsChanged
        var used: Set<String> = []
        var renames: [(String, String)] = []
        var adds: [String] = []
        for column in change.finalColumns {
            switch column.source.simplified(for: dialect) {
            case .column(let name):
                used.insert(name)
                if name != column.name { renames.append((name, column.name)) }
            case .literal(let value):
                adds.append(value.isNull ? definition(column.name) : "\(definition(column.name)) DEFAULT \(dialect.literal(value))")
            case .converted, .coalesce:
                rebuild = true
            }
        }
        let drops = change.originColumns.filter { !used.contains($0) }
        if drops.count > 1 || drops.contains(where: change.originReferences.contains) { rebuild = true }
        if renames.contains(where: { used.contains($0.1) }) { rebuild = true }

        if rebuild {
            let temporary = "_molt_new_" + table
            try execute(ddl.createTable(entity, named: temporary))
            let names = [StoreLayout.idColumn] + change.finalColumns.map(\.name)
            let sources = [q(StoreLayout.idColumn)] + change.finalColumns.map { $0.source.sql(dialect) }
            let written = try execute("""
                INSERT INTO \(q(temporary)) (\(names.map(q).joined(separator: ", ")))
                SELECT \(sources.joined(separator: ", ")) FROM \(q(table))
                """)
            try execute("DROP TABLE \(q(table))")
            try execute("ALTER TABLE \(q(temporary)) RENAME TO \(q(table))")
            try syncIndexes(of: entity, table: table, version: change.version)
            return SQLTableChangeResult(rowsWritten: written, rewroteRows: true)
        }
        // Dropping, renaming or adding a column leaves every link as it was (a to-one column is always added
        // empty).
        for column in drops {
            for index in try indexes(on: table) where index.columns.contains(column) && index.isExplicit {
                try execute("DROP INDEX \(q(index.name))")
            }
            try execute("ALTER TABLE \(q(table)) DROP COLUMN \(q(column))")
        }
        for (from, to) in renames {
            try execute("ALTER TABLE \(q(table)) RENAME COLUMN \(q(from)) TO \(q(to))")
        }
        for definition in adds {
            try execute("ALTER TABLE \(q(table)) ADD COLUMN \(definition)")
        }
        try syncIndexes(of: entity, table: table, version: change.version)
        return SQLTableChangeResult(rowsWritten: 0, rewroteRows: false)
    }
}
