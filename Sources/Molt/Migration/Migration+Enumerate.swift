import Foundation
extension Migration {
    /// Calls `body` with each object of an entity that exists in both versions: `old` read-only in the old
    /// version, `new` writable in the new version. What `body` writes to `new` is saved when it returns.
    ///
    /// Objects are read in batches by identifier, so memory stays bounded however many there are, and the
    /// table is never changed under an open cursor. Progress is reported per batch; a cancellation is
    /// honoured between batches. For a parent in a hierarchy, the objects of each of its concrete entities come
    /// with their own entity's values (`old.entity` says which), in one pass over the hierarchy's table.
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
        // The objects of a hierarchy: each object with its own entity's values, on both sides (`old.entity` says
        // which), in one pass over the table when the entities read it alike, else one concrete entity at a time.
        var members: [(old: Entity, new: Entity)] = []
        for name in oldSchema.concreteEntityNames(of: oldEntity.name) {
            guard let newName = workspace.origins.first(where: { $0.value == name })?.key,
                let old = oldSchema.effectiveEntity(named: name), let new = newSchema.effectiveEntity(named: newName)
            else { continue }
            members.append((old, new))
        }
        let counts = try hierarchyCounts(of: oldEntity.name)
        if members.count > 1, try enumerateTogether(members, label: newEntity.name, counts: counts, body) { return }
        for (old, new) in members { try enumerate(old, new, total: counts[old.name] ?? 0, body) }
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
        let oldShape = ObjectShape(
            entity: oldEntity, version: fromVersion, aliases: renamedProperties[oldEntity.name] ?? [:],
            tracksReads: true)
        defer { workspace.didRead(oldShape.readAttributes, of: oldEntity.name) }
        var writer = EnumerationWriter(self, oldEntity, newEntity)
        let oldLayout = workspace.oldLayout
        let own = oldLayout.ownRowsCondition(oldEntity.name).map { " WHERE \($0)" } ?? ""
        let total =
            try counted ?? Int(try db.fetchInt("SELECT COUNT(*) FROM \(oldLayout.table(oldEntity.name))\(own)") ?? 0)
        var done = 0
        run.begin("enumerating '\(newEntity.name)'", entity: newEntity.name, total: total)
        var pass = EnumerationPass(
            migration: self, oldEntity: oldEntity, newEntity: newEntity, newColumns: writer.newColumns)
        // One old and one new object, refilled for each row: their value arrays are reused rather than
        // allocated per object (a copy the body keeps is copied on write, as for any Swift value).
        var old = MigrationObject(shape: oldShape)
        var new = MigrationObject(shape: writer.newShape)
        // A loop rather than a closure, so that `old` and `new` are plain locals the compiler need not copy
        // defensively when it hands them to `body` and to the update.
        while try pass.next() {
            let batch = pass.reader.batch
            let slots = pass.members[0]
            for row in 0..<batch.count {
                let id = batch.ids[row]
                old.refill(id: id, from: batch, row: row, slots: slots.oldSlots)
                if new.shape !== writer.newShape || new.values.count != slots.newSlots.count {
                    new = MigrationObject(shape: writer.newShape)
                }
                new.refill(id: id, from: batch, row: row, slots: slots.newSlots)
                try body(old, &new)
                try writer.save(new, id: id)
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
                object.refill(id: batch.ids[row], from: batch, row: row, slots: pass.members[0].oldSlots)
                try body(object)
            }
            done += batch.count
            run.report(completed: done)
            try run.checkCancellation()
        }
    }
}

/// One walk over the objects of an entity during a stage, or of several entities of one hierarchy's table
/// together: the batch reader, and each entity's slots of its old and new values in the rows. When the new
/// side's writes have made the old side read a snapshot, the next batch is read from the snapshot joined with
/// the new table, from where the walk stands.
struct EnumerationPass {
    /// One entity the pass reads: where its old and new values are in each row.
    struct Member {
        let oldEntity: Entity
        let newEntity: Entity?
        let newColumns: [String]
        fileprivate(set) var oldSlots: [(index: Int, type: AttributeType)] = []
        fileprivate(set) var newSlots: [(index: Int, type: AttributeType)] = []
    }

    let migration: Migration
    private(set) var members: [Member]
    private(set) var reader: BatchReader
    /// With several members: the slot of the old `_entity`, which tells each row's member.
    private(set) var entitySlot: Int?
    /// Whether every column the members read is read as one type (else the members need a pass each).
    private(set) var isConsistent = true
    private var generation: Int

    init(migration: Migration, oldEntity: Entity, newEntity: Entity?, newColumns: [String]) {
        self.init(
            migration: migration, members: [Member(oldEntity: oldEntity, newEntity: newEntity, newColumns: newColumns)])
    }

    init(migration: Migration, members: [Member]) {
        self.migration = migration
        self.members = members
        generation = migration.workspace.generation
        reader = BatchReader(
            source: Self.source(migration, members),
            entity: members[0].newEntity?.name ?? members[0].oldEntity.name)
        addSlots()
    }

