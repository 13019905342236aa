/// The objects of an entity that has a parent or sub-entities: they share the table of the hierarchy's root
/// with those of the other entities, and each row names its own entity in ``StoreLayout/entityColumn``.
extension Objects {
    /// Refuses an object of an abstract entity, naming the entities that can be inserted instead.
    func requireConcrete(_ entity: Entity) throws {
        guard entity.isAbstract else { return }
        let concrete = schema.concreteEntityNames(of: entity.name)
        let fix =
            concrete.isEmpty
            ? "declare a sub-entity that is not abstract, and insert that"
            : "insert one of its sub-entities (\(concrete.joined(separator: ", "))) instead"
        throw MoltError(
            .invalidValue, "Entity '\(entity.name)' is abstract and has no objects of its own: \(fix).",
            entity: entity.name)
    }

    /// The entity of the object with this identifier, which a relationship to `entity` holds: `entity` itself,
    /// or the sub-entity its row names (whose relationships and delete rules apply to it).
    func concreteEntity(_ entity: Entity, id: Int64) throws -> Entity {
        guard layout.hierarchy(entity.name) != nil else { return entity }
        let statement = try db.cachedStatement(
            .read,
            "SELECT \(dialect.quote(StoreLayout.entityColumn)) FROM \(layout.table(entity.name)) WHERE \(idColumn) = ?")
        try statement.bind([.int(id)])
        defer { statement.reset() }
        guard try statement.step(), case .string(let name)? = statement.value(0, as: .string), name != entity.name,
            schema.entity(name, inherits: entity.name), let concrete = schema.effectiveEntity(named: name)
        else { return entity }
        return concrete
    }

    /// How the rows of a hierarchy's table are read as objects of their own entities: the columns selected
    /// after `_id` (the fetched entity's attributes, those its sub-entities add, and the entity column last),
    /// and for each concrete entity, the attributes it has with their position in the row.
    struct HierarchyRead {
        var columns: [String] = []
        var attributes: [String: [(index: Int, attribute: Attribute)]] = [:]
        var entityIndex: Int = 0
    }

    func hierarchyRead(_ entity: Entity) -> HierarchyRead {
        var read = HierarchyRead()
        // By column: two siblings may each declare an attribute of one name, in columns of their own.
        var positions: [String: Int] = [:]
        for member in [entity] + schema.subEntities(of: entity.name, recursive: true) {
            for attribute in member.attributes {
                let column = layout.column(member.name, attribute.name)
                guard positions[column] == nil else { continue }
                read.columns.append(column)
                positions[column] = read.columns.count
            }
        }
        for name in layout.hierarchy(entity.name)?.entities ?? [] {
            guard let concrete = schema.effectiveEntity(named: name) else { continue }
            read.attributes[name] = concrete.attributes.compactMap { attribute in
                positions[layout.column(name, attribute.name)].map { ($0, attribute) }
            }
        }
        read.columns.append(dialect.quote(StoreLayout.entityColumn))
        read.entityIndex = read.columns.count
        return read
    }

    /// ``forEach(_:where:orderBy:limit:offset:_:)`` over an entity of a hierarchy: each object comes as an
    /// object of its own entity, with that entity's attributes.
    func forEachInHierarchy(
        _ entity: Entity, where predicate: ObjectPredicate?, orderBy: [ObjectSort], limit: Int?, offset: Int?,
        _ body: (DynamicObject) throws -> Void
    ) throws {
        let read = hierarchyRead(entity)
        let (sql, arguments) = try selectSQL(
            entity, columns: read.columns, where: predicate, orderBy: orderBy, limit: limit, offset: offset)
        recordRead(entity.name)
        let statement = try db.makeStatement(.read, sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        while try statement.step() {
            let id = statement.int64(0)
            guard case .string(let name)? = statement.value(read.entityIndex, as: .string),
                let attributes = read.attributes[name]
            else {
                throw MoltError(
                    .corruptStore,
                    "The row of '\(entity.name)' with _id \(id) names entity \(statement.describe(read.entityIndex)) in column '\(StoreLayout.entityColumn)', which is not '\(entity.name)' or one of its sub-entities; the store was written behind Molt's back. Set the column to the name of one of \(read.attributes.keys.sorted().joined(separator: ", ")).",
                    entity: entity.name)
            }
            layoutSource?.didRead(name)
            var values: [String: Value] = [:]
            values.reserveCapacity(attributes.count)
            for (index, attribute) in attributes {
                guard let value = statement.value(index, as: attribute.type) else {
                    throw SQLStoredValue.mismatch(
                        entity: name, attribute: attribute.name, objectID: id, found: statement.describe(index),
                        expected: attribute.type)
                }
                values[attribute.name] = value
            }
            try body(DynamicObject(entity: name, id: id, values: values))
        }
    }
}
