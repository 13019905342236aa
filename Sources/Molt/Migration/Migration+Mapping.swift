extension Migration {
    /// Runs entity mappings inside SQLite: in-place updates and inserts first, then the links between the
    /// objects they made (Core Data's relationship phase).
    ///
    /// - Throws: ``MoltError`` naming the mapping, entity or attribute that does not exist, a required
    ///   attribute no mapping fills, an ambiguous link, or the SQL error of an expression.
    public func apply(_ mappings: [EntityMapping]) throws {
        try apply(mappings, foldingIntoRebuild: false)
    }

    /// - Parameter folding: Whether an in-place mapping may compute its columns in the rebuild that ends the
    ///   stage, when the table is rebuilt anyway, instead of in a pass of its own: only when no code reads the
    ///   mapped values before the stage ends (a mapping stage without a hook).
    func apply(_ mappings: [EntityMapping], foldingIntoRebuild folding: Bool) throws {
        try empty(mappings.filter(\.empties), besides: mappings.filter { !$0.empties })
        let mappings = mappings.filter { !$0.empties }
        var resolved: [ResolvedMapping] = []
        let linkedEntities = Set(mappings.flatMap { $0.links.map(\.to) })
        for (index, mapping) in mappings.enumerated() {
            var m = try resolve(mapping, index: index)
            m.isLinked = linkedEntities.contains(m.destination.name)
            resolved.append(m)
        }
        try checkExpressions(of: resolved)
        for mapping in resolved { noteReads(of: mapping.written, source: mapping.source) }
        run.begin("mapping", entity: nil, total: resolved.count)
        for (done, mapping) in resolved.enumerated() {
            try execute(mapping, folding: folding)
            run.report(completed: done + 1)
            try run.checkCancellation()
        }
        let links = resolved.flatMap { mapping in mapping.mapping.links.map { (mapping, $0) } }
        run.begin("linking", entity: nil, total: links.count)
        for (done, (mapping, link)) in links.enumerated() {
            try connect(link, of: mapping, among: resolved)
            run.report(completed: done + 1)
            try run.checkCancellation()
        }
        for mapping in resolved where mapping.hasMapTable {
            try db.execute(.alter, "DROP TABLE IF EXISTS \(db.dialect.temporaryTable(mapping.mapTable))")
        }
    }

    /// Deletes every object of each entity an emptying mapping names (``EntityMapping/emptying(_:)``), as a Core
    /// Data mapping model that does not migrate them: links to them go, and nothing else is deleted (no delete
    /// rule runs: a `cascade` would delete objects of entities the mapping does not name).
    private func empty(_ emptying: [EntityMapping], besides others: [EntityMapping]) throws {
        for mapping in emptying {
            let name = mapping.destination
            guard let entity = newSchema.entity(named: name) else {
                throw MoltError(
                    .invalidValue, "A mapping empties '\(name)', which is not an entity of version \(toVersion).",
                    entity: name)
            }
            guard let origin = workspace.origins[name] else {
                throw MoltError(
                    .invalidValue,
                    "A mapping empties '\(name)', but '\(name)' is new in version \(toVersion): it has no objects to delete. Remove that mapping.",
                    entity: name)
            }
            guard mapping.source == nil || mapping.source == origin, mapping.filter == nil, mapping.attributes.isEmpty,
                mapping.links.isEmpty, mapping.overrides.isEmpty
            else {
                throw MoltError(
                    .invalidValue,
                    "The mapping that empties '\(name)' also gives a source, a filter, attributes, links or overrides; an emptying mapping names only its entity (\"destination\" and \"empty\"). Put the rest in a mapping of its own.",
                    entity: name)
            }
            if others.contains(where: { $0.destination == name && ($0.source ?? origin) == origin }) {
                throw MoltError(
                    .invalidValue,
                    "'\(name)' is emptied, and another mapping of the stage \(fromVersion) → \(toVersion) updates its objects in place; remove one of the two.",
                    entity: name)
            }
            try deleteData(forType: entity.name)
            // At once, so that what follows (a mapping's links) sees no link to them.
            try sweepLinks(to: [entity.name])
        }
    }

    struct ResolvedMapping {
        /// The mapping in the engine's spelling (``SQLDialect/portableExpression(_:names:)``).
        let mapping: EntityMapping
        /// The mapping as the app wrote it, for messages.
        let written: EntityMapping
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

    private func resolve(_ written: EntityMapping, index: Int) throws -> ResolvedMapping {
        try checkOverrides(of: written)
        let mapping = written.resolved(for: db.dialect.engine)
        guard let destination = newSchema.entity(named: mapping.destination) else {
            throw MoltError(
                .invalidValue,
                "A mapping names destination '\(mapping.destination)', which is not an entity of version \(toVersion).",
                entity: mapping.destination)
        }
        let origin = workspace.origins[destination.name]
        guard let sourceName = mapping.source ?? origin else {
            throw MoltError(
                .invalidValue,
                "The mapping into '\(destination.name)' names no source, and '\(destination.name)' did not exist in version \(fromVersion); set `source:`.",
                entity: destination.name)
        }
        guard let source = oldSchema.entity(named: sourceName) else {
            throw MoltError(
                .invalidValue,
                "The mapping into '\(destination.name)' names source '\(sourceName)', which is not an entity of version \(fromVersion).",
                entity: destination.name)
        }
        for name in mapping.attributes.keys where destination.attribute(named: name) == nil {
            throw MoltError(
                .invalidValue,
                "The mapping into '\(destination.name)' sets '\(name)', which is not an attribute of '\(destination.name)' in version \(toVersion).",
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
        let names = Set(
            ([source, destination] + oldSchema.entities + newSchema.entities).flatMap { entity in
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
        return ResolvedMapping(
            mapping: portable, written: mapping, index: index, source: source, destination: destination,
            inPlace: inPlace)
    }

    /// Refuses an override that names an attribute of no destination or a link the mapping does not have, on
    /// every engine, so that a slip in one engine's SQL is found wherever the plan first runs.
    private func checkOverrides(of mapping: EntityMapping) throws {
        for (engine, override) in mapping.overrides.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let label = "The \(engine.name) override of the mapping into '\(mapping.destination)'"
            if let destination = newSchema.entity(named: mapping.destination) {
                for name in override.attributes.keys.sorted() where destination.attribute(named: name) == nil {
                    throw MoltError(
                        .invalidValue,
                        "\(label) sets '\(name)', which is not an attribute of '\(destination.name)' in version \(toVersion).",
                        entity: destination.name, property: name)
                }
            }
            for relationship in override.sourceKeys.keys.sorted()
            where !mapping.links.contains(where: { $0.relationship == relationship }) {
                throw MoltError(
                    .invalidValue,
                    "\(label) gives a source key for '\(relationship)', which is not one of the mapping's links; add the link to `links`.",
                    entity: mapping.destination, property: relationship)
            }
        }
    }

    private func connect(_ link: EntityMapping.Link, of m: ResolvedMapping, among all: [ResolvedMapping]) throws {
        let dialect = db.dialect
        let q = dialect.quote
        guard let relationship = m.destination.relationship(named: link.relationship) else {
            throw MoltError(
                .invalidValue,
                "\(m.label.prefix(1).uppercased() + m.label.dropFirst()) links '\(link.relationship)', which is not a relationship of '\(m.destination.name)' in version \(toVersion).",
                entity: m.destination.name, property: link.relationship)
        }
        let targets = all.filter {
            $0.destination.name == link.to && (link.sourceKey != nil || $0.source.name == m.source.name)
        }
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
            try db.execute(
                .create, "CREATE TEMP TABLE _molt_pairs (a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a, b))")
            try db.execute(.create, dialect.temporaryIndex("_molt_pairs_b", on: "_molt_pairs", columns: "b, a"))
            defer { _ = try? db.execute(.alter, "DROP TABLE \(pairs)") }
            try db.execute(
                .insert(into: "_molt_pairs", explicitID: false),
                """
                INSERT INTO \(pairs) (a, b)
                SELECT mi._molt_dst, mj._molt_dst
                FROM \(dialect.temporaryTable(m.mapTable)) AS mi
                JOIN \(q(m.source.name)) ON \(q(m.source.name)).\(q(StoreLayout.idColumn)) = mi._molt_src
                JOIN \(dialect.temporaryTable(target.mapTable)) AS mj ON mj._molt_src = (\(key))
                """)
            let label = "'\(m.destination.name).\(link.relationship)'"
            try self.link(relationship, of: m.destination, reversed: false, for: label)
            if let inverseName = relationship.inverse, let inverse = target.destination.relationship(named: inverseName)
            {
                try self.link(inverse, of: target.destination, reversed: true, for: label)
            }
        }
    }

    /// Applies the pairs of the temporary pair table (a → b, or b → a when reversed) to a relationship, for the
    /// mapping's link `label`.
    ///
    /// - Throws: ``MoltError/Code/invalidValue`` when the relationship is to-one and the pairs give an object more
    ///   than one destination (two people linked to one address whose `resident` is to-one): no link is picked
    ///   for it, as an engine's scalar subquery would (SQLite the first, PostgreSQL an error).
    private func link(_ relationship: Relationship, of entity: Entity, reversed: Bool, for label: String) throws {
        let dialect = db.dialect
        let q = dialect.quote
        let layout = workspace.newLayout
        let pairs = dialect.temporaryTable("_molt_pairs")
        let (owner, target) = reversed ? ("b", "a") : ("a", "b")
        switch relationship.kind {
        case .toOne:
            let overfull = try db.fetchRows(
                "SELECT \(owner), COUNT(*) FROM \(pairs) GROUP BY \(owner) HAVING COUNT(*) > 1 ORDER BY \(owner) LIMIT 1",
                types: [.int, .int])
            if let row = overfull.first, case .int(let object) = row[0], case .int(let count) = row[1] {
                let side = "'\(entity.name).\(relationship.name)'"
                throw MoltError(
                    .invalidValue,
                    "The mapping's link \(label) gives '\(entity.name)' #\(object) \(count) '\(relationship.destination)' objects through \(side)\(reversed ? ", its inverse" : ""), which is to-one: it holds one of them. Make the link's source key pair each '\(entity.name)' with one '\(relationship.destination)', or make \(side) to-many; the migration from version \(fromVersion) to \(toVersion) was rolled back.",
                    entity: entity.name, property: relationship.name)
            }
            let table = layout.table(entity.name)
            let column = layout.column(entity.name, relationship.name)
            try workspace.willWrite(
                table: layout.physicalTable(entity.name),
                columns: [layout.physicalColumn(entity.name, relationship.name)])
            _ = try db.execute(
                .update,
                """
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
            try workspace.willWrite(table: layout.physicalJoinTable(entity.name, relationship.name), columns: nil)
            _ = try db.execute(
                .insert(into: layout.physicalJoinTable(entity.name, relationship.name), explicitID: false),
                dialect.insertIgnoringDuplicates(into: table, columns: columns, "\(select) FROM \(pairs)"))
        }
    }

    /// Runs `body`, turning SQLite's refusal of a statement into an error that names the mapping; failures of
    /// the file, the disk or a lock keep their own message.
    func withSQLContext(_ label: String, _ body: () throws -> Void) throws {
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

/// The checks of a mapping's values, shared by the pass that updates in place and the rebuild that computes them.
enum MappingChecks {
    /// Whether a mapped value could be stored with another type than the attribute's: a TEXT column turns
    /// integers and reals into text by itself, so only a blob can break a string attribute, and none can come
    /// from an expression over entities without data attributes that uses no blob function. Skipping that scan
    /// keeps an in-place mapping at the cost of a hand-written UPDATE.
    static func mayStoreWrongType(_ attribute: Attribute, _ expression: String, _ m: Migration.ResolvedMapping) -> Bool
    {
        let mayYieldBlobs = (m.source.attributes + m.destination.attributes).contains { $0.type == .data }
        if attribute.type == .string || attribute.type == .uuid, !mayYieldBlobs,
            !["x'", "blob", "jsonb", "unhex", "cast"].contains(where: expression.lowercased().contains)
        {
            return false
        }
        return true
    }

    static func wrongStorage(
        label: String, entity: String, attribute: Attribute, expression: String, storage: String, text: String,
        objectID: Int64,
        fromVersion: Int
    ) -> MoltError {
        MoltError(
            .migrationFailed,
            "\(label.prefix(1).uppercased() + label.dropFirst()) gives '\(entity).\(attribute.name)' a \(storage) value (\(text) for _id \(objectID)), but the attribute holds \(attribute.type.rawValue) values. Fix its expression `\(expression)` (for example with CAST); the store was left at version \(fromVersion).",
            entity: entity, property: attribute.name)
    }
}

extension Migration {
    /// Notes the source attributes a mapping's SQL names (in its attributes, filter and links, for every
    /// engine), so that the run reports them as carried by the stage rather than dropped.
    fileprivate func noteReads(of mapping: EntityMapping, source: Entity) {
        var texts =
            Array(mapping.attributes.values) + [mapping.filter].compactMap { $0 }
            + mapping.links.compactMap(\.sourceKey)
        for override in mapping.overrides.values {
            texts +=
                Array(override.attributes.values) + [override.filter].compactMap { $0 }
                + Array(override.sourceKeys.values)
        }
        let columns = Dictionary(
            source.attributes.map { ($0.name.lowercased(), $0.name) }, uniquingKeysWith: { first, _ in first })
        for name in texts.reduce(into: Set<String>(), { $0.formUnion(SQLExpressionCheck.names(in: $1)) }) {
            if let attribute = columns[name.lowercased()] {
                workspace.attributesRead.insert(attribute, of: source.name)
            }
        }
    }
}
