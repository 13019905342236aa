import Foundation
extension Migration {
    /// Calls `body` with each object of an entity that exists in both versions: `old` read-only in the old
    /// version, `new` writable in the new version. What `body` writes to `new` is saved when it returns.
    ///
    /// Objects are read in batches by identifier, so memory stays bounded however many there are, and the
    /// table is never changed under an open cursor. Progress is reported per batch; a cancellation is
    /// honoured between batches.
    ///
    /// ```swift
    /// try migration.enumerateObjects(ofType: "Person") { old, new in
    ///     new["fullName"] = .string("\(old["firstName"].string ?? "") \(old["lastName"].string ?? "")")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The entity's name, old or new (a renamed entity answers to both).
    ///   - body: Reads `old`, writes `new`; throwing rolls back the whole run.
    /// - Throws: ``MoltError`` when the entity is new or was removed in the new version, when `body` wrote an
    ///   unknown attribute or a value of the wrong type, or what `body` throws.
    public func enumerateObjects(
        ofType type: String, _ body: (MigrationObject, inout MigrationObject) throws -> Void
    ) throws {
        let (oldEntity, newEntity) = try entityInBoth(type)
        guard oldSchema.isInHierarchy(oldEntity.name) else {
            return try enumerate(oldEntity, newSchema.effectiveEntity(named: newEntity.name) ?? newEntity, body)
        }
        // The objects of a hierarchy, one concrete entity at a time: each object with its own entity's values,
        // on both sides (`old.entity` says which). Counted in one pass over the table, for the progress.
        let counts = try hierarchyCounts(of: oldEntity.name)
        for name in oldSchema.concreteEntityNames(of: oldEntity.name) {
            guard let newName = workspace.origins.first(where: { $0.value == name })?.key,
                let old = oldSchema.effectiveEntity(named: name), let new = newSchema.effectiveEntity(named: newName)
            else { continue }
            try enumerate(old, new, total: counts[name] ?? 0, body)
        }
    }

    /// The number of objects of each entity in the old table of `entity`'s hierarchy, by `_entity`.
    private func hierarchyCounts(of entity: String) throws -> [String: Int] {
        let q = db.dialect.quote, column = q(StoreLayout.entityColumn)
        let rows = try db.fetchRows(
            "SELECT \(column), COUNT(*) FROM \(workspace.oldLayout.table(entity)) GROUP BY \(column)",
            types: [.string, .int])
        var counts: [String: Int] = [:]
        for row in rows {
            if case .string(let name) = row[0], case .int(let count) = row[1] { counts[name] = Int(count) }
        }
        return counts
    }

    /// Enumerates the objects of `oldEntity` (an entity with its inherited properties) as objects of
    /// `newEntity`: in a hierarchy, only those of that very entity.
    private func enumerate(
        _ oldEntity: Entity, _ newEntity: Entity, total counted: Int? = nil,
        _ body: (MigrationObject, inout MigrationObject) throws -> Void
    ) throws {
        let layout = workspace.newLayout.entities[newEntity.name]!
        let oldShape = ObjectShape(
            entity: oldEntity, version: fromVersion, aliases: renamedProperties[oldEntity.name] ?? [:],
            tracksReads: true)
        defer { workspace.didRead(oldShape.readAttributes, of: oldEntity.name) }
        let newShape = ObjectShape(entity: newEntity, version: toVersion)
        let newColumns = newEntity.attributes.map { layout.columns[$0.name]! }
        var updates = UpdateStatements(table: layout.table, columns: newColumns)
        // A's columns among those the stage writes: writing one makes the old side read a snapshot first.
        let oldLayout = workspace.oldLayout
        let oldColumns = Set(
            (oldEntity.attributes.map(\.name) + oldEntity.relationships.map(\.name)).map {
                oldLayout.physicalColumn(oldEntity.name, $0)
            })
        let sharesColumns = newColumns.contains(where: oldColumns.contains)
        let own = oldLayout.ownRowsCondition(oldEntity.name).map { " WHERE \($0)" } ?? ""
        let total =
            try counted ?? Int(try db.fetchInt("SELECT COUNT(*) FROM \(oldLayout.table(oldEntity.name))\(own)") ?? 0)
        var done = 0
        run.begin("enumerating '\(newEntity.name)'", entity: newEntity.name, total: total)
        var pass = EnumerationPass(migration: self, oldEntity: oldEntity, newEntity: newEntity, newColumns: newColumns)
        // One old and one new object, refilled for each row: their value arrays are reused rather than
        // allocated per object (a copy the body keeps is copied on write, as for any Swift value).
        var old = MigrationObject(shape: oldShape)
        var new = MigrationObject(shape: newShape)
        // The set of columns last announced to the workspace: the same set needs no new look (the answer only
        // changes once the table is snapshotted, after which nothing is announced), so a stage that writes the
        // same attributes of every object pays for the look once, not a dozen hashed lookups per object.
        var announced: UInt64?
        // A loop rather than a closure, so that `old` and `new` are plain locals the compiler need not copy
        // defensively when it hands them to `body` and to the update.
        while try pass.next() {
            let batch = pass.reader.batch
            for row in 0..<batch.count {
                let id = batch.ids[row]
                old.refill(id: id, from: batch, row: row, slots: pass.oldSlots)
                if new.shape !== newShape || new.values.count != pass.newSlots.count {
                    new = MigrationObject(shape: newShape)
                }
                new.refill(id: id, from: batch, row: row, slots: pass.newSlots)
                try body(old, &new)
                if let problem = new.problem { throw MoltError(.invalidValue, problem, entity: newEntity.name) }
                if new.changed != 0 || new.manyChanged {
                    if sharesColumns && (new.manyChanged || new.changed != announced)
                        && !workspace.isSnapshotted(layout.table)
                    {
                        try workspace.willWrite(table: layout.table, columns: updates.changedColumns(new))
                        announced = new.manyChanged ? nil : new.changed
                    }
                    try updates.write(new, in: db)
                    workspace.didUpdate(newEntity.name, id: id)
                }
            }
            done += batch.count
            run.report(completed: done)
            try run.checkCancellation()
        }
    }

