extension Objects {
    /// The relationship of an object's entity with this name.
    func relationship(_ name: String, of entity: Entity) throws -> Relationship {
        guard let relationship = entity.relationship(named: name) else {
            throw MoltError(
                .invalidValue,
                "Entity '\(entity.name)' has no relationship '\(name)'; it has \(entity.relationships.map(\.name).joined(separator: ", ")).",
                entity: entity.name, property: name)
        }
        return relationship
    }

    func requireID(_ object: DynamicObject) throws -> Int64 {
        guard let id = object.id else {
            throw MoltError(
                .objectNotFound, "This '\(object.entity)' object was never inserted; insert it before linking it.",
                entity: object.entity)
        }
        return id
    }

    /// The identifiers an object points to through a relationship, in order for an ordered one.
    func destinationIDs(entity: Entity, relationship: Relationship, of id: Int64) throws -> [Int64] {
        let q = dialect.quote
        switch relationship.kind {
        case .toOne:
            recordRead(entity.name)
            let statement = try db.cachedStatement(
                .read,
                "SELECT \(layout.column(entity.name, relationship.name)) FROM \(layout.table(entity.name)) WHERE \(idColumn) = ?"
            )
            try statement.bind([.int(id)])
            defer { statement.reset() }
            guard try statement.step(), !statement.isNull(0) else { return [] }
            return [statement.int64(0)]
        case .toMany:
            recordReadLinks(entity.name, relationship.name)
            let table = layout.joinTable(entity.name, relationship.name)
            let order =
                relationship.isOrdered
                ? "\(q(StoreLayout.positionColumn)), \(dialect.insertionOrder)" : dialect.insertionOrder
            let statement = try db.cachedStatement(
                .read,
                "SELECT \(q(StoreLayout.targetColumn)) FROM \(table) WHERE \(q(StoreLayout.ownerColumn)) = ? ORDER BY \(order)"
            )
            try statement.bind([.int(id)])
            defer { statement.reset() }
            var result: [Int64] = []
            while try statement.step() { result.append(statement.int64(0)) }
            return result
        }
    }

    /// The object a to-one relationship points to, or nil.
    ///
    /// ```swift
    /// let folder = try objects.destination("folder", of: note)
    /// ```
    public func destination(_ relationshipName: String, of object: DynamicObject) throws -> DynamicObject? {
        try destinations(relationshipName, of: object).first
    }

