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
                let condition = conditions.joined(separator: " OR ")
                let links = db.convertsColumnsInPlace ? references(of: state) : []
                guard !links.isEmpty else {
                    let sql = "SELECT COUNT(*), COUNT(*) FILTER (WHERE \(condition)) FROM \(q(table))"
                    let row = try db.fetchRows(sql, types: [.int, .int]).first
                    rowCounts[table] = Int(row?[0].int ?? 0)
                    updated += Int(row?[1].int ?? 0)
                    continue
                }
                // An engine that converts in place keeps the table's links as they are: the same scan checks them
                // now, so that validation need not scan the rewritten table again (see `linksChecked`).
                let id = q(StoreLayout.idColumn)
                let columns = links.enumerated().map { "\(q($1.column)) AS _molt_link\($0)" }.joined(separator: ", ")
                let joins = links.enumerated().map { "LEFT JOIN \(q($1.parent)) p\($0) ON p\($0).\(id) = c._molt_link\($0)" }
                let broken = links.indices.map { "(c._molt_link\($0) IS NOT NULL AND p\($0).\(id) IS NULL)" }.joined(separator: " OR ")
                let sql = """
                    SELECT COUNT(*), COUNT(*) FILTER (WHERE c._molt_updates), COUNT(*) FILTER (WHERE \(broken))
                    FROM (SELECT (\(condition)) AS _molt_updates, \(columns) FROM \(q(table))) c \(joins.joined(separator: " "))
                    """
                let row = try db.fetchRows(sql, types: [.int, .int, .int]).first
                rowCounts[table] = Int(row?[0].int ?? 0)
                updated += Int(row?[1].int ?? 0)
                // A broken link is left for validation, which names it.
                if row?[2].int == 0 { linksChecked.insert(table) }
            }
        }
        return (dropped, updated)
    }

    /// The references of a table of the run's start schema, as its columns and its parents' tables are now;
    /// none for a table laid out otherwise (a stage's workspace).
    private func references(of state: TableState) -> [(column: String, parent: String)] {
        guard let origin = state.origin, start.entity(named: origin.name) == origin else { return [] }
        return origin.relationships.compactMap { relationship in
            guard relationship.kind == .toOne, start.entity(named: relationship.destination) != nil else { return nil }
            return (relationship.name, relationship.destination)
        }
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
