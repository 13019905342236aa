extension Migration {
    /// Runs one resolved mapping: its attributes in place, or its destination's objects created from its
    /// source's, each value checked (exact doubles, stored types) before the run goes on.
    func execute(_ m: ResolvedMapping, folding: Bool) throws {
        let condition = m.mapping.filter.map { " WHERE \($0)" } ?? ""
        try withSQLContext(m.label) {
            try checkExactDoubles(of: m, condition: condition)
            try checkExactFloats(of: m, condition: condition)
            if m.inPlace {
                try executeInPlace(m, folding: folding, condition: condition)
            } else {
                try executeIntoNewObjects(m, condition: condition)
            }
        }
    }

    /// A mapping whose objects stay where they are: its attributes are set by one `UPDATE` (or folded into the
    /// table's rebuild), and its map table pairs each object with itself.
    private func executeInPlace(_ m: ResolvedMapping, folding: Bool, condition: String) throws {
        let layout = workspace.newLayout
        let sorted = m.mapping.attributes.sorted { $0.key < $1.key }
        if !sorted.isEmpty, !(try folding && fold(m)) {
            let assignments = sorted.map { "\(layout.column(m.destination.name, $0.key)) = (\($0.value))" }
                .joined(separator: ", ")
            try workspace.willWrite(
                table: layout.physicalTable(m.destination.name),
                columns: sorted.map { layout.physicalColumn(m.destination.name, $0.key) })
            let table = layout.table(m.destination.name)
            let updated = try db.execute(.update, "UPDATE \(table) SET \(assignments)\(condition)")
            workspace.counts.updatedAll(m.destination.name, count: updated)
            try checkStoredTypes(of: m)
        }
        if m.hasMapTable {
            let (q, id) = (db.dialect.quote, db.dialect.quote(StoreLayout.idColumn))
            try createMapTable(of: m, pairs: "SELECT \(id), \(id) FROM \(q(m.source.name))\(condition)")
        }
    }

    /// Creates the mapping's map table (each source object's `_id` and its destination's) and fills it with
    /// `pairs`, a `SELECT` of the two.
    private func createMapTable(of m: ResolvedMapping, pairs: String) throws {
        let mapTable = db.dialect.quote(m.mapTable)
        try db.execute(
            .create, "CREATE TEMP TABLE \(mapTable) (_molt_src INTEGER PRIMARY KEY, _molt_dst INTEGER NOT NULL UNIQUE)")
        try db.execute(
            .insert(into: m.mapTable, explicitID: false),
            "INSERT INTO \(db.dialect.temporaryTable(m.mapTable)) (_molt_src, _molt_dst) \(pairs)")
    }

    /// A mapping that creates its destination's objects from its source's: numbered after the destination's
    /// largest `_id`, paired with their sources in the map table, inserted by one `INSERT … SELECT`.
    private func executeIntoNewObjects(_ m: ResolvedMapping, condition: String) throws {
        let dialect = db.dialect
        let q = dialect.quote
        let layout = workspace.newLayout
        let table = layout.table(m.destination.name)
        let id = q(StoreLayout.idColumn)
        let mapTable = dialect.temporaryTable(m.mapTable)
        let base = try db.fetchInt("SELECT COALESCE(MAX(\(id)), 0) FROM \(table)") ?? 0
        try createMapTable(
            of: m,
            pairs: "SELECT \(id), \(base) + ROW_NUMBER() OVER (ORDER BY \(id)) FROM \(q(m.source.name))\(condition)")
        var columns = [id]
        var values = ["_molt_map._molt_dst"]
        for attribute in m.destination.attributes {
            if let expression = m.mapping.attributes[attribute.name] {
                columns.append(layout.column(m.destination.name, attribute.name))
                values.append("(\(expression))")
            } else if let fallback = attribute.defaultValue {
                columns.append(layout.column(m.destination.name, attribute.name))
                values.append(dialect.literal(fallback))
            }
        }
        for filler in layout.fillers(m.destination.name) {
            columns.append(q(filler.column))
            values.append(filler.literal)
        }
        try workspace.willWrite(table: layout.physicalTable(m.destination.name), columns: nil)
        workspace.changes.didInsert(anywhereIn: layout.physicalTable(m.destination.name))
        workspace.counts.inserted += try db.execute(
            .insert(into: layout.physicalTable(m.destination.name), explicitID: true),
            """
            INSERT INTO \(table) (\(columns.joined(separator: ", ")))
            SELECT \(values.joined(separator: ", "))
            FROM \(q(m.source.name)) JOIN \(mapTable) AS _molt_map ON _molt_map._molt_src = \(q(m.source.name)).\(id)
            """)
        try checkStoredTypes(of: m)
    }

    /// Refuses an expression that gives an integer with no exact double for a double or date attribute: the
    /// column would round it, and Molt never rounds a value silently (the same rule as every other path).
    private func checkExactDoubles(of m: ResolvedMapping, condition: String) throws {
        let q = db.dialect.quote
        for (name, expression) in m.mapping.attributes.sorted(by: { $0.key < $1.key }) {
            guard let attribute = m.destination.attribute(named: name),
                attribute.type == .double || attribute.type == .date
            else { continue }
            let filter = condition.isEmpty ? " WHERE " : "\(condition) AND "
            let sql =
                "SELECT \(q(m.source.name)).\(q(StoreLayout.idColumn)), (\(expression)) FROM \(q(m.source.name))\(filter)\(db.dialect.inexactDoubleCondition("(\(expression))")) LIMIT 1"
            guard let row = try db.fetchRows(sql, types: [.int, .int]).first, case .int(let id) = row[0],
                case .int(let value) = row[1]
            else { continue }
            throw ValueConversion.inexactDouble(
                entity: m.destination.name, attribute: name, value: value, objectID: nil, version: toVersion,
                origin:
                    "given by the expression `\(m.written.attributes[name] ?? expression)` of \(m.label), for source _id \(id)"
            )
        }
    }

    /// Refuses an expression that gives a number no `Float` holds exactly for a float attribute, naming it: the
    /// same rule as every write (PostgreSQL's `real` would round it; SQLite would keep a double no `Float` reads).
    private func checkExactFloats(of m: ResolvedMapping, condition: String) throws {
        let q = db.dialect.quote
        for (name, expression) in m.mapping.attributes.sorted(by: { $0.key < $1.key }) {
            guard m.destination.attribute(named: name)?.type == .float else { continue }
            let filter = condition.isEmpty ? " WHERE " : "\(condition) AND "
            let sql =
                "SELECT \(q(m.source.name)).\(q(StoreLayout.idColumn)), (\(expression)) FROM \(q(m.source.name))\(filter)\(db.dialect.inexactFloatCondition("(\(expression))")) LIMIT 1"
            guard let row = try db.fetchRows(sql, types: [.int, .double]).first, case .int(let id) = row[0],
                let value = row[1].double,
                let refusal = ValueConversion.numberRefusal(
                    entity: m.destination.name, attribute: name, type: .float, value: .double(value), objectID: nil,
                    origin:
                        "given by the expression `\(m.written.attributes[name] ?? expression)` of \(m.label), for source _id \(id)"
                )
            else { continue }
            throw refusal
        }
    }

    /// SQLite keeps what an expression gives, whatever the column's type (text in a REAL column): refuse a
    /// mapped value of the wrong type, naming the attribute and an object, rather than commit it.
    private func checkStoredTypes(of m: ResolvedMapping) throws {
        let layout = workspace.newLayout
        let dialect = db.dialect
        for (name, expression) in m.mapping.attributes.sorted(by: { $0.key < $1.key }) {
            guard let attribute = m.destination.attribute(named: name),
                MappingChecks.mayStoreWrongType(attribute, expression, m)
            else { continue }
            let column = layout.column(m.destination.name, name)
            guard let mismatch = dialect.storageMismatchCondition(column, type: attribute.type) else { continue }
            let sql =
                "SELECT \(dialect.quote(StoreLayout.idColumn)), typeof(\(column)), quote(\(column)) FROM \(layout.table(m.destination.name)) WHERE \(mismatch) LIMIT 1"
            guard let row = try db.fetchRows(sql, types: [.int, .string, .string]).first,
                case .int(let objectID) = row[0], case .string(let storage) = row[1], case .string(let text) = row[2]
            else { continue }
            throw MappingChecks.wrongStorage(
                label: m.label, entity: m.destination.name, attribute: attribute,
                expression: m.written.attributes[name] ?? expression, storage: storage, text: text,
                objectID: objectID, fromVersion: fromVersion)
        }
    }
}