    /// The objects a relationship points to, in order for an ordered to-many relationship.
    public func destinations(_ relationshipName: String, of object: DynamicObject) throws -> [DynamicObject] {
        let entity = try entity(object.entity)
        let relationship = try relationship(relationshipName, of: entity)
        let ids = try destinationIDs(entity: entity, relationship: relationship, of: try requireID(object))
        // One query per chunk of identifiers (SQLite limits bound variables), then the relationship's order.
        var byID: [Int64: DynamicObject] = [:]
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<Swift.min(start + 500, ids.count)].map { Value.int($0) }
            for found in try fetch(relationship.destination, where: .in(StoreLayout.idColumn, chunk)) {
                byID[found.id!] = found
            }
        }
        return ids.compactMap { byID[$0] }
    }

    /// Points a to-one relationship at an object (or at nothing), keeping its inverse in step.
    public func set(_ relationshipName: String, of object: DynamicObject, to destination: DynamicObject?) throws {
        try requireWritable()
        let entity = try entity(object.entity)
        let relationship = try relationship(relationshipName, of: entity)
        let id = try requireID(object)
        guard relationship.kind == .toOne else {
            try set(relationshipName, of: object, to: destination.map { [$0] } ?? [])
            return
        }
        // The new destination is checked first: a refused one leaves the old link in place.
        let target = try destination.map { try checkedID($0, for: relationship) }
        for old in try destinationIDs(entity: entity, relationship: relationship, of: id) {
            try disconnect(entity: entity, relationship: relationship, id, old)
        }
        if let target { try connect(entity: entity, relationship: relationship, id, target) }
    }

    /// Replaces the objects of a to-many relationship (in this order for an ordered one), keeping inverses in
    /// step.
    public func set(_ relationshipName: String, of object: DynamicObject, to destinations: [DynamicObject]) throws {
        try requireWritable()
        let entity = try entity(object.entity)
        let relationship = try relationship(relationshipName, of: entity)
        let id = try requireID(object)
        if relationship.kind == .toOne {
            guard destinations.count <= 1 else {
                throw MoltError(
                    .invalidValue,
                    "Relationship '\(entity.name).\(relationship.name)' is to-one; give it one object at most.",
                    entity: entity.name, property: relationship.name)
            }
            try set(relationshipName, of: object, to: destinations.first)
            return
        }
        for old in try destinationIDs(entity: entity, relationship: relationship, of: id) {
            try disconnect(entity: entity, relationship: relationship, id, old)
        }
        for destination in destinations {
            try connect(entity: entity, relationship: relationship, id, try checkedID(destination, for: relationship))
        }
    }

    /// Adds an object to a to-many relationship (at the end of an ordered one), keeping its inverse in step.
    public func add(_ destination: DynamicObject, to relationshipName: String, of object: DynamicObject) throws {
        try requireWritable()
        let entity = try entity(object.entity)
        let relationship = try relationship(relationshipName, of: entity)
        try connect(
            entity: entity, relationship: relationship, try requireID(object),
            try checkedID(destination, for: relationship))
    }

    /// Removes an object from a relationship, keeping its inverse in step.
    public func remove(_ destination: DynamicObject, from relationshipName: String, of object: DynamicObject) throws {
        try requireWritable()
        let entity = try entity(object.entity)
        let relationship = try relationship(relationshipName, of: entity)
        try disconnect(
            entity: entity, relationship: relationship, try requireID(object),
            try checkedID(destination, for: relationship))
    }

    private func checkedID(_ destination: DynamicObject, for relationship: Relationship) throws -> Int64 {
        guard schema.entity(destination.entity, inherits: relationship.destination) else {
            throw MoltError(
                .invalidValue,
                "Relationship '\(relationship.name)' points to '\(relationship.destination)' objects\(schema.subEntityIndex[relationship.destination] == nil ? "" : " (or objects of its sub-entities)"), not '\(destination.entity)'.",
                property: relationship.name)
        }
        let id = try requireID(destination)
        try requireExists(destination.entity, id: id, linkedBy: relationship.name)
        return id
    }

    /// Throws when no object of `entity` has `id`: a link to it would dangle (or, in a stage, vanish).
    func requireExists(_ entity: String, id: Int64, linkedBy relationship: String) throws {
        let kind = layout.entityCondition(entity).map { " AND \($0)" } ?? ""
        let statement = try db.cachedStatement(
            .read, "SELECT 1 FROM \(layout.table(entity)) WHERE \(idColumn) = ?\(kind)")
        try statement.bind([.int(id)])
        defer { statement.reset() }
        guard try statement.step() else {
            throw MoltError(
                .objectNotFound,
                "Relationship '\(relationship)' cannot point to '\(entity)' _id \(id): no such object is in the store (it was never inserted, or was deleted). Insert it first, and link the inserted object.",
                entity: entity, property: relationship)
        }
    }

    /// Links `source → target`, and `target → source` through the inverse; a to-one side first lets go of what
    /// it pointed to.
    private func connect(entity: Entity, relationship: Relationship, _ source: Int64, _ target: Int64) throws {
        if relationship.kind == .toOne {
            for old in try destinationIDs(entity: entity, relationship: relationship, of: source) where old != target {
                try disconnect(entity: entity, relationship: relationship, source, old)
            }
        }
        try rawLink(entity: entity, relationship: relationship, source, target)
        guard let inverseName = relationship.inverse else { return }
        let destination = try self.entity(relationship.destination)
        let inverse = try self.relationship(inverseName, of: destination)
        if inverse.kind == .toOne {
            for old in try destinationIDs(entity: destination, relationship: inverse, of: target) where old != source {
                try disconnect(entity: destination, relationship: inverse, target, old)
            }
        }
        try rawLink(entity: destination, relationship: inverse, target, source)
    }

    private func disconnect(entity: Entity, relationship: Relationship, _ source: Int64, _ target: Int64) throws {
        try rawUnlink(entity: entity, relationship: relationship, source, target)
        guard let inverseName = relationship.inverse else { return }
        let destination = try self.entity(relationship.destination)
        try rawUnlink(
            entity: destination, relationship: try self.relationship(inverseName, of: destination), target, source)
    }

    func rawLink(entity: Entity, relationship: Relationship, _ source: Int64, _ target: Int64) throws {
        try rawLink(
            entity: entity, relationship: relationship, sql: linkSQL(entity: entity, relationship: relationship),
            source, target)
    }

    /// ``rawLink(entity:relationship:_:_:)`` with its statement's text already built (``linkSQL(entity:relationship:)``).
    func rawLink(entity: Entity, relationship: Relationship, sql: String, _ source: Int64, _ target: Int64) throws {
        switch relationship.kind {
        case .toOne:
            try willWrite(entity.name, properties: [relationship.name], links: .keeps)
            try db.cachedStatement(.update, sql).execute([.int(target), .int(source)])
        case .toMany:
            try willWriteLinks(entity.name, relationship.name)
            try db.cachedStatement(
                .insert(into: layout.physicalJoinTable(entity.name, relationship.name), explicitID: false), sql
            )
            .execute(
                relationship.isOrdered ? [.int(source), .int(target), .int(source)] : [.int(source), .int(target)])
        }
    }

    /// The statement that links `source` to `target` through `relationship` in the current layout: the
    /// to-one column set, or the join-table row inserted (at the end, for an ordered relationship).
    func linkSQL(entity: Entity, relationship: Relationship) -> String {
        let q = dialect.quote
        switch relationship.kind {
        case .toOne:
            return
                "UPDATE \(layout.table(entity.name)) SET \(layout.column(entity.name, relationship.name)) = ? WHERE \(idColumn) = ?"
        case .toMany:
            let table = layout.joinTable(entity.name, relationship.name)
            let (owner, targetColumn) = (q(StoreLayout.ownerColumn), q(StoreLayout.targetColumn))
            guard relationship.isOrdered else {
                return dialect.insertIgnoringDuplicates(into: table, columns: [owner, targetColumn], "VALUES (?, ?)")
            }
            let position = q(StoreLayout.positionColumn)
            return dialect.insertIgnoringDuplicates(
                into: table, columns: [owner, targetColumn, position],
                "SELECT ?, ?, COALESCE(MAX(\(position)), 0) + 1 FROM \(table) WHERE \(owner) = ?")
        }
    }

    private func rawUnlink(entity: Entity, relationship: Relationship, _ source: Int64, _ target: Int64) throws {
        let q = dialect.quote
        switch relationship.kind {
        case .toOne:
            try willWrite(entity.name, properties: [relationship.name], links: .mayEmpty([source]))
            let column = layout.column(entity.name, relationship.name)
            try db.cachedStatement(
                .update,
                "UPDATE \(layout.table(entity.name)) SET \(column) = NULL WHERE \(idColumn) = ? AND \(column) = ?"
            )
            .execute([.int(source), .int(target)])
        case .toMany:
            try willWriteLinks(entity.name, relationship.name, owners: [source])
            let table = layout.joinTable(entity.name, relationship.name)
            try db.cachedStatement(
                .update,
                "DELETE FROM \(table) WHERE \(q(StoreLayout.ownerColumn)) = ? AND \(q(StoreLayout.targetColumn)) = ?"
            )
            .execute([.int(source), .int(target)])
        }
    }
}
