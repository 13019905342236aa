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
        let layout = workspace.newLayout.entities[newEntity.name]!
        var reader = BatchReader(table: oldEntity.name, entity: newEntity.name)
        let oldSlots = oldEntity.attributes.map { reader.slot($0.name, $0.type, attribute: $0.name) }
        let newSlots = newEntity.attributes.map { reader.slot(layout.columns[$0.name]!, $0.type, attribute: $0.name) }
        let oldShape = ObjectShape(entity: oldEntity, version: fromVersion, aliases: renamedProperties[oldEntity.name] ?? [:])
        let newShape = ObjectShape(entity: newEntity, version: toVersion)
        var updates = UpdateStatements(table: layout.table, columns: newEntity.attributes.map { layout.columns[$0.name]! })
        let total = Int(try db.fetchInt("SELECT COUNT(*) FROM \(db.dialect.quote(oldEntity.name))") ?? 0)
        var done = 0
        run.report(entity: newEntity.name, completed: 0, total: total)
        // One old and one new object, refilled for each row: their value arrays are reused rather than
        // allocated per object (a copy the body keeps is copied on write, as for any Swift value).
        var old = MigrationObject(shape: oldShape)
        var new = MigrationObject(shape: newShape)
        // A loop rather than a closure, so that `old` and `new` are plain locals the compiler need not copy
        // defensively when it hands them to `body` and to the update.
        while try reader.next(in: db) {
            for row in 0..<reader.batch.count {
                let id = reader.batch.ids[row]
                old.refill(id: id, from: reader.batch, row: row, slots: oldSlots)
                if new.shape !== newShape || new.values.count != newSlots.count { new = MigrationObject(shape: newShape) }
                new.refill(id: id, from: reader.batch, row: row, slots: newSlots)
                try body(old, &new)
                if let problem = new.problem { throw MoltError(.invalidValue, problem, entity: newEntity.name) }
                if new.changed != 0 || new.manyChanged {
                    try updates.write(new, in: db)
                    run.touched += 1
                }
            }
            done += reader.batch.count
            run.report(entity: newEntity.name, completed: done, total: total)
            try run.checkCancellation()
        }
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
            throw MoltError(.invalidValue, "Entity '\(type)' does not exist in version \(fromVersion); it has no old objects.", entity: type)
        }
        var reader = BatchReader(table: oldEntity.name, entity: oldEntity.name)
        let slots = oldEntity.attributes.map { reader.slot($0.name, $0.type, attribute: $0.name) }
        let shape = ObjectShape(entity: oldEntity, version: fromVersion, aliases: renamedProperties[oldEntity.name] ?? [:])
        let total = Int(try db.fetchInt("SELECT COUNT(*) FROM \(db.dialect.quote(oldEntity.name))") ?? 0)
        var done = 0
        var old = MigrationObject(shape: shape)
        while try reader.next(in: db) {
            for row in 0..<reader.batch.count {
                old.refill(id: reader.batch.ids[row], from: reader.batch, row: row, slots: slots)
                try body(old)
            }
            done += reader.batch.count
            run.report(entity: oldEntity.name, completed: done, total: total)
            try run.checkCancellation()
        }
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
        case (.int(let v), .double): return .double(Double(v))
        default: return self
        }
    }
}
