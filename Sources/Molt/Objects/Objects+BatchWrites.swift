/// Writes of many objects in one statement: an update by predicate, and an insert-or-update by a unique
/// attribute. Both check every value against its attribute first, as ``Objects/insert(_:_:)`` does, and
/// observations of the entity see them at the commit like any other write.
extension Objects {
    /// Sets the same values on every object of an entity that matches a predicate (all of them without one), in
    /// one statement.
    ///
    /// ```swift
    /// let archived = try objects.updateAll("Note", where: .less("created", .date(cutoff)), set: ["archived": true])
    /// ```
    ///
    /// - Returns: How many objects were updated.
    /// - Throws: ``MoltError`` when a value does not fit its attribute (nothing is written), or when the update
    ///   would give two objects the same value of a unique attribute (the transaction is rolled back).
    @discardableResult
    public func updateAll(
        _ entityName: String, where predicate: ObjectPredicate? = nil, set values: [String: Value]
    )
        throws -> Int
    {
        try requireWritable()
        let entity = try entity(entityName)
        let checked = try checkedValues(values, for: entity, applyingDefaults: false)
        guard !checked.isEmpty else { return 0 }
        let (condition, conditionArguments) = try condition(predicate, for: entity)
        // A stage learns which objects its new side wrote (its old side must not read them as old).
        let staged =
            observer == nil
            ? []
            : try db.fetchInts(
                "SELECT \(idColumn) FROM \(layout.table(entity.name)) WHERE \(condition)", conditionArguments)
        let assignments = checked.map { "\(layout.column(entity.name, $0.0.name)) = ?" }.joined(separator: ", ")
        try willWrite(entity.name, properties: checked.map(\.0.name))
        let count = try db.execute(
            .update, "UPDATE \(layout.table(entity.name)) SET \(assignments) WHERE \(condition)",
            checked.map(\.1) + conditionArguments)
        for id in staged { observer?.didUpdate(entity.name, id: id) }
        return count
    }

    /// Inserts an object, or updates the object that already has its value of a unique attribute, in one
    /// statement (`INSERT … ON CONFLICT … DO UPDATE`): the values given replace the stored ones; attributes not
    /// given keep theirs (or take their default, for a new object).
    ///
    /// ```swift
    /// let tag = try objects.upsert("Tag", ["label": "red", "color": "#f00"], uniqueBy: "label")
    /// ```
    ///
    /// - Returns: The object as written, with its identifier.
    /// - Throws: ``MoltError`` when `attribute` is not unique on its own (declare `Index([attribute], unique:
    ///   true)` or make it the primary key), when `values` has no value for it, or when a value does not fit.
    @discardableResult
    public func upsert(
        _ entityName: String, _ values: [String: Value], uniqueBy attribute: String
    ) throws
        -> DynamicObject
    {
        try requireWritable()
        let entity = try entity(entityName)
        try requireUniqueKey(attribute, of: entity, in: values)
        let checked = try checkedValues(values, for: entity, applyingDefaults: true)
        let key = layout.column(entity.name, attribute)
        let columns = checked.map { layout.column(entity.name, $0.0.name) }
        let given = checked.filter { values[$0.0.name] != nil && $0.0.name != attribute }
        let updates = given.isEmpty ? [key] : given.map { layout.column(entity.name, $0.0.name) }
        let sql = """
            INSERT INTO \(layout.table(entity.name)) (\(columns.joined(separator: ", "))) \
            VALUES (\(columns.map { _ in "?" }.joined(separator: ", "))) \
            ON CONFLICT (\(key)) DO UPDATE SET \(updates.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")) \
            RETURNING \(idColumn)
            """
        let existing =
            observer == nil
            ? nil
            : try db.fetchInt(
                "SELECT \(idColumn) FROM \(layout.table(entity.name)) WHERE \(key) = ?", [values[attribute]!])
        try willWrite(entity.name, properties: nil, links: .keeps)
        let statement = try db.cachedStatement(
            .insert(into: layout.physicalTable(entity.name), explicitID: false), sql)
        try statement.bind(checked.map(\.1))
        defer { statement.reset() }
        guard try statement.step() else {
            throw MoltError(
                .invalidValue, "The upsert of a '\(entity.name)' object returned no identifier.", entity: entity.name)
        }
        let id = statement.int64(0)
        didInsertObject(entity.name, id: id)
        if let existing {
            observer?.didUpdate(entity.name, id: existing)
        } else {
            observer?.didInsert(entity.name, count: 1)
        }
        return DynamicObject(
            entity: entity.name, id: id,
            values: Dictionary(uniqueKeysWithValues: checked.map { ($0.0.name, $0.1) }))
    }

    /// Throws unless `attribute` is unique on its own in `entity` and `values` gives it.
    private func requireUniqueKey(_ attribute: String, of entity: Entity, in values: [String: Value]) throws {
        try requireUniqueKey(attribute, of: entity)
        try requireKeyValue(values[attribute], of: attribute, in: entity)
    }

    /// Throws unless `attribute` is unique on its own in `entity`, naming the fix.
    func requireUniqueKey(_ attribute: String, of entity: Entity) throws {
        guard entity.attribute(named: attribute) != nil else {
            throw MoltError(
                .invalidValue, "Entity '\(entity.name)' has no attribute '\(attribute)' to upsert by.",
                entity: entity.name, property: attribute)
        }
        let unique =
            entity.primaryKey == attribute || entity.indexes.contains { $0.isUnique && $0.attributes == [attribute] }
        guard unique else {
            throw MoltError(
                .invalidValue,
                "'\(entity.name).\(attribute)' is not unique on its own, so an upsert cannot tell which object it means; declare `Index([\"\(attribute)\"], unique: true)` on '\(entity.name)' (a new schema version), or upsert by a unique attribute.",
                entity: entity.name, property: attribute)
        }
    }

    /// Throws unless `key`, the value of an upsert's unique attribute, is given and not null.
    func requireKeyValue(_ key: Value?, of attribute: String, in entity: Entity) throws {
        guard let key, key != .null else {
            throw MoltError(
                .invalidValue,
                "An upsert of '\(entity.name)' needs a value of '\(attribute)' to find the object by; add it to the values.",
                entity: entity.name, property: attribute)
        }
    }
}
