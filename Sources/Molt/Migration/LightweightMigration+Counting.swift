extension LightweightMigration {
    /// What the inferred step `diff` (from ``current``) would drop and update, counted in the tables as they
    /// are now, before it is folded; refuses the undeclared removals that would lose stored data.
    ///
    /// - Throws: ``MoltError/Code/dataLossRefused`` (see ``DataLoss``).
    mutating func count(_ diff: SchemaDiff, in db: any SQLConnection) throws -> (dropped: [DroppedData], updated: Int) {
        let dropped = try DataLoss.check(diff, refusing: true) { loss in
            guard let state = tables[loss.entity], let table = state.origin?.name else { return 0 }
            guard let property = loss.property else { return try rows(in: table, where: nil, db) }
            if let source = state.columns[property] { return try values(of: source, in: table, db) }
            guard let join = joins[Self.key(loss.entity, property)], let joinTable = join.originTable else { return 0 }
            return try rows(in: joinTable, where: nil, db)
        }
        var updated = 0
        for entity in diff.destination.entities {
            guard let oldName = diff.originalName(ofEntity: entity.name), let state = tables[oldName],
                let table = state.origin?.name
            else { continue }
            // The rows the step changes: those of `conditions`, or every row.
            var conditions: [String] = []
            var everyRow = false
            var exact: [SQLTableChange.ExactDouble] = []
            for attribute in entity.attributes {
                guard
                    let oldAttribute = diff.originalName(ofProperty: attribute.name, inEntity: entity.name)
                        .flatMap(state.entity.attribute(named:)),
                    let source = state.columns[oldAttribute.name]
                else { continue }
                let sql = source.sql(db.dialect)
                let isNull = source == .literal(.null)
                // A converted value, and a null filled with the default, are values the step changes.
                if oldAttribute.type != attribute.type, !isNull {
                    if holdsValueInEveryRow(source, of: state) {
                        everyRow = true
                    } else {
                        conditions.append("\(sql) IS NOT NULL")
                    }
                }
                if oldAttribute.isOptional, !attribute.isOptional, attribute.defaultValue != nil {
                    if isNull { everyRow = true } else { conditions.append("\(sql) IS NULL") }
                }
                if let check = Self.exactDoubleCheck(
                    oldAttribute, attribute, source: source, entity: entity.name, version: diff.destination.version)
                {
                    exact.append(check)
                }
            }
            if everyRow || !conditions.isEmpty {
                let condition = everyRow ? nil : conditions.joined(separator: " OR ")
                updated += try countChanges(in: table, where: condition, exact: exact, db)
            }
        }
        return (dropped, updated)
    }

    /// One scan of `table` (locked as its change will lock it, so that what is counted is what the change finds)
    /// counts its rows, for the engine's progress, and the rows the step changes (`condition`; nil: all). The same scan
    /// bounds the step's widenings (`exact`): every integer within ±2^53 has an exact double, and the change need
    /// not check them again (``verifiedExactDoubles``); beyond, each value is checked, and the first one that
    /// would round refuses the run here, naming it, before anything is written.
    ///
    /// - Returns: The rows the step changes.
    private mutating func countChanges(
        in table: String, where condition: String?, exact: [SQLTableChange.ExactDouble], _ db: any SQLConnection
    ) throws -> Int {
        let q = db.dialect.quote
        try db.lockForChange(table)
        // No aggregate for `updates` when it is every row (PostgreSQL: ~3 ms per 100k rows each). A `MIN` and a
        // `MAX` cost less than a `FILTER` that tests every value (and SQLite's `FILTER` costs what a `WHERE` does).
        let counts = ["COUNT(*)"] + (condition.map { ["COUNT(*) FILTER (WHERE \($0))"] } ?? [])
        let bounds = exact.flatMap { ["MIN(\(q($0.column)))", "MAX(\(q($0.column)))"] }
        let sql = "SELECT \((counts + bounds).joined(separator: ", ")) FROM \(q(table))"
        let columns = counts.count + bounds.count
        let types: [AttributeType?] =
            Array(repeating: .int, count: counts.count) + Array(repeating: nil, count: bounds.count)
        guard let row = try db.fetchRows(sql, types: types).first, row.count == columns else {
            throw MoltError(
                .ioError,
                "Counting the rows of '\(table)' gave no result, so the migration stopped before writing anything. Open the store again."
            )
        }
        let rows = Int(row[0].int ?? 0)
        rowCounts[table] = rows
        if !exact.isEmpty {
            if !Self.boundsAreExact(row[counts.count...]) {
                for check in exact { try ExactDoubles.check(check, table: table, in: db) }
            }
            verifiedExactDoubles.formUnion(exact)
        }
        return condition == nil ? rows : Int(row[1].int ?? 0)
    }

    /// Whether the `MIN`s and `MAX`s of widened columns prove every value exact as a double: integers within
    /// ±2^53, or null (no value). A bound of another kind (SQLite keeps what it is given) proves nothing.
    static func boundsAreExact(_ bounds: ArraySlice<Value>) -> Bool {
        let limit: Int64 = 1 << 53
        return bounds.allSatisfy { bound in
            if case .int(let value) = bound { return -limit <= value && value <= limit }
            return bound == .null
        }
    }

    /// Whether every row has a value in `source`: a column of a required attribute of a table of the run's start
    /// schema, whose `NOT NULL` every engine enforces (validation holds the store to it).
    private func holdsValueInEveryRow(_ source: ColumnSource, of state: TableState) -> Bool {
        guard case .column(let column) = source, let origin = state.origin, start.entity(named: origin.name) == origin
        else { return false }
        return origin.attribute(named: column)?.isOptional == false
    }

    private func rows(in table: String, where condition: String?, _ db: any SQLConnection) throws -> Int {
        guard try db.tableExists(table) else { return 0 }
        // What is found here decides whether a removal loses data: nothing may be written there until it is done.
        try db.lockForChange(table)
        let filter = condition.map { " WHERE \($0)" } ?? ""
        return Int(try db.fetchInt("SELECT COUNT(*) FROM \(db.dialect.quote(table))\(filter)") ?? 0)
    }

    private func values(of source: ColumnSource, in table: String, _ db: any SQLConnection) throws -> Int {
        switch source {
        case .literal(.null): return 0
        case .literal: return try rows(in: table, where: nil, db)
        default: return try rows(in: table, where: "\(source.sql(db.dialect)) IS NOT NULL", db)
        }
    }
}
