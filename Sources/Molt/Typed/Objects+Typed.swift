import Foundation

/// Typed access: insert, save, fetch, count and delete ``PersistentModel`` values.
///
/// Values go column by column between the model and the store's prepared statements, through the same value
/// codec as the dynamic API, with no dictionary per object; the dynamic API and the typed API can be mixed in
/// one transaction.
///
/// ```swift
/// try store.write { objects in
///     let milk = try objects.insert(Note(title: "Milk", count: 2))
///     var bread = try objects.insert(Note(title: "Bread"))
///     bread.count = 5
///     try objects.save(bread)
///     let many = try objects.fetch(Note.self, where: \.count > 1, orderBy: [.descending(\.count)], limit: 10)
/// }
/// ```
extension Objects {
    /// The store's entity for a model type, checked against the model's: same attributes (names, types,
    /// optionality) and to-one relationships, in the same order.
    func typedEntity<M: PersistentModel>(_ type: M.Type, fix: String? = nil) throws -> Entity {
        let model = M.entity
        let fix = fix ?? "open the store with the schema that '\(M.self)' belongs to."
        // A model of a sub-entity repeats its parents' stored properties first: it is compared with the entity
        // as its objects are.
        guard let stored = schema.effectiveEntity(named: model.name) else {
            throw MoltError(
                .invalidValue, "Schema version \(schema.version) has no entity '\(model.name)'; \(fix)",
                entity: model.name)
        }
        let matches =
            stored.attributes.count == model.attributes.count
            && zip(stored.attributes, model.attributes).allSatisfy {
                $0.name == $1.name && $0.type == $1.type && $0.isOptional == $1.isOptional
            }
            && stored.relationships.filter { $0.kind == .toOne }.map(\.name)
                == model.relationships.filter { $0.kind == .toOne }.map(\.name)
        guard matches else {
            var modelSchema = schema
            modelSchema.entities = schema.entities.map { $0.name == model.name ? model : $0 }
            let changes = SchemaDiff(from: schema, to: modelSchema).changes.map { "- \($0)" }.joined(separator: "\n")
            throw MoltError(
                .invalidValue,
                "The model '\(M.self)' does not match entity '\(model.name)' of the store's schema version \(schema.version):\n\(changes)\n\(fix.prefix(1).uppercased() + fix.dropFirst())",
                entity: model.name)
        }
        return stored
    }

    // MARK: - Writing

    /// Inserts a model and returns it with its ``PersistentModel/persistentID``.
    ///
    /// To-one relationships are linked, and their inverses kept in step.
    ///
    /// ```swift
    /// let note = try objects.insert(Note(title: "Milk"))
    /// print(note.persistentID!)
    /// ```
    ///
    /// - Throws: ``MoltError`` when the store's schema does not have the model's entity, or a constraint is
    ///   violated.
    @discardableResult
    public func insert<M: PersistentModel>(_ model: M) throws -> M {
        try requireWritable()
        let plan = try TypedInsertPlan.of(M.self, in: self)
        let entity = plan.entity
        try requireConcrete(entity)
        let statement = try db.cachedStatement(
            .insert(into: layout.physicalTable(entity.name), explicitID: false), plan.insertSQL)
        statement.reset()
        var columns = ModelColumns(statement: statement, attributeCount: entity.attributes.count, dialect: dialect)
        model.encode(to: &columns)
        try refuseUnstorable(columns, entity: entity)
        try checkLinkedObjectsExist(of: model, entity: entity)
        try willWrite(entity.name, properties: nil, links: .keeps)
        var inserted = model
        let id = try statement.insert([])
        didInsertObject(entity.name, id: id)
        inserted.persistentID = id
        observer?.didInsert(entity.name, count: 1)
        try linkInversesOfInsert(plan, id: id, entity: entity, targets: columns.toOneIDs)
        return inserted
    }

    /// Inserts models in order and returns them with their identifiers.
    @discardableResult
    public func insert<M: PersistentModel>(contentsOf models: some Sequence<M>) throws -> [M] {
        try models.map { try insert($0) }
    }

