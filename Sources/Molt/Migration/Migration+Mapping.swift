extension Migration {
    /// Runs entity mappings inside SQLite: in-place updates and inserts first, then the links between the
    /// objects they made (Core Data's relationship phase).
    ///
    /// - Throws: ``MoltError`` naming the mapping, entity or attribute that does not exist, a required
    ///   attribute no mapping fills, an ambiguous link, or the SQL error of an expression.
    public func apply(_ mappings: [EntityMapping]) throws {
        var resolved: [ResolvedMapping] = []
        let linkedEntities = Set(mappings.flatMap { $0.links.map(\.to) })
        for (index, mapping) in mappings.enumerated() {
            var m = try resolve(mapping, index: index)
            m.isLinked = linkedEntities.contains(m.destination.name)
            resolved.append(m)
        }
        for mapping in resolved {
            run.report(entity: mapping.destination.name, completed: 0, total: 1)
            try execute(mapping)
            try run.checkCancellation()
        }
        for mapping in resolved {
            for link in mapping.mapping.links { try connect(link, of: mapping, among: resolved) }
        }
        for mapping in resolved where mapping.hasMapTable {
            try db.execute("DROP TABLE IF EXISTS \(db.dialect.temporaryTable(mapping.mapTable))")
        }
    }

    struct ResolvedMapping {
        let mapping: EntityMapping
        let index: Int
        let source: Entity
        let destination: Entity
        let inPlace: Bool
        /// Whether another mapping links to this one's objects.
        var isLinked = false
        var mapTable: String { "_molt_map_\(index)" }
        var hasMapTable: Bool { !inPlace || !mapping.links.isEmpty || isLinked }
        var label: String { "the mapping of '\(source.name)' into '\(destination.name)'" }
    }

    private func resolve(_ mapping: EntityMapping, index: Int) throws -> ResolvedMapping {
        guard let destination = newSchema.entity(named: mapping.destination) else {
            throw MoltError(
                .invalidValue, "A mapping names destination '\(mapping.destination)', which is not an entity of version \(toVersion).",
                entity: mapping.destination)
        }
        let origin = workspace.origins[destination.name]
        guard let sourceName = mapping.source ?? origin else {
            throw MoltError(
                .invalidValue, "The mapping into '\(destination.name)' names no source, and '\(destination.name)' did not exist in version \(fromVersion); set `source:`.",
                entity: destination.name)
        }
        guard let source = oldSchema.entity(named: sourceName) else {
            throw MoltError(
                .invalidValue, "The mapping into '\(destination.name)' names source '\(sourceName)', which is not an entity of version \(fromVersion).",
                entity: destination.name)
        }
        for name in mapping.attributes.keys where destination.attribute(named: name) == nil {
            throw MoltError(
                .invalidValue, "The mapping into '\(destination.name)' sets '\(name)', which is not an attribute of '\(destination.name)' in version \(toVersion).",
                entity: destination.name, property: name)
        }
        let inPlace = origin == source.name
        if !inPlace {
            for attribute in destination.attributes
            where !attribute.isOptional && attribute.defaultValue == nil && mapping.attributes[attribute.name] == nil {
                throw MoltError(
                    .invalidValue,
                    "The mapping of '\(source.name)' into '\(destination.name)' gives no value to the required attribute '\(destination.name).\(attribute.name)'; add it to `attributes`.",
                    entity: destination.name, property: attribute.name)
            }
        }
        // The engine's spelling of the names an expression uses (PostgreSQL folds unquoted names to lower case).
        let names = Set(([source, destination] + oldSchema.entities + newSchema.entities).flatMap { entity in
            [entity.name, StoreLayout.idColumn] + entity.attributes.map(\.name) + entity.relationships.map(\.name)
        })
        var portable = mapping
        portable.attributes = mapping.attributes.mapValues { db.dialect.portableExpression($0, names: names) }
        portable.filter = mapping.filter.map { db.dialect.portableExpression($0, names: names) }
        portable.links = mapping.links.map { link in
            var link = link
            link.sourceKey = link.sourceKey.map { db.dialect.portableExpression($0, names: names) }
            return link
        }
        return ResolvedMapping(mapping: portable, index: index, source: source, destination: destination, inPlace: inPlace)
    }

    private func execute(_ m: ResolvedMapping) throws {
        let dialect = db.dialect
        let q = dialect.quote
        let layout = workspace.newLayout
        let table = layout.table(m.destination.name)
        let condition = m.mapping.filter.map { " WHERE \($0)" } ?? ""
        let id = q(StoreLayout.idColumn)
        let mapTable = dialect.temporaryTable(m.mapTable)
        let sorted = m.mapping.attributes.sorted { $0.key < $1.key }
        try withSQLContext(m.label) {
            if m.inPlace {
                if !sorted.isEmpty {
                    let assignments = sorted.map { "\(layout.column(m.destination.name, $0.key)) = (\($0.value))" }.joined(separator: ", ")
                    run.touched += try db.execute("UPDATE \(table) SET \(assignments)\(condition)")
                    try checkStoredTypes(of: m)
                }
                if m.hasMapTable {
                    try db.execute("CREATE TEMP TABLE \(q(m.mapTable)) (_molt_src INTEGER PRIMARY KEY, _molt_dst INTEGER NOT NULL UNIQUE)")
                    try db.execute("INSERT INTO \(mapTable) SELECT \(id), \(id) FROM \(q(m.source.name))\(condition)")
                }
                return
            }
            let base = try db.fetchInt("SELECT COALESCE(MAX(\(id)), 0) FROM \(table)") ?? 0
            try db.execute("CREATE TEMP TABLE \(q(m.mapTable)) (_molt_src INTEGER PRIMARY KEY, _molt_dst INTEGER NOT NULL UNIQUE)")
            try db.execute("""
                INSERT INTO \(mapTable) (_molt_src, _molt_dst)
                SELECT \(id), \(base) + ROW_NUMBER() OVER (ORDER BY \(id)) FROM \(q(m.source.name))\(condition)
                """)
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
            run.touched += try db.execute("""
                INSERT INTO \(table) (\(columns.joined(separator: ", ")))
                SELECT \(values.joined(separator: ", "))
                FROM \(q(m.source.name)) JOIN \(mapTable) AS _molt_map ON _molt_map._molt_src = \(q(m.source.name)).\(id)
                """)
            try checkStoredTypes(of: m)
        }
    }

    private func connect(_ link: EntityMapping.Link, of m: ResolvedMapping, among all: [ResolvedMapping]) throws {
        let dialect = db.dialect
        let q = dialect.quote
        guard let relationship = m.destination.relationship(named: link.relationship) else {
            throw MoltError(
                .invalidValue, "\(m.label.prefix(1).uppercased() + m.label.dropFirst()) links '\(link.relationship)', which is not a relationship of '\(m.destination.name)' in version \(toVersion).",
                entity: m.destination.name, property: link.relationship)
        }
        let targets = all.filter { $0.destination.name == link.to && (link.sourceKey != nil || $0.source.name == m.source.name) }
        guard targets.count == 1, let target = targets.first, target.destination.name == relationship.destination else {
            throw MoltError(
                .invalidValue,
                "The link '\(m.destination.name).\(link.relationship)' needs exactly one mapping into '\(link.to)'\(link.sourceKey == nil ? " from '\(m.source.name)'" : "") whose entity the relationship points to ('\(relationship.destination)'); found \(targets.count).",
                entity: m.destination.name, property: link.relationship)
        }
        let key = link.sourceKey ?? "\(q(m.source.name)).\(q(StoreLayout.idColumn))"
        let pairs = dialect.temporaryTable("_molt_pairs")
        try withSQLContext("the link '\(m.destination.name).\(link.relationship)'") {
            // Keyed on both sides, so that linking either way is a lookup, not a scan per row.
            try db.execute("CREATE TEMP TABLE _molt_pairs (a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a, b))")
            try db.execute(dialect.temporaryIndex("_molt_pairs_b", on: "_molt_pairs", columns: "b, a"))
            defer { _ = try? db.execute("DROP TABLE \(pairs)") }
            try db.execute("""
                INSERT INTO \(pairs) (a, b)
                SELECT mi._molt_dst, mj._molt_dst
                FROM \(dialect.temporaryTable(m.mapTable)) AS mi
                JOIN \(q(m.source.name)) ON \(q(m.source.name)).\(q(StoreLayout.idColumn)) = mi._molt_src
                JOIN \(dialect.temporaryTable(target.mapTable)) AS mj ON mj._molt_src = (\(key))
                """)
            try self.link(relationship, of: m.destination, reversed: false)
            if let inverseName = relationship.inverse, let inverse = target.destination.relationship(named: inverseName) {
                try self.link(inverse, of: target.destination, reversed: true)
            }
        }
    }

    /// Applies the pairs of the temporary pair table (a → b, or b → a when reversed) to a relationship.
    private func link(_ relationship: Relationship, of entity: Entity, reversed: Bool) throws {
        let dialect = db.dialect
        let q = dialect.quote
        let layout = workspace.newLayout
        let pairs = dialect.temporaryTable("_molt_pairs")
        let (owner, target) = reversed ? ("b", "a") : ("a", "b")
        switch relationship.kind {
        case .toOne:
            let table = layout.table(entity.name)
            let column = layout.column(entity.name, relationship.name)
            run.touched += try db.execute("""
                UPDATE \(table) SET \(column) = (SELECT \(target) FROM \(pairs) WHERE \(owner) = \(table).\(q(StoreLayout.idColumn)))
                WHERE \(q(StoreLayout.idColumn)) IN (SELECT \(owner) FROM \(pairs))
                """)
        case .toMany:
            let table = layout.joinTable(entity.name, relationship.name)
            var columns = [q(StoreLayout.ownerColumn), q(StoreLayout.targetColumn)]
            var select = "SELECT \(owner), \(target)"
            if relationship.isOrdered {
                columns.append(q(StoreLayout.positionColumn))
                select += ", ROW_NUMBER() OVER (PARTITION BY \(owner) ORDER BY \(target))"
            }
            run.touched += try db.execute(dialect.insertIgnoringDuplicates(into: table, columns: columns, "\(select) FROM \(pairs)"))
        }
    }

    /// SQLite keeps what an expression gives, whatever the column's type (text in a REAL column): refuse a
    /// mapped value of the wrong type, naming the attribute and an object, rather than commit it.
    private func checkStoredTypes(of m: ResolvedMapping) throws {
        let layout = workspace.newLayout
        let dialect = db.dialect
        // A TEXT column turns integers and reals into text by itself: only a blob can break a string
        // attribute, and none can come from an expression over entities without data attributes that uses no
        // blob function. Skipping that scan keeps an in-place mapping at the cost of a hand-written UPDATE.
        let mayYieldBlobs = (m.source.attributes + m.destination.attributes).contains { $0.type == .data }
        for (name, expression) in m.mapping.attributes.sorted(by: { $0.key < $1.key }) {
            guard let attribute = m.destination.attribute(named: name) else { continue }
            if attribute.type == .string || attribute.type == .uuid, !mayYieldBlobs,
                !["x'", "blob", "jsonb", "unhex", "cast"].contains(where: expression.lowercased().contains)
            {
                continue
            }
            let column = layout.column(m.destination.name, name)
            guard let mismatch = dialect.storageMismatchCondition(column, type: attribute.type) else { continue }
            let sql = "SELECT \(dialect.quote(StoreLayout.idColumn)), typeof(\(column)), quote(\(column)) FROM \(layout.table(m.destination.name)) WHERE \(mismatch) LIMIT 1"
            guard let row = try db.fetchRows(sql, types: [.int, .string, .string]).first,
                case .int(let objectID) = row[0], case .string(let storage) = row[1], case .string(let text) = row[2]
            else { continue }
            throw MoltError(
                .migrationFailed,
                "The mapping of '\(m.source.name)' into '\(m.destination.name)' gives '\(m.destination.name).\(name)' a \(storage) value (\(text) for _id \(objectID)), but the attribute holds \(attribute.type.rawValue) values. Fix its expression `\(expression)` (for example with CAST); the store was left at version \(fromVersion).",
                entity: m.destination.name, property: name)
        }
    }

    /// Runs `body`, turning SQLite's refusal of a statement into an error that names the mapping; failures of
    /// the file, the disk or a lock keep their own message.
    private func withSQLContext(_ label: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as MoltError where error.cause is SQLStatementRefusal {
            let detail = (error.cause as? SQLStatementRefusal)?.message ?? error.message
            throw MoltError(
                .migrationFailed,
                "\(db.dialect.engineName) rejected \(label) in the stage \(fromVersion) → \(toVersion): \(detail). Check its expressions and filter; the store was left at version \(fromVersion).",
                sql: error.sql, cause: error)
        }
    }
}
