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
            var parts: [(what: String, text: String, query: String)] = m.mapping.attributes.sorted { $0.key < $1.key }.map {
                ("the expression of '\(m.destination.name).\($0.key)'", $0.value, "SELECT (\($0.value)) FROM \(source)")
            }
            if let filter = m.mapping.filter { parts.append(("the filter", filter, "SELECT 1 FROM \(source) WHERE (\(filter))")) }
            for link in m.mapping.links {
                if let key = link.sourceKey {
                    parts.append(("the source key of the link '\(link.relationship)'", key, "SELECT (\(key)) FROM \(source)"))
                }
            }
            for part in parts {
                guard let problem = SQLExpressionCheck.problem(in: part.text) ?? checker.problem(in: part.query) else { continue }
                throw MoltError(
                    .invalidValue,
                    "In \(m.label), \(part.what) is not one SQL expression over the old version's data: `\(part.text)` — \(problem). A mapping may read the entities of version \(fromVersion) and call SQL functions; it cannot run statements, write, or read other tables. Nothing was written.",
                    entity: m.destination.name)
            }
        }
    }
}