    /// Writes a model's values back to its object.
    ///
    /// ```swift
    /// var note = try objects.fetch(Note.self, where: \.title == "Milk")[0]
    /// note.count += 1
    /// try objects.save(note)
    /// ```
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/objectNotFound`` when the model was never inserted or
    ///   its object was deleted.
    public func save<M: PersistentModel>(_ model: M) throws {
        try requireWritable()
        let entity = try typedEntity(M.self)
        guard let id = model.persistentID else {
            throw MoltError(
                .objectNotFound, "This '\(entity.name)' value was never inserted; insert it instead of saving it.",
                entity: entity.name)
        }
        let previous =
            try M.toOneRelationships.contains { $0.inverse != nil }
            ? M.toOneRelationships.map { try destinationIDs(entity: entity, relationship: $0, of: id).first } : nil
        let statement = try db.cachedStatement(.update, TypedSQL.of(M.self, in: layout).update)
        statement.reset()
        var columns = ModelColumns(statement: statement, attributeCount: entity.attributes.count, dialect: dialect)
        model.encode(to: &columns)
        try refuseUnstorable(columns, entity: entity)
        columns.appendValue(.int(id))
        if let failure = columns.failure { throw failure }
        try checkLinkedObjectsExist(of: model, entity: entity)
        try willWrite(
            entity.name, properties: entity.attributes.map(\.name) + M.toOneRelationships.map(\.name),
            links: .mayEmpty([id]))
        guard try statement.execute([]) == 1 else {
            throw MoltError(
                .objectNotFound, "No '\(entity.name)' object has _id \(id); it was deleted.", entity: entity.name)
        }
        observer?.didUpdate(entity.name, id: id)
        try linkInverses(of: model, entity: entity, previous: previous)
    }

    /// Refuses what cannot be stored, with the dynamic API's messages: a link to a value never inserted, a value the
    /// engine cannot hold (PostgreSQL: text with a NUL), a NaN (SQLite would store it as null); then any other
    /// value the statement could not take.
    func refuseUnstorable(_ columns: ModelColumns, entity: Entity) throws {
        if let (column, destination) = columns.uninserted {
            let toOne = entity.relationships.filter { $0.kind == .toOne }
            let index = column - entity.attributes.count
            let name = toOne.indices.contains(index) ? toOne[index].name : "a to-one relationship"
            throw MoltError(
                .objectNotFound,
                "Relationship '\(entity.name).\(name)' points to a '\(destination)' value that was never inserted (its persistentID is nil), so it would be stored empty. Insert the '\(destination)' first and link the value `insert` returned.",
                entity: entity.name, property: name)
        }
        if let (index, reason) = columns.unstorable, index < entity.attributes.count, index < columns.nanColumn ?? .max
        {
            throw Self.unstorable(entity: entity.name, attribute: entity.attributes[index].name, reason: reason)
        }
        guard let index = columns.nanColumn, index < entity.attributes.count else {
            if let failure = columns.failure { throw failure }
            return
        }
        let attribute = entity.attributes[index]
        throw MoltError(
            .invalidValue,
            "Attribute '\(entity.name).\(attribute.name)' holds \(attribute.type.rawValue) values, not nan.",
            entity: entity.name, property: attribute.name)
    }

    /// In a migration stage, where references are not enforced until the end, a to-one relationship to an
    /// object that is not in the store would be swept to nil: refuse it now, naming it.
    func checkLinkedObjectsExist<M: PersistentModel>(of model: M, entity: Entity) throws {
        guard observer != nil, !M.toOneRelationships.isEmpty else { return }
        let values = model.encodedValues
        for (offset, relationship) in M.toOneRelationships.enumerated() {
            guard let target = values[M.entity.attributes.count + offset].int else { continue }
            try requireExists(relationship.destination, id: target, linkedBy: "\(entity.name).\(relationship.name)")
        }
    }

    /// Links the inverse side of a newly inserted object's to-one relationships: its own column was written by
    /// the insert, so only the destination's side changes — one cached statement each (a join-table row, or,
    /// for a one-to-one, the destination's column and the release of its previous source).
    func linkInversesOfInsert(_ plan: TypedInsertPlan, id: Int64, entity: Entity, targets: [Int64?]) throws {
        for step in plan.inverses {
            guard step.offset < targets.count, let target = targets[step.offset] else { continue }
            if step.inverse.kind == .toOne {
                // The destination pointed back at another object, which must let go of it (one to one).
                let column = layout.column(entity.name, step.relationship.name)
                try willWrite(entity.name, properties: [step.relationship.name])
                try db.cachedStatement(
                    .update,
                    "UPDATE \(layout.table(entity.name)) SET \(column) = NULL WHERE \(column) = ? AND \(idColumn) <> ?"
                )
                .execute([.int(target), .int(id)])
            }
            let sql = step.linkSQL ?? linkSQL(entity: step.destination, relationship: step.inverse)
            try rawLink(entity: step.destination, relationship: step.inverse, sql: sql, target, id)
        }
    }

