import GRDB

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
            try db.execute(sql: "DROP TABLE IF EXISTS temp.\(SchemaSQL.quote(mapping.mapTable))")
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
        return ResolvedMapping(mapping: mapping, index: index, source: source, destination: destination, inPlace: inPlace)
    }

    private func execute(_ m: ResolvedMapping) throws {
        let q = SchemaSQL.quote
        let layout = workspace.newLayout
        let table = layout.table(m.destination.name)
        let condition = m.mapping.filter.map { " WHERE \($0)" } ?? ""
        let id = q(SchemaSQL.idColumn)
        let sorted = m.mapping.attributes.sorted { $0.key < $1.key }
        try withSQLContext(m.label) {
            if m.inPlace {
                if !sorted.isEmpty {
                    let assignments = sorted.map { "\(layout.column(m.destination.name, $0.key)) = (\($0.value))" }.joined(separator: ", ")
                    try db.execute(sql: "UPDATE \(table) SET \(assignments)\(condition)")
                    run.touched += db.changesCount
                    try checkStoredTypes(of: m)
                }
                if m.hasMapTable {
                    try db.execute(sql: "CREATE TEMP TABLE \(q(m.mapTable)) (_molt_src INTEGER PRIMARY KEY, _molt_dst INTEGER NOT NULL)")
                    try db.execute(sql: "INSERT INTO temp.\(q(m.mapTable)) SELECT \(id), \(id) FROM \(q(m.source.name))\(condition)")
                }
                return
            }
            let base = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(\(id)), 0) FROM \(table)") ?? 0
            try db.execute(sql: "CREATE TEMP TABLE \(q(m.mapTable)) (_molt_src INTEGER PRIMARY KEY, _molt_dst INTEGER NOT NULL)")
            try db.execute(sql: """
                INSERT INTO temp.\(q(m.mapTable)) (_molt_src, _molt_dst)
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
                    values.append(SchemaSQL.literal(fallback))
                }
            }
            for filler in layout.fillers(m.destination.name) {
                columns.append(q(filler.column))
                values.append(filler.literal)
            }
            try db.execute(sql: """
                INSERT INTO \(table) (\(columns.joined(separator: ", ")))
                SELECT \(values.joined(separator: ", "))
                FROM \(q(m.source.name)) JOIN temp.\(q(m.mapTable)) AS _molt_map ON _molt_map._molt_src = \(q(m.source.name)).\(id)
                """)
            run.touched += db.changesCount
            try checkStoredTypes(of: m)
        }
    }

    private func connect(_ link: EntityMapping.Link, of m: ResolvedMapping, among all: [ResolvedMapping]) throws {
        let q = SchemaSQL.quote
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
        let key = link.sourceKey ?? "\(q(m.source.name)).\(q(SchemaSQL.idColumn))"
        try withSQLContext("the link '\(m.destination.name).\(link.relationship)'") {
            try db.execute(sql: "CREATE TEMP TABLE _molt_pairs (a INTEGER NOT NULL, b INTEGER NOT NULL)")
            defer { try? db.execute(sql: "DROP TABLE temp._molt_pairs") }
            try db.execute(sql: """
                INSERT INTO temp._molt_pairs (a, b)
                SELECT mi._molt_dst, mj._molt_dst
                FROM temp.\(q(m.mapTable)) AS mi
                JOIN \(q(m.source.name)) ON \(q(m.source.name)).\(q(SchemaSQL.idColumn)) = mi._molt_src
                JOIN temp.\(q(target.mapTable)) AS mj ON mj._molt_src = (\(key))
                """)
            try self.link(relationship, of: m.destination, reversed: false)
            if let inverseName = relationship.inverse, let inverse = target.destination.relationship(named: inverseName) {
                try self.link(inverse, of: target.destination, reversed: true)
            }
        }
    }

    /// Applies the pairs of `temp._molt_pairs` (a → b, or b → a when reversed) to a relationship.
    private func link(_ relationship: Relationship, of entity: Entity, reversed: Bool) throws {
        let q = SchemaSQL.quote
        let layout = workspace.newLayout
        let (owner, target) = reversed ? ("b", "a") : ("a", "b")
        switch relationship.kind {
        case .toOne:
            let table = layout.table(entity.name)
            let column = layout.column(entity.name, relationship.name)
            try db.execute(sql: """
                UPDATE \(table) SET \(column) = (SELECT \(target) FROM temp._molt_pairs WHERE \(owner) = \(table).\(q(SchemaSQL.idColumn)))
                WHERE \(q(SchemaSQL.idColumn)) IN (SELECT \(owner) FROM temp._molt_pairs)
                """)
        case .toMany:
            let table = layout.joinTable(entity.name, relationship.name)
            let position = relationship.isOrdered ? ", \(q(SchemaSQL.positionColumn))" : ""
            let positionValue = relationship.isOrdered ? ", rowid" : ""
            try db.execute(sql: """
                INSERT OR IGNORE INTO \(table) (\(q(SchemaSQL.ownerColumn)), \(q(SchemaSQL.targetColumn))\(position))
                SELECT \(owner), \(target)\(positionValue) FROM temp._molt_pairs
                """)
        }
        run.touched += db.changesCount
    }

    /// SQLite keeps what an expression gives, whatever the column's type (text in a REAL column): refuse a
    /// mapped value of the wrong type, naming the attribute and an object, rather than commit it.
    private func checkStoredTypes(of m: ResolvedMapping) throws {
        let layout = workspace.newLayout
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
            let allowed: String
            switch attribute.type {
            case .int, .bool: allowed = "'integer'"
            case .double, .date: allowed = "'real', 'integer'"
            case .string, .uuid: allowed = "'text'"
            case .data: allowed = "'blob'"
            }
            let column = layout.column(m.destination.name, name)
            let sql = "SELECT \(SchemaSQL.quote(SchemaSQL.idColumn)), typeof(\(column)), quote(\(column)) FROM \(layout.table(m.destination.name)) WHERE typeof(\(column)) NOT IN ('null', \(allowed)) LIMIT 1"
            guard let row = try Row.fetchOne(db, sql: sql) else { continue }
            let objectID: Int64 = row[0]
            let storage: String = row[1]
            let text: String = row[2]
            throw MoltError(
                .migrationFailed,
                "The mapping of '\(m.source.name)' into '\(m.destination.name)' gives '\(m.destination.name).\(name)' a \(storage) value (\(text) for _id \(objectID)), but the attribute holds \(attribute.type.rawValue) values. Fix its expression `\(expression)` (for example with CAST); the store was left at version \(fromVersion).",
                entity: m.destination.name, property: name)
        }
    }

    private func withSQLContext(_ label: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as DatabaseError {
            throw MoltError(
                .migrationFailed,
                "SQLite rejected \(label) in the stage \(fromVersion) → \(toVersion): \(error.message ?? "\(error.resultCode)"). Check its expressions and filter; the store was left at version \(fromVersion).",
                underlying: error.sql)
        }
    }
}