    /// The rows to read now: A's table while the old side reads it, else its snapshot joined with B's table.
    private static func source(_ migration: Migration, _ members: [Member]) -> BatchReader.Source {
        let dialect = migration.db.dialect
        let q = dialect.quote
        let first = members[0]
        let oldTable = migration.workspace.oldLayout.table(first.oldEntity.name)
        let newTable = first.newEntity.map { migration.workspace.newLayout.table($0.name) }
        // In a hierarchy's table, the rows of these entities alone.
        let names = members.map { dialect.literal(.string($0.oldEntity.name)) }
        let entity = "o.\(q(StoreLayout.entityColumn))"
        let condition =
            !migration.oldSchema.isInHierarchy(first.oldEntity.name)
            ? nil : names.count == 1 ? "\(entity) = \(names[0])" : "\(entity) IN (\(names.joined(separator: ", ")))"
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
        if members.count > 1 {
            entitySlot = slot("o.\(q(StoreLayout.entityColumn))", .string, StoreLayout.entityColumn).index
        }
        for index in members.indices {
            let member = members[index]
            members[index].oldSlots = member.oldEntity.attributes.map {
                slot("o.\(q(oldLayout.physicalColumn(member.oldEntity.name, $0.name)))", $0.type, $0.name)
            }
            guard let newEntity = member.newEntity else { continue }
            members[index].newSlots = zip(newEntity.attributes, member.newColumns).map { attribute, column in
                slot("\(joined ? "n" : "o").\(q(column))", attribute.type, attribute.name)
            }
        }
    }

    /// A slot of the reader, noting when a column is already read as another type.
    private mutating func slot(
        _ expression: String, _ type: AttributeType, _ attribute: String
    ) -> (
        index: Int, type: AttributeType
    ) {
        let slot = reader.slot(expression, type, attribute: attribute)
        if reader.type(ofSlot: slot.index) != type { isConsistent = false }
        return slot
    }

    /// The member of the batch's row `row`: by its old `_entity` when the pass reads several.
    func member(ofRow row: Int) -> Int? {
        guard let entitySlot else { return 0 }
        guard case .string(let name) = reader.batch[row, entitySlot] else { return nil }
        return members.firstIndex { $0.oldEntity.name == name }
    }

    /// Reads the next batch, from the snapshot if one was taken since the last.
    mutating func next() throws -> Bool {
        if migration.workspace.generation != generation {
            generation = migration.workspace.generation
            reader = reader.resume(from: Self.source(migration, members))
            addSlots()
        }
        return try reader.next(in: migration.db)
    }
}

/// What a stage's enumeration writes for the objects of one new entity: the changed attributes of each `new`
/// object, through one prepared `UPDATE` per set of them, and the workspace told first when the write touches a
/// column the old side still reads (which then snapshots it).
struct EnumerationWriter {
    let migration: Migration
    let newEntity: Entity
    let newShape: ObjectShape
    let newColumns: [String]
    private let table: String
    private var updates: UpdateStatements
    /// Whether the new side writes a column of A's that the old side reads.
    private let sharesColumns: Bool
    /// The set of columns last announced to the workspace: the same set needs no new look (the answer only
    /// changes once the table is snapshotted, after which nothing is announced), so a stage that writes the
    /// same attributes of every object pays for the look once, not a dozen hashed lookups per object.
    private var announced: UInt64?

    init(_ migration: Migration, _ oldEntity: Entity, _ newEntity: Entity) {
        self.migration = migration
        self.newEntity = newEntity
        newShape = ObjectShape(entity: newEntity, version: migration.toVersion)
        let layout = migration.workspace.newLayout.entities[newEntity.name]!
        table = layout.table
        newColumns = newEntity.attributes.map { layout.columns[$0.name]! }
        updates = UpdateStatements(table: layout.table, columns: newColumns)
        let oldLayout = migration.workspace.oldLayout
        let oldColumns = Set(
            (oldEntity.attributes.map(\.name) + oldEntity.relationships.map(\.name)).map {
                oldLayout.physicalColumn(oldEntity.name, $0)
            })
        sharesColumns = newColumns.contains(where: oldColumns.contains)
    }

    /// Saves what the body wrote to `new`, if anything; refuses what it wrote wrong.
    mutating func save(_ new: MigrationObject, id: Int64) throws {
        if let problem = new.problem { throw MoltError(.invalidValue, problem, entity: newEntity.name) }
        guard new.changed != 0 || new.manyChanged else { return }
        let workspace = migration.workspace
        if sharesColumns && (new.manyChanged || new.changed != announced) && !workspace.isSnapshotted(table) {
            try workspace.willWrite(table: table, columns: updates.changedColumns(new))
            announced = new.manyChanged ? nil : new.changed
        }
        try updates.write(new, in: migration.db)
        workspace.didUpdate(newEntity.name, id: id)
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
