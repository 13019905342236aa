extension Migration {
    /// Refuses, before a mapping runs, every expression, filter and source key that is not one expression
    /// reading the old version's data: Molt places them inside its own statements, so a `;`, a clause, a write,
    /// an `ATTACH` or a read of Molt's own tables must never get there.
    ///
    /// - Throws: ``MoltError/Code/invalidValue`` naming the mapping, the part and the expression.
    func checkExpressions(of mappings: [ResolvedMapping]) throws {
        let checker = try db.dialect.queryChecker(for: oldSchema)
        let q = db.dialect.quote
        for m in mappings {
            let source = q(m.source.name)
            // Each part is checked in the engine's spelling and quoted in the app's.
            // An expression is also compiled where only a row's own value is allowed (a WHERE clause), so that an
            // aggregate or a window function, which would combine rows, is refused.
            var parts: [(what: String, text: String, checked: String, query: String)] = m.mapping.attributes.sorted {
                $0.key < $1.key
            }.flatMap { name, expression in
                let what = "the expression of '\(m.destination.name).\(name)'",
                    text = m.written.attributes[name] ?? expression
                return [
                    (what, text, expression, "SELECT (\(expression)) FROM \(source)"),
                    (what, text, expression, "SELECT 1 FROM \(source) WHERE (\(expression)) IS NOT NULL"),
                ]
            }
            if let filter = m.mapping.filter {
                parts.append(
                    ("the filter", m.written.filter ?? filter, filter, "SELECT 1 FROM \(source) WHERE (\(filter))"))
            }
            for (link, written) in zip(m.mapping.links, m.written.links) {
                if let key = link.sourceKey {
                    let what = "the source key of the link '\(link.relationship)'"
                    parts.append((what, written.sourceKey ?? key, key, "SELECT (\(key)) FROM \(source)"))
                    parts.append(
                        (what, written.sourceKey ?? key, key, "SELECT 1 FROM \(source) WHERE (\(key)) IS NOT NULL"))
                }
            }
            for part in parts {
                guard let problem = SQLExpressionCheck.problem(in: part.checked) ?? checker.problem(in: part.query)
                else { continue }
                throw MoltError(
                    .invalidValue,
                    "In \(m.label), \(part.what) is not one SQL expression over the old version's data: `\(part.text)` — \(problem). A mapping may read the entities of version \(fromVersion) and call SQL functions; it cannot run statements, write, or read other tables. Nothing was written.",
                    entity: m.destination.name)
            }
        }
    }
}

extension Migration {
    /// Computes an in-place mapping's columns in the rebuild that ends the stage, when the destination's table
    /// is rebuilt then anyway: one pass over the table instead of an `UPDATE` and then a copy.
    ///
    /// - Returns: Whether the mapping was folded; false when the table is not rebuilt (the mapping then updates
    ///   in place).
    func fold(_ m: ResolvedMapping) throws -> Bool {
        guard let change = workspace.finalizer.tableChange(for: m.destination), db.rewritesRows(change),
            var state = workspace.finalizer.tables[m.destination.name]
        else { return false }
        for (name, expression) in m.mapping.attributes.sorted(by: { $0.key < $1.key }) {
            guard let attribute = m.destination.attribute(named: name) else { continue }
            let current = state.columns[name] ?? .literal(.null)
            state.columns[name] = .sql(expression, filter: m.mapping.filter, otherwise: current)
            workspace.finalizer.mappedColumns[m.destination.name, default: [:]][name] =
                LightweightMigration.MappedColumn(
                    expression: expression, label: m.label, fromVersion: fromVersion,
                    checksStorage: MappingChecks.mayStoreWrongType(attribute, expression, m))
            workspace.computedLater.insert(name, of: m.destination.name)
        }
        workspace.finalizer.tables[m.destination.name] = state
        let q = db.dialect.quote
        let filter = m.mapping.filter.map { " WHERE (\($0))" } ?? ""
        let count = try db.fetchInt("SELECT COUNT(*) FROM \(q(m.source.name))\(filter)") ?? 0
        workspace.counts.updatedAll(m.destination.name, count: Int(count))
        return true
    }
}
