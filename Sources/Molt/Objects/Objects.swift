import GRDB

/// Reads and writes the objects of a store, by entity name: the dynamic API that migrations, the CLI and
/// generic tools use.
///
/// You get one from ``Store/read(_:)`` or ``Store/write(_:)``; it is valid only inside that closure.
///
/// ```swift
/// try store.write { objects in
///     let folder = try objects.insert("Folder", ["name": "Home"])
///     let note = try objects.insert("Note", ["text": "Milk"])
///     try objects.set("folder", of: note, to: folder)
///     print(try objects.count("Note", where: .contains("text", "Milk")))
/// }
/// ```
///
/// ## Topics
/// ### Writing
/// - ``insert(_:_:)``
/// - ``update(_:)``
/// - ``delete(_:)-(DynamicObject)``
/// - ``deleteAll(_:where:)-(String,_)``
/// ### Reading
/// - ``fetch(_:where:orderBy:limit:offset:)->[DynamicObject]``
/// - ``object(_:id:)``
/// - ``object(_:primaryKey:)``
/// - ``count(_:where:)-(String,_)``
/// - ``forEach(_:where:orderBy:limit:offset:_:)``
/// ### Relationships
/// - ``destination(_:of:)``
/// - ``destinations(_:of:)``
/// - ``set(_:of:to:)-(_,_,DynamicObject?)``
/// - ``add(_:to:of:)``
/// - ``remove(_:from:of:)``
public struct Objects {
    let db: Database
    /// The schema the objects follow.
    public let schema: Schema
    let isWritable: Bool
    let layout: StoreLayout
    /// Records the entities whose objects were deleted, where foreign keys are not enforced (in a migration).
    let deletionLog: DeletionLog?

    init(db: Database, schema: Schema, layout: StoreLayout? = nil, isWritable: Bool, deletionLog: DeletionLog? = nil) {
        self.db = db
        self.schema = schema
        self.layout = layout ?? .standard(schema)
        self.isWritable = isWritable
        self.deletionLog = deletionLog
    }

    func entity(_ name: String) throws -> Entity {
        guard let entity = schema.entity(named: name) else {
            throw MoltError(
                .invalidValue,
                "Schema version \(schema.version) has no entity '\(name)'; it has \(schema.entities.map(\.name).joined(separator: ", ")).",
                entity: name)
        }
        return entity
    }

    func requireWritable() throws {
        guard isWritable else {
            throw MoltError(.invalidValue, "This context is read-only: write inside `store.write { … }` (or on the new side of a migration stage).")
        }
    }

    /// The values to store for an object: every attribute checked against its type, defaults applied to
    /// missing values.
    func checkedValues(_ values: [String: Value], for entity: Entity, applyingDefaults: Bool) throws -> [(Attribute, Value)] {
        for key in values.keys where entity.attribute(named: key) == nil {
            throw MoltError(
                .invalidValue, "Entity '\(entity.name)' has no attribute '\(key)'; it has \(entity.attributes.map(\.name).joined(separator: ", ")).",
                entity: entity.name, property: key)
        }
        return try entity.attributes.map { attribute in
            // A missing value takes the default; an explicit `.null` stays null (and is refused if required).
            var value = values[attribute.name] ?? .null
            if values[attribute.name] == nil, applyingDefaults, let fallback = attribute.defaultValue { value = fallback }
            guard let checked = attribute.coerce(value) else {
                if value.isNull {
                    throw MoltError(
                        .invalidValue, "Attribute '\(entity.name).\(attribute.name)' is required; give it a value (or a default in the schema).",
                        entity: entity.name, property: attribute.name)
                }
                throw MoltError(
                    .invalidValue, "Attribute '\(entity.name).\(attribute.name)' holds \(attribute.type.rawValue) values, not \(value).",
                    entity: entity.name, property: attribute.name)
            }
            return (attribute, checked)
        }
    }

    // MARK: - Writing

