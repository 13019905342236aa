/// A value to set on every model an update matches, by key path (`Objects.updateAll(_:where:set:)`).
///
/// ```swift
/// try objects.updateAll(Note.self, where: \.pinned == true, set: [.set(\.count, to: 0), .set(\.subtitle, to: nil)])
/// ```
public struct ModelAssignment<Model: PersistentModel>: Sendable {
    let compiled: Result<(String, Value), MoltError>

    /// Sets the stored property at `keyPath` to `value`.
    public static func set<V: PersistentValue>(_ keyPath: KeyPath<Model, V>, to value: V) -> ModelAssignment {
        ModelAssignment(compiled: Result { () throws(MoltError) in (try Model.storedName(keyPath), value.moltValue) })
    }
}

extension Objects {
    /// Sets the same values on every model of a type that matches a predicate (all of them without one), in one
    /// statement; the dynamic form takes an entity name and a dictionary of values.
    ///
    /// ```swift
    /// let archived = try objects.updateAll(Note.self, where: \.created < cutoff, set: [.set(\.archived, to: true)])
    /// ```
    ///
    /// - Returns: How many models were updated.
    /// - Throws: ``MoltError`` when a key path names no stored property, a value does not fit its attribute
    ///   (nothing is written), or the update would give two objects the same value of a unique attribute.
    @discardableResult
    public func updateAll<M: PersistentModel>(
        _ type: M.Type, where predicate: ModelPredicate<M>? = nil, set assignments: [ModelAssignment<M>]
    ) throws -> Int {
        _ = try typedEntity(M.self)
        var values: [String: Value] = [:]
        for assignment in assignments {
            let (name, value) = try assignment.compiled.get()
            values[name] = value
        }
        return try updateAll(M.entity.name, where: try predicate?.predicate(), set: values)
    }
}

extension Objects {
    /// Inserts a model, or updates the object that already has its primary key, in one statement
    /// (`INSERT … ON CONFLICT … DO UPDATE`), and returns the model with its identifier.
    ///
    /// Every stored property of the model replaces the stored one, as ``save(_:)`` does; the object keeps its
    /// identifier. The model's own ``PersistentModel/persistentID`` is not used to find the object.
    ///
    /// ```swift
    /// let note = try objects.upsert(Note(uuid: id, title: "Milk", created: .now))
    /// print(note.persistentID!)   // the same identifier the next time this uuid is upserted
    /// ```
    ///
    /// - Returns: The model with the ``PersistentModel/persistentID`` of the object written.
    /// - Throws: ``MoltError`` when the entity declares no primary key (upsert by a unique attribute with
    ///   ``upsert(_:uniqueBy:)``), when a value does not fit, or another unique attribute clashes.
    @discardableResult
    public func upsert<M: PersistentModel>(_ model: M) throws -> M {
        guard let key = M.entity.primaryKey else {
            throw MoltError(
                .invalidValue,
                "Entity '\(M.entity.name)' declares no primary key, so an upsert cannot tell which object a '\(M.self)' value means; upsert by a unique attribute with `upsert(_:uniqueBy:)`, or declare one with `@Attribute(.primaryKey)` (a new schema version).",
                entity: M.entity.name)
        }
        return try upsert(model, by: key)
    }

    /// Inserts a model, or updates the object that already has its value of a unique attribute, in one
    /// statement (`INSERT … ON CONFLICT … DO UPDATE`), and returns the model with its identifier.
    ///
    /// The identifier of an updated object is read by its key after the statement on SQLite, where
    /// `RETURNING` would double the cost of every upsert; PostgreSQL returns it with the statement.
    ///
    /// ```swift
    /// let folder = try objects.upsert(Folder(name: "Inbox"), uniqueBy: \.name)
    /// ```
    ///
    /// - Parameters:
    ///   - model: The values to write: every stored property replaces the stored one.
    ///   - keyPath: A stored property that is unique on its own (the primary key, or an attribute with a unique
    ///     index of its own).
    /// - Returns: The model with the ``PersistentModel/persistentID`` of the object written.
    /// - Throws: ``MoltError`` when `keyPath` is not a stored attribute, is not unique on its own, or holds nil,
    ///   when a value does not fit, or another unique attribute clashes.
    @discardableResult
    public func upsert<M: PersistentModel, V: PersistentValue>(
        _ model: M, uniqueBy keyPath: KeyPath<M, V>
    ) throws
        -> M
    {
        try upsert(model, by: try M.storedName(keyPath))
    }

