/// Typed custom stages: read the old version's models and write the new version's, in the same ``Migration``
/// as the dynamic API.
///
/// ```swift
/// .custom(from: 2, to: 3) { migration in
///     try migration.enumerateObjects(V2.Person.self, to: V3.Person.self) { old, new in
///         V3.Person(fullName: "\(old.firstName) \(old.lastName)", age: old.age,
///                   nickname: new["nickname"].string)   // dynamic access, side by side
///     }
///     try migration.new.insert(V3.Person(fullName: "Ada Lovelace", age: 36))
///     let minors = try migration.old.count(V2.Person.self, where: \.age < 18)
/// }
/// ```
///
/// `migration.old` and `migration.new` are ``Objects``: every typed call (fetch, insert, save, relationships)
/// works on them, each with its version's models.
extension Migration {
    /// Calls `transform` with each object of an entity that exists in both versions, read as the old
    /// version's model, and stores the new version's model it returns in its place (the same object, the same
    /// identifier).
    ///
    /// `transform` also gets the object's current new-version values (`new`), dynamically: attributes the
    /// stage already converted or defaulted, which the old model cannot show. Every attribute of the returned
    /// model is written; its to-one relationships are linked (inverses kept in step) when they changed.
    ///
    /// - Parameters:
    ///   - oldType: The model of the entity in the version the stage starts from.
    ///   - newType: The model of the entity in the version the stage leads to.
    ///   - transform: Builds the new value; throwing rolls back the whole run.
    /// - Throws: ``MoltError`` when a model does not match its version's entity, or what `transform` throws.
    public func enumerateObjects<Old: PersistentModel, New: PersistentModel>(
        _ oldType: Old.Type, to newType: New.Type, _ transform: (Old, MigrationObject) throws -> New
    ) throws {
        let oldEntity = try oldSideEntity(Old.self)
        let newEntity = try newSideEntity(New.self)
        try checkBecomes(Old.self, oldEntity, New.self, newEntity)
        let oldToOnes = Old.toOneRelationships
        let newToOnes = New.toOneRelationships
        let attributeCount = newEntity.attributes.count
        var links: [(id: Int64, targets: [Value])] = []
        try enumerateObjects(ofType: oldEntity.name) { oldObject, newObject in
            let ids = try oldToOnes.map {
                try old.destinationIDs(entity: oldEntity, relationship: $0, of: oldObject.id).first
            }
            let row = ModelRow(
                values: oldObject.values + ids.map { $0.map(Value.int) ?? .null }, entity: oldEntity, id: oldObject.id)
            let model = try transform(try Old(row: row), newObject)
            let encoded = model.encodedValues
            for (index, attribute) in newEntity.attributes.enumerated() { newObject[attribute.name] = encoded[index] }
            if !newToOnes.isEmpty { links.append((oldObject.id, Array(encoded[attributeCount...]))) }
        }
        for (id, targets) in links {
            let object = DynamicObject(entity: newEntity.name, id: id, values: [:])
            for (relationship, target) in zip(newToOnes, targets) {
                let targetID = target.int
                guard try new.destinationIDs(entity: newEntity, relationship: relationship, of: id).first != targetID
                else { continue }
                try new.set(
                    relationship.name, of: object,
                    to: targetID.map { DynamicObject(entity: relationship.destination, id: $0, values: [:]) })
            }
        }
    }

    /// Calls `transform` with each object of an entity that exists in both versions, read as the old
    /// version's model, and stores the new version's model it returns in its place.
    ///
    /// ```swift
    /// try migration.enumerateObjects(V1.Note.self, to: V2.Note.self) { old in
    ///     V2.Note(heading: old.title.capitalized, words: old.body.split(separator: " ").count)
    /// }
    /// ```
    public func enumerateObjects<Old: PersistentModel, New: PersistentModel>(
        _ oldType: Old.Type, to newType: New.Type, _ transform: (Old) throws -> New
    ) throws {
        try enumerateObjects(oldType, to: newType) { old, _ in try transform(old) }
    }

    /// Calls `body` with each object of an entity of the old version read as its model, including entities
    /// the new version removed: the way to move typed data elsewhere.
    ///
    /// ```swift
    /// try migration.enumerateOldObjects(V1.WineNote.self) { wine in
    ///     try migration.new.insert(V2.Note(title: wine.name, kind: "wine"))
    /// }
    /// ```
    public func enumerateOldObjects<Old: PersistentModel>(_ oldType: Old.Type, _ body: (Old) throws -> Void) throws {
        let oldEntity = try oldSideEntity(Old.self)
        let oldToOnes = Old.toOneRelationships
        // Each object is decoded whole into the model the body receives.
        workspace.didRead(oldEntity.name)
        try enumerateOldObjects(ofType: oldEntity.name) { oldObject in
            let ids = try oldToOnes.map {
                try old.destinationIDs(entity: oldEntity, relationship: $0, of: oldObject.id).first
            }
            let row = ModelRow(
                values: oldObject.values + ids.map { $0.map(Value.int) ?? .null }, entity: oldEntity, id: oldObject.id)
            try body(try Old(row: row))
        }
    }
}

/// The errors of typed stages, which suggest the typed call rather than the dynamic one.
extension Migration {
    /// `NotesV1.Note` for a model nested in a `VersionedSchema`: its name without the module's.
    private static func name<M>(_ type: M.Type) -> String {
        let full = String(reflecting: type)
        return full.split(separator: ".", maxSplits: 1).last.map(String.init) ?? full
    }

    /// The old version's entity of a model the stage reads.
    private func oldSideEntity<M: PersistentModel>(_ type: M.Type) throws -> Entity {
        try old.typedEntity(
            M.self,
            fix:
                "in the stage \(fromVersion) → \(toVersion), `migration.old` reads version \(fromVersion): read it with a model of version \(fromVersion) (`migration.enumerateObjects(<model of \(fromVersion)>.self, to: <model of \(toVersion)>.self)`); an entity new in version \(toVersion) has no old objects: insert its objects with `migration.new.insert(…)`."
        )
    }

    /// The new version's entity of a model the stage writes.
    private func newSideEntity<M: PersistentModel>(_ type: M.Type) throws -> Entity {
        try new.typedEntity(
            M.self,
            fix:
                "in the stage \(fromVersion) → \(toVersion), `migration.new` writes version \(toVersion): return a model of version \(toVersion); for an entity that version \(toVersion) removes, read the old objects with `migration.enumerateOldObjects(\(Self.name(M.self)).self) { old in … }` with the model of version \(fromVersion)."
        )
    }

    /// Checks that the new model's entity is the one the old model's entity becomes.
    private func checkBecomes<Old: PersistentModel, New: PersistentModel>(
        _ oldType: Old.Type, _ oldEntity: Entity, _ newType: New.Type, _ newEntity: Entity
    ) throws {
        let became = try entityPair(oldEntity.name).new
        guard became?.name != newEntity.name else { return }
        let (oldName, newName) = (Self.name(Old.self), Self.name(New.self))
        let fate =
            became.map { "becomes '\($0.name)' in version \(toVersion), not '\(newEntity.name)'" }
            ?? "is removed by version \(toVersion)"
        throw MoltError(
            .invalidValue,
            "Entity '\(oldEntity.name)' \(fate), so `enumerateObjects(\(oldName).self, to: \(newName).self)` cannot turn its objects into '\(newEntity.name)' objects in place. Read them with `migration.enumerateOldObjects(\(oldName).self) { old in … }` and insert what replaces them with `migration.new.insert(\(newName)(…))`.",
            entity: oldEntity.name)
    }
}
