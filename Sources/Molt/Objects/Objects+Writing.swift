extension Objects {
    /// Inserts an object with these attribute values; missing values take the attribute's default.
    ///
    /// ```swift
    /// let memo = try objects.insert("UserMemo", ["title": "Groceries", "favorite": true])
    /// ```
    ///
    /// - Returns: The inserted object, with its identifier.
    /// - Throws: ``MoltError`` when a value does not fit its attribute, a required value is missing, or a
    ///   uniqueness constraint is violated.
    @discardableResult
    public func insert(_ entityName: String, _ values: [String: Value] = [:]) throws -> DynamicObject {
        try insert(entityName, values, id: nil)
    }

    /// Inserts an object under a given identifier instead of the next free one, so that an import keeps the
    /// identifiers of an export (and the relationships that name them).
    ///
    /// - Throws: ``MoltError`` when a value does not fit, or another object already has that identifier.
    @discardableResult
    package func insert(_ entityName: String, _ values: [String: Value], keepingID id: Int64) throws -> DynamicObject {
        try insert(entityName, values, id: id)
    }

    private func insert(_ entityName: String, _ values: [String: Value], id: Int64?) throws -> DynamicObject {
        try requireWritable()
        let entity = try entity(entityName)
        try requireConcrete(entity)
        let checked = try checkedValues(values, for: entity, applyingDefaults: true)
        let fillers = layout.fillers(entity.name)
        var columns = checked.map { layout.column(entity.name, $0.0.name) } + fillers.map { dialect.quote($0.column) }
        var marks = checked.map { _ in "?" } + fillers.map(\.literal)
        var arguments = checked.map(\.1)
        if layout.hierarchy(entity.name) != nil {
            columns.append(dialect.quote(StoreLayout.entityColumn))
            marks.append("?")
            arguments.append(.string(entity.name))
        }
        if let id {
            columns.insert(idColumn, at: 0)
            marks.insert("?", at: 0)
            arguments.insert(.int(id), at: 0)
        }
        let sql =
            columns.isEmpty
            ? "INSERT INTO \(layout.table(entity.name)) DEFAULT VALUES"
            : "INSERT INTO \(layout.table(entity.name)) (\(columns.joined(separator: ", "))) VALUES (\(marks.joined(separator: ", ")))"
        try willWrite(entity.name, properties: nil, links: .keeps)
        let kind = SQLStatementKind.insert(into: layout.physicalTable(entity.name), explicitID: id != nil)
        let newID = try db.cachedStatement(kind, sql).insert(arguments)
        didInsertObject(entity.name, id: id ?? newID)
        observer?.didInsert(entity.name, count: 1)
        var result: [String: Value] = [:]
        for (attribute, value) in checked { result[attribute.name] = value }
        return DynamicObject(entity: entity.name, id: id ?? newID, values: result)
    }

    /// Writes an object's attribute values back to the store: the attributes it holds a value for (an
    /// explicit `.null` included); attributes it has no entry for keep their stored value.
    ///
    /// - Throws: ``MoltError`` when the object was never inserted or no longer exists, or a value does not fit.
    public func update(_ object: DynamicObject) throws {
        try requireWritable()
        let entity = try entity(object.entity)
        guard let id = object.id else {
            throw MoltError(
                .objectNotFound, "This '\(entity.name)' object was never inserted; insert it instead of updating it.",
                entity: entity.name)
        }
        let checked = try checkedValues(object.values, for: entity, applyingDefaults: false)
        guard !checked.isEmpty else { return }
        let assignments = checked.map { "\(layout.column(entity.name, $0.0.name)) = ?" }.joined(separator: ", ")
        try willWrite(entity.name, properties: checked.map(\.0.name))
        let changed = try db.cachedStatement(
            .update, "UPDATE \(layout.table(entity.name)) SET \(assignments) WHERE \(idColumn) = ?"
        )
        .execute(checked.map(\.1) + [.int(id)])
        guard changed == 1 else {
            throw MoltError(
                .objectNotFound, "No '\(entity.name)' object has _id \(id); it was deleted.", entity: entity.name)
        }
        observer?.didUpdate(entity.name, id: id)
    }

    /// Deletes an object, applying the delete rule of each of its relationships: cascade deletes the
    /// destinations, deny refuses while there are destinations, nullify unlinks them.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/constraintViolation`` when a deny rule applies.
    public func delete(_ object: DynamicObject) throws {
        try requireWritable()
        guard let id = object.id else { return }
        var visited: Set<String> = []
        try delete(entity: try entity(object.entity), id: id, visited: &visited)
    }

    private func delete(entity: Entity, id: Int64, visited: inout Set<String>) throws {
        guard visited.insert("\(entity.name)#\(id)").inserted else { return }
        for relationship in entity.relationships {
            let targets = try destinationIDs(entity: entity, relationship: relationship, of: id)
            switch relationship.deleteRule {
            case .nullify: continue
            case .deny where !targets.isEmpty:
                throw Self.denied(entity: entity, id: id, relationship: relationship, count: targets.count)
            case .deny: continue
            case .cascade:
                let destination = try self.entity(relationship.destination)
                for target in targets {
                    try delete(entity: try concreteEntity(destination, id: target), id: target, visited: &visited)
                }
            }
        }
        try willWrite(entity.name, properties: nil, links: .keeps)
        try willWriteReferences(to: entity, deleting: ("?", [.int(id)]))
        let count = try db.cachedStatement(.update, "DELETE FROM \(layout.table(entity.name)) WHERE \(idColumn) = ?")
            .execute([.int(id)])
        observer?.didDelete(entity.name, count: count)
    }

    /// Tells a stage, before an object of `entity` is deleted, about the rows the database changes with it through
    /// references: its links in join tables (deleted) and the to-one columns that point to it (set to null), so
    /// that the old side keeps reading them as they were (whether the engine applies those actions at once or not).
    ///
    /// `deleted` selects the identifiers of the objects deleted (SQL and its arguments): for a to-many
    /// relationship with a minimum count, the owners that lose a destination are recorded for the check at commit.
    private func willWriteReferences(to entity: Entity, deleting deleted: (sql: String, arguments: [Value])) throws {
        guard observer != nil || access != nil else { return }
        for relationship in entity.relationships where relationship.kind == .toMany {
            try willWriteLinks(entity.name, relationship.name)
        }
        for other in schema.entities {
            // Deleted objects may be of the destination entity or of one of its sub-entities.
            for relationship in other.relationships
            where schema.entity(entity.name, inherits: relationship.destination)
                || schema.entity(relationship.destination, inherits: entity.name)
            {
                if relationship.kind == .toMany {
                    var owners: [Int64] = []
                    if access != nil, relationship.toManyMinimum != nil {
                        owners = try db.fetchInts(
                            "SELECT DISTINCT \(dialect.quote(StoreLayout.ownerColumn)) FROM \(layout.joinTable(other.name, relationship.name)) WHERE \(dialect.quote(StoreLayout.targetColumn)) IN (\(deleted.sql))",
                            deleted.arguments)
                    }
                    try willWriteLinks(other.name, relationship.name, owners: owners)
                } else {
                    try willWrite(other.name, properties: [relationship.name])
                }
            }
        }
    }

    /// The refusal of deleting an object whose relationship with the deny rule still points to `count` objects.
    private static func denied(entity: Entity, id: Int64, relationship: Relationship, count: Int) -> MoltError {
        MoltError(
            .constraintViolation,
            "Cannot delete '\(entity.name)' _id \(id): its relationship '\(relationship.name)' has the delete rule deny and still points to \(count) object(s). Remove them first.",
            entity: entity.name, property: relationship.name)
    }

    /// Deletes every object of an entity that matches a predicate (all of them without one), applying delete
    /// rules.
    ///
    /// Without a cascade rule, one `DELETE` statement, after one query per deny rule that refuses the deletion
    /// (deleting nothing) when an object it would delete still has destinations there, naming the first such
    /// object as deleting it alone would; the database unlinks what the nullify rules let go. With a cascade rule,
    /// one object at a time.
    ///
    /// - Returns: The number of objects deleted, not counting cascades.
    @discardableResult
    public func deleteAll(_ entityName: String, where predicate: ObjectPredicate? = nil) throws -> Int {
        try requireWritable()
        let entity = try entity(entityName)
        let (condition, arguments) = try condition(predicate, for: entity)
        // The objects may be of sub-entities, whose own relationships' rules apply to them too.
        let rules =
            entity.relationships.map { (owner: entity, relationship: $0) }
            + schema.subEntities(of: entity.name, recursive: true).flatMap { sub in
                sub.relationships.map { (owner: sub, relationship: $0) }
            }
        let matching = "SELECT \(idColumn) FROM \(layout.table(entity.name)) WHERE \(condition)"
        if rules.allSatisfy({ $0.relationship.deleteRule != .cascade }) {
            try refuseDenied(
                rules.filter { $0.relationship.deleteRule == .deny }, deleting: entity, matching: matching, arguments)
            // Nullify only now: one statement; foreign keys (or, in a migration stage, the sweep at its end) unlink.
            try willWrite(entity.name, properties: nil, links: .keeps)
            try willWriteReferences(to: entity, deleting: (matching, arguments))
            let count = try db.execute(
                .update, "DELETE FROM \(layout.table(entity.name)) WHERE \(condition)", arguments)
            observer?.didDelete(entity.name, count: count)
            return count
        }
        let ids = try db.fetchInts("\(matching) ORDER BY \(idColumn)", arguments)
        var visited: Set<String> = []
        for id in ids { try delete(entity: try concreteEntity(entity, id: id), id: id, visited: &visited) }
        return ids.count
    }

    /// Throws ``denied(entity:id:relationship:count:)`` for the first object (by identifier) of the query
    /// `matching` (its `arguments` bound) that a relationship with the deny rule still links to objects: one query
    /// per relationship, which finds that object and counts its destinations.
    private func refuseDenied(
        _ rules: [(owner: Entity, relationship: Relationship)], deleting entity: Entity, matching: String,
        _ arguments: [Value]
    ) throws {
        guard !rules.isEmpty else { return }
        recordRead(entity.name)
        var first: (id: Int64, count: Int64, relationship: Relationship)?
        for (owner, relationship) in rules {
            let sql: String
            switch relationship.kind {
            case .toOne:
                recordRead(owner.name)
                // Only the rows of the entity that declares it (a hierarchy shares its table).
                let column = layout.column(owner.name, relationship.name)
                let kind = layout.entityCondition(owner.name).map { "\($0) AND " } ?? ""
                sql =
                    "SELECT \(idColumn), 1 FROM \(layout.table(owner.name)) WHERE \(kind)\(column) IS NOT NULL AND \(idColumn) IN (\(matching)) ORDER BY \(idColumn)"
            case .toMany:
                recordReadLinks(owner.name, relationship.name)
                let ownerColumn = dialect.quote(StoreLayout.ownerColumn)
                sql =
                    "SELECT \(ownerColumn), COUNT(*) FROM \(layout.joinTable(owner.name, relationship.name)) WHERE \(ownerColumn) IN (\(matching)) GROUP BY \(ownerColumn) ORDER BY \(ownerColumn)"
            }
            let rows = try db.fetchRows(
                sql + dialect.limitClause(limit: 1, offset: nil), arguments, types: [.int, .int])
            guard let row = rows.first, let id = row[0].int, let count = row[1].int else { continue }
            if first.map({ id < $0.id }) ?? true { first = (id, count, relationship) }
        }
        guard let first else { return }
        throw Self.denied(
            entity: try concreteEntity(entity, id: first.id), id: first.id, relationship: first.relationship,
            count: Int(first.count))
    }
}
