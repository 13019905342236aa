extension LightweightMigration {
    /// What the inferred step `diff` (from ``current``) would drop and update, counted in the tables as they
    /// are now, before it is folded; refuses the undeclared removals that would lose stored data.
    ///
    /// - Throws: ``MoltError/Code/dataLossRefused`` (see ``DataLoss``).
    mutating func count(_ diff: SchemaDiff, in db: any SQLConnection) throws -> (dropped: [DroppedData], updated: Int) {
        let q = db.dialect.quote
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
            var conditions: [String] = []
            for attribute in entity.attributes {
                guard let oldAttribute = diff.originalName(ofProperty: attribute.name, inEntity: entity.name)
                    .flatMap(state.entity.attribute(named:)),
                    let source = state.columns[oldAttribute.name]
                else { continue }
                let sql = source.sql(db.dialect)
                let isNull = source == .literal(.null)
                // A converted value, and a null filled with the default, are values the step changes.
                if oldAttribute.type != attribute.type, !isNull { conditions.append("\(sql) IS NOT NULL") }
                if oldAttribute.isOptional, !attribute.isOptional, attribute.defaultValue != nil {
                    conditions.append(isNull ? "1 = 1" : "\(sql) IS NULL")
                }
            }
            if !conditions.isEmpty {
                // One scan counts the rows the step updates and, for the engine's progress, every row.
                // (`FILTER` costs SQLite what a `WHERE` does; a `SUM(CASE …)` costs half as much again.)
                let sql = "SELECT COUNT(*), COUNT(*) FILTER (WHERE \(conditions.joined(separator: " OR "))) FROM \(q(table))"
                let row = try db.fetchRows(sql, types: [.int, .int]).first
                rowCounts[table] = Int(row?[0].int ?? 0)
                updated += Int(row?[1].int ?? 0)
            }
        }
        return (dropped, updated)
    }

    private func rows(in table: String, where condition: String?, _ db: any SQLConnection) throws -> Int {
        guard try db.tableExists(table) else { return 0 }
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