    /// Keeps the inverse side of to-one relationships in step after their column was written by a save.
    func linkInverses<M: PersistentModel>(of model: M, entity: Entity, previous: [Int64?]?) throws {
        let relationships = M.toOneRelationships
        guard relationships.contains(where: { $0.inverse != nil }), let id = model.persistentID else { return }
        let values = model.encodedValues
        let object = DynamicObject(entity: entity.name, id: id, values: [:])
        for (offset, relationship) in relationships.enumerated() where relationship.inverse != nil {
            let target = values[M.entity.attributes.count + offset].int
            let old = previous?[offset] ?? nil
            guard target != old || previous == nil else { continue }
            guard let target else {
                // The column is already null: put the old link back and let `set` unlink both sides.
                if let old {
                    try db.cachedStatement(
                        .update,
                        "UPDATE \(layout.table(entity.name)) SET \(layout.column(entity.name, relationship.name)) = ? WHERE \(idColumn) = ?"
                    ).execute([.int(old), .int(id)])
                    try set(relationship.name, of: object, to: nil as DynamicObject?)
                }
                continue
            }
            // Put the previous link back so that `set` unlinks it and its inverse, then links the new one.
            try db.cachedStatement(
                .update,
                "UPDATE \(layout.table(entity.name)) SET \(layout.column(entity.name, relationship.name)) = ? WHERE \(idColumn) = ?"
            ).execute([old.map(Value.int) ?? .null, .int(id)])
            try set(
                relationship.name, of: object,
                to: DynamicObject(entity: relationship.destination, id: target, values: [:]))
        }
    }

    /// Deletes a model's object, applying the delete rules of its relationships.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/constraintViolation`` when a deny rule applies.
    public func delete<M: PersistentModel>(_ model: M) throws {
        guard let id = model.persistentID else { return }
        try delete(DynamicObject(entity: M.entity.name, id: id, values: [:]))
    }

    /// Deletes every object of a model type that matches a predicate (all of them without one).
    ///
    /// One `DELETE` statement when no relationship of the entity has the cascade rule (the database unlinks what
    /// pointed to the deleted objects), after one query per deny rule that refuses the deletion, deleting nothing,
    /// when an object still has destinations there; with a cascade rule, one object at a time.
    ///
    /// - Returns: The number of objects deleted, not counting cascades.
    @discardableResult
    public func deleteAll<M: PersistentModel>(_ type: M.Type, where predicate: ModelPredicate<M>? = nil) throws -> Int {
        _ = try typedEntity(M.self)
        return try deleteAll(M.entity.name, where: try predicate?.predicate())
    }

    // MARK: - Reading

    /// Fetches the models that match a predicate, sorted, limited; in insertion order without a sort.
    ///
    /// ```swift
    /// let notes = try objects.fetch(Note.self, where: .contains(\.title, "milk") || \.count >= 3,
    ///                               orderBy: [.ascending(\.title)], limit: 20)
    /// ```
    ///
    /// - Throws: ``MoltError`` when a key path is not stored, or the store's schema does not match the model.
    @inlinable
    public func fetch<M: PersistentModel>(
        _ type: M.Type, where predicate: ModelPredicate<M>? = nil, orderBy: [ModelSort<M>] = [], limit: Int? = nil,
        offset: Int? = nil
    ) throws -> [M] {
        // Inlined, so that the app appends its own models to an array of its own type, with no generic code
        // per row. Appending never re-enters the store, so the cached statement can serve.
        var result: [M] = []
        try forEachModel(type, where: predicate, orderBy: orderBy, limit: limit, offset: offset, cached: true) {
            result.append($0)
        }
        return result
    }

    /// Calls `body` with each matching model, one at a time, without loading them all.
    ///
    /// `body` may read and write through the same ``Objects``, fetches of the same model included.
    public func forEach<M: PersistentModel>(
        _ type: M.Type, where predicate: ModelPredicate<M>? = nil, orderBy: [ModelSort<M>] = [], limit: Int? = nil,
        offset: Int? = nil, _ body: (M) throws -> Void
    ) throws {
        // A statement of its own: a body that fetches the same model must not reset this one mid-iteration.
        try forEachModel(type, where: predicate, orderBy: orderBy, limit: limit, offset: offset, cached: false, body)
    }

