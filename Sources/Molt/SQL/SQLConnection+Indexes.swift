extension SQLConnection {
    /// Drops the indexes Molt made that the entity no longer declares, and creates the missing ones, checking
    /// the data first for a new uniqueness constraint.
    ///
    /// - Parameters:
    ///   - entity: The entity, as its version declares it.
    ///   - table: Its table (the entity's name outside a stage).
    ///   - version: The version that declares the indexes, for messages.
    package func syncIndexes(of entity: Entity, table: String, version: Int) throws {
        let q = dialect.quote
        let ddl = SchemaDDL(dialect: dialect)
        let expected = entity.storedIndexes
        let actual = try indexes(on: table).filter(\.isExplicit)
        for index in actual where !expected.contains(Index(index.columns, unique: index.isUnique)) {
            try execute(.alter, "DROP INDEX \(q(index.name))")
        }
        let missing = expected.filter { index in
            !actual.contains { $0.columns == index.attributes && $0.isUnique == index.isUnique }
        }
        guard !missing.isEmpty else { return }
        var taken = Set(try indexNames().map { $0.lowercased() } + tableNames().map { $0.lowercased() })
        for index in missing {
            if index.isUnique { try checkUniqueness(of: index, in: entity, table: table, version: version) }
            let base = ddl.fitted(SchemaDDL.indexName(table: table, index))
            var name = base
            var suffix = 2
            while taken.contains(name.lowercased()) {
                name = ddl.fitted(base + "_\(suffix)")
                suffix += 1
            }
            taken.insert(name.lowercased())
            try change(ddl.index(table: table, index, named: name))
        }
    }

    private func checkUniqueness(of index: Index, in entity: Entity, table: String, version: Int) throws {
        let q = dialect.quote
        let columns = index.attributes.map(q).joined(separator: ", ")
        let notNull = index.attributes.map { "\(q($0)) IS NOT NULL" }.joined(separator: " AND ")
        // A to-one relationship's column holds the linked object's `_id`.
        let types = index.attributes.map { entity.attribute(named: $0)?.type ?? .int } + [AttributeType.int]
        let sql =
            "SELECT \(columns), COUNT(*) FROM \(q(table)) WHERE \(notNull) GROUP BY \(columns) HAVING COUNT(*) > 1 LIMIT 1"
        guard let row = try fetchRows(sql, types: types).first else { return }
        let values = row.dropLast().map(\.description)
        let count = row.last?.int ?? 2
        let label = "'\(entity.name)'(\(index.attributes.joined(separator: ", ")))"
        throw MoltError(
            .constraintViolation,
            "Cannot add the uniqueness constraint on \(label) in version \(version): the value (\(values.joined(separator: ", "))) is held by \(count) objects. Make the values unique in a custom stage before this version, or drop the constraint.",
            entity: entity.name, property: index.attributes.first)
    }
}
