extension Objects {
    /// `SELECT _id, attributes… FROM table [WHERE …] ORDER BY … [LIMIT …]` and its arguments.
    func selectSQL(
        _ entity: Entity, columns: [String], where predicate: ObjectPredicate?, orderBy: [ObjectSort], limit: Int?,
        offset: Int?
    ) throws -> (String, [Value]) {
        let (filter, arguments) = try whereClause(predicate, for: entity)
        var sql = "SELECT \(([idColumn] + columns).joined(separator: ", ")) FROM \(layout.table(entity.name))\(filter)"
        for sort in orderBy
        where entity.attribute(named: sort.attribute) == nil && sort.attribute != StoreLayout.idColumn {
            throw MoltError(
                .invalidValue, "Entity '\(entity.name)' has no attribute '\(sort.attribute)' to sort by.",
                entity: entity.name,
                property: sort.attribute)
        }
        sql +=
            " ORDER BY "
            + (orderBy.isEmpty
                ? idColumn
                : orderBy.map { "\(layout.column(entity.name, $0.attribute)) \($0.isAscending ? "ASC" : "DESC")" }
                    .joined(separator: ", "))
        sql += dialect.limitClause(limit: limit, offset: offset)
        return (sql, arguments)
    }

    /// ` WHERE …` and its arguments for `predicate` over `entity`'s objects; nothing without a predicate when
    /// every row of the entity's table is one of its objects.
    func whereClause(_ predicate: ObjectPredicate?, for entity: Entity) throws -> (String, [Value]) {
        guard predicate != nil || layout.entityCondition(entity.name) != nil else { return ("", []) }
        let (condition, arguments) = try condition(predicate, for: entity)
        return (" WHERE \(condition)", arguments)
    }

    /// The condition and its arguments that keep the objects of `entity` matching `predicate` (all of them
    /// without one): in a hierarchy's table, the rows of the entity and its sub-entities only.
    func condition(_ predicate: ObjectPredicate?, for entity: Entity) throws -> (String, [Value]) {
        let (filter, arguments) = try predicate?.sql(for: entity, layout: layout) ?? ("1 = 1", [])
        guard let kind = layout.entityCondition(entity.name) else { return (filter, arguments) }
        return (predicate == nil ? kind : "\(kind) AND (\(filter))", arguments)
    }

    /// The object of the statement's current row: `_id`, then the entity's attributes in order.
    func object(from statement: any SQLStatement, entity: Entity) throws -> DynamicObject {
        layoutSource?.didRead(entity.name)
        let id = statement.int64(0)
        var values: [String: Value] = [:]
        values.reserveCapacity(entity.attributes.count)
        for (index, attribute) in entity.attributes.enumerated() {
            guard let value = statement.value(index + 1, as: attribute.type) else {
                throw SQLStoredValue.mismatch(
                    entity: entity.name, attribute: attribute.name, objectID: id, found: statement.describe(index + 1),
                    expected: attribute.type)
            }
            values[attribute.name] = value
        }
        return DynamicObject(entity: entity.name, id: id, values: values)
    }

    /// Fetches the objects of an entity that match a predicate, sorted, limited.
    ///
    /// Without a sort, objects come in insertion order.
    ///
    /// ```swift
    /// let recent = try objects.fetch("UserMemo", where: .equal("favorite", true), orderBy: [.descending("memoDate")], limit: 10)
    /// ```
    public func fetch(
        _ entityName: String, where predicate: ObjectPredicate? = nil, orderBy: [ObjectSort] = [], limit: Int? = nil,
        offset: Int? = nil
    ) throws -> [DynamicObject] {
        var result: [DynamicObject] = []
        // Appending never re-enters the store, so the cached statement can serve (no statement prepared per fetch).
        try forEach(entityName, where: predicate, orderBy: orderBy, limit: limit, offset: offset, cached: true) {
            result.append($0)
        }
        return result
    }

    /// Calls `body` with each matching object, one at a time, without loading them all.
    ///
    /// `body` may read and write through the same ``Objects``.
    public func forEach(
        _ entityName: String, where predicate: ObjectPredicate? = nil, orderBy: [ObjectSort] = [], limit: Int? = nil,
        offset: Int? = nil, _ body: (DynamicObject) throws -> Void
    ) throws {
        // A statement of its own: a body that fetches the same objects must not reset this one mid-iteration.
        try forEach(entityName, where: predicate, orderBy: orderBy, limit: limit, offset: offset, cached: false, body)
    }

    private func forEach(
        _ entityName: String, where predicate: ObjectPredicate?, orderBy: [ObjectSort], limit: Int?, offset: Int?,
        cached: Bool, _ body: (DynamicObject) throws -> Void
    ) throws {
        let entity = try entity(entityName)
        if layout.hierarchy(entity.name) != nil {
            return try forEachInHierarchy(
                entity, where: predicate, orderBy: orderBy, limit: limit, offset: offset, body)
        }
        let columns = entity.attributes.map { layout.column(entity.name, $0.name) }
        let (sql, arguments) = try selectSQL(
            entity, columns: columns, where: predicate, orderBy: orderBy, limit: limit, offset: offset)
        recordRead(entity.name)
        let statement = cached ? try db.cachedStatement(.read, sql) : try db.makeStatement(.read, sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        while try statement.step() { try body(try object(from: statement, entity: entity)) }
    }

    /// The object of an entity with this identifier, or nil.
    public func object(_ entityName: String, id: Int64) throws -> DynamicObject? {
        try fetch(entityName, where: .equal(StoreLayout.idColumn, .int(id)), limit: 1).first
    }

    /// The object of an entity whose primary key attribute has this value, or nil.
    ///
    /// - Throws: ``MoltError`` when the entity declares no primary key.
    public func object(_ entityName: String, primaryKey: Value) throws -> DynamicObject? {
        let entity = try entity(entityName)
        guard let key = entity.primaryKey else {
            throw MoltError(
                .invalidValue,
                "Entity '\(entity.name)' declares no primary key; fetch it with `object(_:id:)` or a predicate.",
                entity: entity.name)
        }
        return try fetch(entityName, where: .equal(key, primaryKey), limit: 1).first
    }

    /// The number of objects of an entity that match a predicate (all of them without one).
    public func count(_ entityName: String, where predicate: ObjectPredicate? = nil) throws -> Int {
        let entity = try entity(entityName)
        recordRead(entity.name)
        let (filter, arguments) = try whereClause(predicate, for: entity)
        return Int(try db.fetchInt("SELECT COUNT(*) FROM \(layout.table(entity.name))\(filter)", arguments) ?? 0)
    }
}