    /// The old and new entity of `type`, which both versions must have for ``enumerateObjects(ofType:_:)``.
    private func entityInBoth(_ type: String) throws -> (old: Entity, new: Entity) {
        let (oldEntity, newEntity) = try entityPair(type)
        guard let oldEntity else {
            throw MoltError(
                .invalidValue,
                "Entity '\(type)' is new in version \(toVersion): it has no old objects to enumerate. Create its objects with `migration.create(\"\(type)\", value: …)`, reading the old data with `enumerateOldObjects(ofType:)`.",
                entity: type)
        }
        guard let newEntity else {
            throw MoltError(
                .invalidValue,
                "Entity '\(type)' does not exist in version \(toVersion): enumerate its old objects with `enumerateOldObjects(ofType: \"\(type)\")` and create what replaces them.",
                entity: type)
        }
        return (oldEntity, newEntity)
    }

    /// Calls `body` with each object of an entity of the old version, including entities the new version
    /// removed: the way to read data that a stage moves elsewhere (split, merge).
    ///
    /// ```swift
    /// try migration.enumerateOldObjects(ofType: "WineNote") { old in
    ///     try migration.create("Note", value: ["title": old["name"], "kind": "wine"])
    /// }
    /// ```
    public func enumerateOldObjects(ofType type: String, _ body: (MigrationObject) throws -> Void) throws {
        guard let oldEntity = try entityPair(type).old else {
            throw MoltError(
                .invalidValue, "Entity '\(type)' does not exist in version \(fromVersion); it has no old objects.",
                entity: type)
        }
        guard oldSchema.isInHierarchy(oldEntity.name) else { return try enumerateOld(oldEntity, body) }
        for name in oldSchema.concreteEntityNames(of: oldEntity.name) {
            guard let entity = oldSchema.effectiveEntity(named: name) else { continue }
            try enumerateOld(entity, body)
        }
    }

    /// Enumerates the old objects of `oldEntity` (with its inherited properties): in a hierarchy, only those
    /// of that very entity.
    private func enumerateOld(_ oldEntity: Entity, _ body: (MigrationObject) throws -> Void) throws {
        let shape = ObjectShape(
            entity: oldEntity, version: fromVersion, aliases: renamedProperties[oldEntity.name] ?? [:],
            tracksReads: true)
        defer { workspace.didRead(shape.readAttributes, of: oldEntity.name) }
        let oldLayout = workspace.oldLayout
        let own = oldLayout.ownRowsCondition(oldEntity.name).map { " WHERE \($0)" } ?? ""
        let total = Int(try db.fetchInt("SELECT COUNT(*) FROM \(oldLayout.table(oldEntity.name))\(own)") ?? 0)
        var done = 0
        run.begin("enumerating old '\(oldEntity.name)'", entity: oldEntity.name, total: total)
        var pass = EnumerationPass(migration: self, oldEntity: oldEntity, newEntity: nil, newColumns: [])
        var object = MigrationObject(shape: shape)
        while try pass.next() {
            let batch = pass.reader.batch
            for row in 0..<batch.count {
                object.refill(id: batch.ids[row], from: batch, row: row, slots: pass.oldSlots)
                try body(object)
            }
            done += batch.count
            run.report(completed: done)
            try run.checkCancellation()
        }
    }
}