    @usableFromInline
    func forEachModel<M: PersistentModel>(
        _ type: M.Type, where predicate: ModelPredicate<M>?, orderBy: [ModelSort<M>], limit: Int?, offset: Int?,
        cached: Bool, _ body: (M) throws -> Void
    ) throws {
        let entity = try typedEntity(M.self)
        var sql = TypedSQL.of(M.self, in: layout).select
        let (filter, arguments) = try whereClause(try predicate?.predicate(), for: entity)
        sql += filter
        let sorts = try orderBy.map { try $0.compiled.get() }
        sql +=
            " ORDER BY "
            + (sorts.isEmpty
                ? idColumn
                : sorts.map { "\(layout.column(entity.name, $0.attribute)) \($0.isAscending ? "ASC" : "DESC")" }.joined(
                    separator: ", "))
        sql += dialect.limitClause(limit: limit, offset: offset)
        recordRead(entity.name)
        let statement = cached ? try db.cachedStatement(.read, sql) : try db.makeStatement(.read, sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        let source = ModelRow.Source(entity, reader: statement.rowReader())
        while try statement.step() {
            try body(M(row: ModelRow(reading: source)))
        }
    }

    /// The model whose object has this identifier, or nil.
    public func model<M: PersistentModel>(_ type: M.Type, id: Int64) throws -> M? {
        try fetch(type, where: .dynamic(.equal(StoreLayout.idColumn, .int(id))), limit: 1).first
    }

    /// The entity of the object `model` was read as: in a hierarchy, its own entity, which may be a sub-entity of
    /// the model's (a `Car` fetched from the parent may be a `SportCar`), as SwiftData's `as?` tells a subclass.
    /// Read it as that entity's model with ``model(_:id:)``:
    ///
    /// ```swift
    /// for car in try objects.fetch(Car.self) where try objects.entityName(of: car) == "SportCar" {
    ///     let sport = try objects.model(SportCar.self, id: car.persistentID!)!
    ///     print(sport.topSpeed)
    /// }
    /// ```
    ///
    /// - Returns: The entity's name, or nil for a model not inserted (or deleted since).
    public func entityName<M: PersistentModel>(of model: M) throws -> String? {
        let entity = try typedEntity(M.self)
        guard let id = model.persistentID else { return nil }
        recordRead(entity.name)
        let table = layout.table(entity.name)
        guard layout.hierarchy(entity.name) != nil else {
            return try db.fetchInt("SELECT COUNT(*) FROM \(table) WHERE \(idColumn) = ?", [.int(id)]) == 1
                ? entity.name : nil
        }
        let (condition, arguments) = try condition(nil, for: entity)
        return try db.fetchRows(
            "SELECT \(dialect.quote(StoreLayout.entityColumn)) FROM \(table) WHERE \(idColumn) = ? AND \(condition)",
            [.int(id)] + arguments, types: [.string]
        ).first?.first?.string
    }

    /// The model whose primary key attribute has this value, or nil.
    ///
    /// - Throws: ``MoltError`` when the entity declares no primary key.
    public func model<M: PersistentModel, K: PersistentValue>(_ type: M.Type, primaryKey: K) throws -> M? {
        guard let key = M.entity.primaryKey else {
            throw MoltError(
                .invalidValue,
                "Entity '\(M.entity.name)' declares no primary key; fetch it with `model(_:id:)` or a predicate.",
                entity: M.entity.name)
        }
        return try fetch(type, where: .dynamic(.equal(key, primaryKey.moltValue)), limit: 1).first
    }

    /// The number of objects of a model type that match a predicate (all of them without one).
    public func count<M: PersistentModel>(_ type: M.Type, where predicate: ModelPredicate<M>? = nil) throws -> Int {
        _ = try typedEntity(M.self)
        return try count(M.entity.name, where: try predicate?.predicate())
    }

    /// Reads a dynamic object of a model's entity as the model, with its to-one relationships.
    ///
    /// ```swift
    /// let note = try objects.model(Note.self, from: dynamicNote)
    /// ```
    public func model<M: PersistentModel>(_ type: M.Type, from object: DynamicObject) throws -> M {
        let entity = try typedEntity(M.self)
        let ids = try M.toOneRelationships.map { relationship -> Int64? in
            guard let id = object.id else { return nil }
            return try destinationIDs(entity: entity, relationship: relationship, of: id).first
        }
        return try M.decode(object, toOneIDs: ids)
    }
}