    private func upsert<M: PersistentModel>(_ model: M, by attribute: String) throws -> M {
        try requireWritable()
        let upsert = try upsertPlan(M.self, by: attribute)
        let (plan, entity) = (upsert.insert, upsert.insert.entity)
        let statement = try db.cachedStatement(
            .insert(into: layout.physicalTable(entity.name), explicitID: false), upsert.sql)
        statement.reset()
        var columns = ModelColumns(statement: statement, attributeCount: entity.attributes.count, dialect: dialect)
        columns.keyColumn = upsert.keyColumn
        model.encode(to: &columns)
        try requireKeyValue(columns.keyValue, of: attribute, in: entity)
        try refuseUnstorable(columns, entity: entity)
        try checkLinkedObjectsExist(of: model, entity: entity)
        // Which object the key finds, and where its to-ones pointed, only when a stage or an inverse needs them.
        let existing =
            observer == nil && plan.inverses.isEmpty ? nil : try objectID(by: upsert, key: columns.keyValue)
        let previous = try existing.flatMap { id in
            plan.inverses.isEmpty
                ? nil
                : try M.toOneRelationships.map { try destinationIDs(entity: entity, relationship: $0, of: id).first }
        }
        try willWrite(entity.name, properties: nil, links: .keeps)
        defer { statement.reset() }
        let inserted = try statement.insertOrUpdate()
        guard let id = try inserted ?? existing ?? objectID(by: upsert, key: columns.keyValue) else {
            throw MoltError(
                .invalidValue, "The upsert of a '\(entity.name)' object wrote no object.", entity: entity.name)
        }
        var written = model
        written.persistentID = id
        didInsertObject(entity.name, id: id)
        if let existing {
            observer?.didUpdate(entity.name, id: existing)
            try linkInverses(of: written, entity: entity, previous: previous)
        } else {
            observer?.didInsert(entity.name, count: 1)
            try linkInversesOfInsert(plan, id: written.persistentID!, entity: entity, targets: columns.toOneIDs)
        }
        return written
    }

    /// The identifier of the object whose unique key is `key`, through a cached statement.
    private func objectID(by plan: TypedUpsertPlan, key: Value?) throws -> Int64? {
        let statement = try db.cachedStatement(.read, plan.lookupSQL)
        try statement.bind([key ?? .null])
        defer { statement.reset() }
        return try statement.step() ? statement.int64(0) : nil
    }

    /// The plan of an upsert of a model type by `attribute`: its insert plan, the key checked unique, and
    /// `INSERT … ON CONFLICT (key) DO UPDATE SET every other column`; worked out once per type,
    /// key, engine and schema value for a store's own layout, since an upsert runs once per object.
    private func upsertPlan<M: PersistentModel>(_ type: M.Type, by attribute: String) throws -> TypedUpsertPlan {
        let standard = layoutSource == nil && layout.isStandard(M.entity.name)
        let cacheKey = UpsertKey(model: ObjectIdentifier(type), attribute: attribute, engine: dialect.engine)
        let schemaID = schema.derived
        if standard, let cached = Self.upsertCache.withLock({ $0[cacheKey] }), cached.schema === schemaID {
            return cached.plan
        }
        let insert = try TypedInsertPlan.of(M.self, in: self)
        try requireUniqueKey(attribute, of: insert.entity)
        let names = M.entity.attributes.map(\.name) + M.toOneRelationships.map(\.name)
        let key = layout.column(M.entity.name, attribute)
        let others = names.filter { $0 != attribute }.map { layout.column(M.entity.name, $0) }
        let updates = (others.isEmpty ? [key] : others).map { "\($0) = excluded.\($0)" }
        let sql =
            TypedSQL.of(type, in: layout).insert
            + " ON CONFLICT (\(key)) DO UPDATE SET \(updates.joined(separator: ", "))"
        let plan = TypedUpsertPlan(
            insert: insert, sql: sql,
            lookupSQL: "SELECT \(idColumn) FROM \(layout.table(M.entity.name)) WHERE \(key) = ?",
            keyColumn: insert.entity.attributes.firstIndex { $0.name == attribute })
        if standard { Self.upsertCache.withLock { $0[cacheKey] = (schemaID, plan) } }
        return plan
    }

    private struct UpsertKey: Hashable {
        var model: ObjectIdentifier
        var attribute: String
        var engine: DatabaseEngine
    }
    private static let upsertCache = LockedValue<[UpsertKey: (schema: AnyObject, plan: TypedUpsertPlan)]>([:])
}

/// What an upsert of one model type by one attribute needs besides the values (see `Objects.upsertPlan`).
/// A class, so that taking it from the cache for each object copies one reference.
final class TypedUpsertPlan: Sendable {
    let insert: TypedInsertPlan
    /// `INSERT … ON CONFLICT (key) DO UPDATE SET every other column` (see ``SQLStatement/insertOrUpdate()``).
    let sql: String
    /// `SELECT _id … WHERE key = ?`: the object an upsert updated, or will.
    let lookupSQL: String
    /// The key attribute's column among the model's (``ModelColumns/keyColumn``).
    let keyColumn: Int?

    init(insert: TypedInsertPlan, sql: String, lookupSQL: String, keyColumn: Int?) {
        (self.insert, self.sql, self.lookupSQL, self.keyColumn) = (insert, sql, lookupSQL, keyColumn)
    }
}