/// One walk over the objects of an entity during a stage: the batch reader, and the slots of the old and new
/// values in its rows. When the new side's writes have made the old side read a snapshot, the next batch is
/// read from the snapshot joined with the new table, from where the walk stands.
struct EnumerationPass {
    let migration: Migration
    let oldEntity: Entity
    let newEntity: Entity?
    let newColumns: [String]
    private(set) var reader: BatchReader
    private(set) var oldSlots: [(index: Int, type: AttributeType)] = []
    private(set) var newSlots: [(index: Int, type: AttributeType)] = []
    private var generation: Int

    init(migration: Migration, oldEntity: Entity, newEntity: Entity?, newColumns: [String]) {
        self.migration = migration
        self.oldEntity = oldEntity
        self.newEntity = newEntity
        self.newColumns = newColumns
        generation = migration.workspace.generation
        reader = BatchReader(
            source: Self.source(migration, oldEntity, newEntity), entity: newEntity?.name ?? oldEntity.name)
        addSlots()
    }

    /// The rows to read now: A's table while the old side reads it, else its snapshot joined with B's table.
    private static func source(_ migration: Migration, _ oldEntity: Entity, _ newEntity: Entity?) -> BatchReader.Source
    {
        let dialect = migration.db.dialect
        let q = dialect.quote
        let oldTable = migration.workspace.oldLayout.table(oldEntity.name)
        let newTable = newEntity.map { migration.workspace.newLayout.table($0.name) }
        // In a hierarchy's table, the rows of this entity alone.
        let condition =
            migration.oldSchema.isInHierarchy(oldEntity.name)
            ? "o.\(q(StoreLayout.entityColumn)) = \(dialect.literal(.string(oldEntity.name)))" : nil
        guard let newTable, oldTable != newTable else {
            return .init(from: "\(oldTable) AS o", id: "o.\(q(StoreLayout.idColumn))", condition: condition)
        }
        return .init(
            from:
                "\(oldTable) AS o LEFT JOIN \(newTable) AS n ON n.\(q(StoreLayout.idColumn)) = o.\(q(StoreLayout.idColumn))",
            id: "o.\(q(StoreLayout.idColumn))", presence: "n.\(q(StoreLayout.idColumn))", condition: condition)
    }

    private mutating func addSlots() {
        let q = migration.db.dialect.quote
        let joined = reader.source.presence != nil
        let oldLayout = migration.workspace.oldLayout
        oldSlots = oldEntity.attributes.map {
            reader.slot("o.\(q(oldLayout.physicalColumn(oldEntity.name, $0.name)))", $0.type, attribute: $0.name)
        }
        guard let newEntity else { return }
        newSlots = zip(newEntity.attributes, newColumns).map { attribute, column in
            reader.slot("\(joined ? "n" : "o").\(q(column))", attribute.type, attribute: attribute.name)
        }
    }

    /// Reads the next batch, from the snapshot if one was taken since the last.
    mutating func next() throws -> Bool {
        if migration.workspace.generation != generation {
            generation = migration.workspace.generation
            reader = reader.resume(from: Self.source(migration, oldEntity, newEntity))
            addSlots()
        }
        return try reader.next(in: migration.db)
    }
}

extension Value {
    /// The same stored value read as another attribute type that shares its storage (bool ↔ int, uuid ↔ string).
    func reinterpreted(as type: AttributeType) -> Value {
        switch (self, type) {
        case (.int(let v), .bool): return .bool(v != 0)
        case (.bool(let v), .int): return .int(v ? 1 : 0)
        case (.uuid(let v), .string): return .string(v.uuidString)
        case (.string(let v), .uuid): return UUID(uuidString: v).map(Value.uuid) ?? self
        case (.int(let v), .double), (.int(let v), .float): return .double(Double(v))
        default: return self
        }
    }
}
