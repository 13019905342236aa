/// Realm's `renameProperty(onType:from:to:)`, renames chained across versions included.
extension Migration {
    /// Copies every object's value of an attribute of the old version into an attribute of the new version,
    /// as Realm's `renameProperty(onType:from:to:)` does.
    ///
    /// Prefer `originalName:` on the new attribute, which Molt applies without code; this call is for stages
    /// that need the copy among other work. Widening conversions (int → double, any scalar → string) apply.
    /// After the call, `old[newName]` in ``enumerateObjects(ofType:_:)`` reads the renamed attribute, so code
    /// written against the new name works.
    ///
    /// Renames chain as they do in Realm, where each one renames the old object's property in place: `from`
    /// may be a name that an earlier call of the same stage gave, and `to` may be a name the new version does
    /// not have (an intermediate version's), provided that a later call renames it on to one it has before the
    /// stage ends. So a Realm block written one release at a time ports line by line, and works from any
    /// version, including a store that jumps over the version that had the intermediate name:
    ///
    /// ```swift
    /// let plan = MigrationPlan.realm(schema: v2) { migration, oldSchemaVersion in
    ///     if oldSchemaVersion < 1 {   // version 1 renamed `name` to `title`
    ///         try migration.renameProperty(onType: "Note", from: "name", to: "title")
    ///     }
    ///     if oldSchemaVersion < 2 {   // version 2 renamed `title` to `heading`
    ///         try migration.renameProperty(onType: "Note", from: "title", to: "heading")
    ///     }
    /// }
    /// ```
    ///
    /// From version 0 the first call gives `name` the intermediate name `title` and the second copies it into
    /// `heading`; from version 1 only the second runs, on the stored `title`.
    ///
    /// - Parameters:
    ///   - type: The entity, by its old or its new name.
    ///   - oldName: An attribute of the old version, or a name an earlier `renameProperty` of this stage gave one.
    ///   - newName: An attribute of the new version, or an intermediate name that a later call renames on.
    /// - Throws: ``MoltError`` when the entity or the source attribute does not exist, when the types don't
    ///   convert, or when `newName` is already another attribute of the old version. A name the new version
    ///   does not have and no later call carries on is refused when the stage ends.
    public func renameProperty(onType type: String, from oldName: String, to newName: String) throws {
        let (oldEntity, newEntity) = try entityPair(type)
        guard let oldEntity, let newEntity else {
            throw MoltError(
                .invalidValue,
                "Entity '\(type)' must exist in both version \(fromVersion) and \(toVersion) to rename one of its properties.",
                entity: type)
        }
        let original =
            oldEntity.attribute(named: oldName) != nil ? oldName : renamedProperties[oldEntity.name]?[oldName]
        guard let original, let source = oldEntity.attribute(named: original) else {
            throw MoltError(
                .invalidValue, "Entity '\(oldEntity.name)' has no attribute '\(oldName)' in version \(fromVersion).",
                entity: type, property: oldName)
        }
        intermediateNames[oldEntity.name]?[oldName] = nil
        guard let destination = newEntity.attribute(named: newName) else {
            try renameToIntermediate(oldEntity, from: oldName, original: original, to: newName)
            return
        }
        guard source.type.widens(to: destination.type) else {
            throw MoltError(
                .invalidValue,
                "Cannot rename '\(oldEntity.name).\(oldName)' (\(source.type.rawValue)) to '\(newEntity.name).\(newName)' (\(destination.type.rawValue)): the types don't convert safely. Convert the values in `enumerateObjects(ofType:)`.",
                entity: type, property: newName)
        }
        renamedProperties[oldEntity.name, default: [:]][newName] = original
        try copyColumn(original, of: oldEntity, type: source.type, to: destination, of: newEntity)
    }

    /// Records a name the new version does not have, which a later `renameProperty` must carry on.
    private func renameToIntermediate(
        _ oldEntity: Entity, from oldName: String, original: String, to newName: String
    ) throws {
        guard oldEntity.attribute(named: newName) == nil else {
            throw MoltError(
                .invalidValue,
                "Cannot rename '\(oldEntity.name).\(oldName)' to '\(newName)': version \(toVersion) has no attribute '\(newName)', and in version \(fromVersion) '\(newName)' is another attribute. Rename '\(oldName)' to an attribute of version \(toVersion).",
                entity: oldEntity.name, property: newName)
        }
        renamedProperties[oldEntity.name, default: [:]][newName] = original
        intermediateNames[oldEntity.name, default: [:]][newName] = oldName
    }

    /// Copies the old version's column into the new version's attribute, converting it.
    private func copyColumn(
        _ original: String, of oldEntity: Entity, type: AttributeType, to destination: Attribute, of newEntity: Entity
    ) throws {
        // The values are carried, not lost: the history must not call them dropped when the old attribute goes.
        workspace.didRead([original], of: oldEntity.name)
        let target = workspace.newLayout.column(newEntity.name, destination.name)
        guard target != db.dialect.quote(original) else { return }
        if type == .int && destination.type == .double {
            try ExactDoubles.check(
                column: original, table: oldEntity.name, entity: newEntity.name, attribute: destination.name,
                version: toVersion, in: db)
        }
        let expression = SQLColumnSource.convert(.column(original), from: type, to: destination.type).sql(db.dialect)
        let table = workspace.newLayout.physicalTable(newEntity.name)
        try workspace.willWrite(
            table: table, columns: [workspace.newLayout.physicalColumn(newEntity.name, destination.name)])
        let changed = try db.execute(
            .update, "UPDATE \(workspace.newLayout.table(newEntity.name)) SET \(target) = \(expression)")
        workspace.counts.updatedAll(newEntity.name, count: changed)
    }

    /// Refuses a stage that ends with an intermediate name no `renameProperty` carried on to the new version:
    /// the values it names would otherwise be dropped with the old attribute.
    func checkIntermediateNames() throws {
        for (entity, names) in intermediateNames.sorted(by: { $0.key < $1.key }) {
            guard let (name, renamedFrom) = names.min(by: { $0.key < $1.key }) else { continue }
            let newName = workspace.origins.first { $0.value == entity }?.key ?? entity
            let attributes = newSchema.entity(named: newName)?.attributes.map(\.name).joined(separator: ", ") ?? ""
            throw MoltError(
                .invalidValue,
                "renameProperty(onType: \"\(entity)\", from: \"\(renamedFrom)\", to: \"\(name)\") gave '\(entity).\(renamedFrom)' the name '\(name)', which version \(toVersion) does not have, and no later renameProperty renamed '\(name)' on to an attribute it has (\(attributes)). Rename it on (for example `renameProperty(onType: \"\(entity)\", from: \"\(name)\", to: …)` in the block of the version that renamed it again), or rename '\(renamedFrom)' straight to an attribute of version \(toVersion). The store was left at version \(fromVersion).",
                entity: entity, property: name)
        }
    }
}