    /// Inserts an object with these attribute values; missing values take the attribute's default.
    ///
    /// - Returns: The inserted object, with its identifier.
    /// - Throws: ``MoltError`` when a value does not fit its attribute, a required value is missing, or a
    ///   uniqueness constraint is violated.
    @discardableResult
    public func insert(_ entityName: String, _ values: [String: Value] = [:]) throws -> DynamicObject {
        try requireWritable()
        let entity = try entity(entityName)
        let checked = try checkedValues(values, for: entity, applyingDefaults: true)
        let fillers = layout.fillers(entity.name)
        let columns = (checked.map { layout.column(entity.name, $0.0.name) } + fillers.map { SchemaSQL.quote($0.column) })
            .joined(separator: ", ")
        let marks = (checked.map { _ in "?" } + fillers.map(\.literal)).joined(separator: ", ")
        let sql = columns.isEmpty
            ? "INSERT INTO \(layout.table(entity.name)) DEFAULT VALUES"
            : "INSERT INTO \(layout.table(entity.name)) (\(columns)) VALUES (\(marks))"
        try Store.mappingErrors {
            try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(checked.map(\.1.databaseValue)))
        }
        var result: [String: Value] = [:]
        for (attribute, value) in checked { result[attribute.name] = value }
        return DynamicObject(entity: entity.name, id: db.lastInsertedRowID, values: result)
    }

    /// Writes an object's attribute values back to the store.
    ///
    /// - Throws: ``MoltError`` when the object was never inserted or no longer exists, or a value does not fit.
    public func update(_ object: DynamicObject) throws {
        try requireWritable()
        let entity = try entity(object.entity)
        guard let id = object.id else {
            throw MoltError(.objectNotFound, "This '\(entity.name)' object was never inserted; insert it instead of updating it.", entity: entity.name)
        }
        let checked = try checkedValues(object.values, for: entity, applyingDefaults: false)
        guard !checked.isEmpty else { return }
        let assignments = checked.map { "\(layout.column(entity.name, $0.0.name)) = ?" }.joined(separator: ", ")
        try Store.mappingErrors {
            try db.execute(
                sql: "UPDATE \(layout.table(entity.name)) SET \(assignments) WHERE \(SchemaSQL.quote(SchemaSQL.idColumn)) = ?",
                arguments: StatementArguments(checked.map(\.1.databaseValue) + [id.databaseValue]))
        }
        guard db.changesCount == 1 else {
            throw MoltError(.objectNotFound, "No '\(entity.name)' object has _id \(id); it was deleted.", entity: entity.name)
        }
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
                throw MoltError(
                    .constraintViolation,
                    "Cannot delete '\(entity.name)' _id \(id): its relationship '\(relationship.name)' has the delete rule deny and still points to \(targets.count) object(s). Remove them first.",
                    entity: entity.name, property: relationship.name)
            case .deny: continue
            case .cascade:
                let destination = try self.entity(relationship.destination)
                for target in targets { try delete(entity: destination, id: target, visited: &visited) }
            }
        }
        try db.execute(
            sql: "DELETE FROM \(layout.table(entity.name)) WHERE \(SchemaSQL.quote(SchemaSQL.idColumn)) = ?", arguments: [id])
        deletionLog?.entities.insert(entity.name)
    }

    /// Deletes every object of an entity that matches a predicate (all of them without one), applying delete
    /// rules.
    ///
    /// - Returns: The number of objects deleted, not counting cascades.
    @discardableResult
    public func deleteAll(_ entityName: String, where predicate: Predicate? = nil) throws -> Int {
        try requireWritable()
        let entity = try entity(entityName)
        let (condition, arguments) = try predicate?.sql(for: entity, layout: layout) ?? ("1", [])
        if entity.relationships.allSatisfy({ $0.deleteRule == .nullify }) {
            // Nullify only: one statement; foreign keys (or, in a migration stage, the sweep at its end) unlink.
            try db.execute(
                sql: "DELETE FROM \(layout.table(entity.name)) WHERE \(condition)",
                arguments: StatementArguments(arguments.map(\.databaseValue)))
            let count = db.changesCount
            if count > 0 { deletionLog?.entities.insert(entity.name) }
            return count
        }
        let ids = try Int64.fetchAll(
            db, sql: "SELECT \(SchemaSQL.quote(SchemaSQL.idColumn)) FROM \(layout.table(entity.name)) WHERE \(condition)",
            arguments: StatementArguments(arguments.map(\.databaseValue)))
        var visited: Set<String> = []
        for id in ids { try delete(entity: entity, id: id, visited: &visited) }
        return ids.count
    }

    // MARK: - Reading

    func selectSQL(_ entity: Entity, where predicate: Predicate?, orderBy: [SortDescriptor], limit: Int?, offset: Int?) throws -> (String, StatementArguments) {
        let columns = ([SchemaSQL.quote(SchemaSQL.idColumn)] + entity.attributes.map { layout.column(entity.name, $0.name) })
            .joined(separator: ", ")
        var sql = "SELECT \(columns) FROM \(layout.table(entity.name))"
        var arguments: [Value] = []
        if let predicate {
            let (condition, values) = try predicate.sql(for: entity, layout: layout)
            sql += " WHERE \(condition)"
            arguments = values
        }
        if !orderBy.isEmpty {
            for sort in orderBy where entity.attribute(named: sort.attribute) == nil && sort.attribute != SchemaSQL.idColumn {
                throw MoltError(.invalidValue, "Entity '\(entity.name)' has no attribute '\(sort.attribute)' to sort by.", entity: entity.name, property: sort.attribute)
            }
            sql += " ORDER BY " + orderBy.map { "\(layout.column(entity.name, $0.attribute)) \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", ")
        } else {
            sql += " ORDER BY \(SchemaSQL.quote(SchemaSQL.idColumn))"
        }
        if let limit { sql += " LIMIT \(limit)" }
        if let offset { sql += limit == nil ? " LIMIT -1 OFFSET \(offset)" : " OFFSET \(offset)" }
        return (sql, StatementArguments(arguments.map(\.databaseValue)))
    }

    static func object(from row: Row, entity: Entity) -> DynamicObject {
        var values: [String: Value] = [:]
        values.reserveCapacity(entity.attributes.count)
        for (index, attribute) in entity.attributes.enumerated() {
            values[attribute.name] = Value(row[index + 1] as DatabaseValue, as: attribute.type)
        }
        return DynamicObject(entity: entity.name, id: row[0], values: values)
    }

    /// Fetches the objects of an entity that match a predicate, sorted, limited.
    ///
    /// Without a sort, objects come in insertion order.
    public func fetch(
        _ entityName: String, where predicate: Predicate? = nil, orderBy: [SortDescriptor] = [], limit: Int? = nil,
        offset: Int? = nil
    ) throws -> [DynamicObject] {
        var result: [DynamicObject] = []
        try forEach(entityName, where: predicate, orderBy: orderBy, limit: limit, offset: offset) { result.append($0) }
        return result
    }

    /// Calls `body` with each matching object, one at a time, without loading them all.
    public func forEach(
        _ entityName: String, where predicate: Predicate? = nil, orderBy: [SortDescriptor] = [], limit: Int? = nil,
        offset: Int? = nil, _ body: (DynamicObject) throws -> Void
    ) throws {
        let entity = try entity(entityName)
        let (sql, arguments) = try selectSQL(entity, where: predicate, orderBy: orderBy, limit: limit, offset: offset)
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try cursor.next() { try body(Self.object(from: row, entity: entity)) }
    }

    /// The object of an entity with this identifier, or nil.
    public func object(_ entityName: String, id: Int64) throws -> DynamicObject? {
        try fetch(entityName, where: .equal(SchemaSQL.idColumn, .int(id)), limit: 1).first
    }

    /// The object of an entity whose primary key attribute has this value, or nil.
    ///
    /// - Throws: ``MoltError`` when the entity declares no primary key.
    public func object(_ entityName: String, primaryKey: Value) throws -> DynamicObject? {
        let entity = try entity(entityName)
        guard let key = entity.primaryKey else {
            throw MoltError(.invalidValue, "Entity '\(entity.name)' declares no primary key; fetch it with `object(_:id:)` or a predicate.", entity: entity.name)
        }
        return try fetch(entityName, where: .equal(key, primaryKey), limit: 1).first
    }

    /// The number of objects of an entity that match a predicate (all of them without one).
    public func count(_ entityName: String, where predicate: Predicate? = nil) throws -> Int {
        let entity = try entity(entityName)
        var sql = "SELECT COUNT(*) FROM \(layout.table(entity.name))"
        var arguments: [Value] = []
        if let predicate {
            let (condition, values) = try predicate.sql(for: entity, layout: layout)
            sql += " WHERE \(condition)"
            arguments = values
        }
        return try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue))) ?? 0
    }
}

/// The entities whose objects a migration stage deleted, so that links to them are cleaned once at the end.
final class DeletionLog {
    var entities: Set<String> = []
}
