extension HierarchyMigration {
    /// Deletes the objects of the sub-entities the version deletes on purpose (``deletions``), with the older
    /// version's delete rules: a cascade deletes what they point to, a deny refuses (the migration writes
    /// nothing), and what pointed to them is unlinked. Runs first, on the store as it is at the step's older
    /// version, so that the rest of the step sees only the objects that stay.
    ///
    /// Foreign keys are not enforced during a migration: the links to and from the deleted objects (a cascade may
    /// reach any table) are swept (``LinkSweep``).
    ///
    /// - Returns: The number of objects deleted, cascades included.
    /// - Throws: ``MoltError/Code/constraintViolation`` when a deny rule keeps an object.
    func deleteDeclared(in db: any SQLConnection) throws -> Int {
        guard !deletions.isEmpty else { return 0 }
        let source = diff.source
        let layout = StoreLayout.standard(source, dialect: db.dialect)
        let roots = Set(source.entities.filter { $0.parent == nil }.map(\.name))
        let before = try roots.reduce(0) { $0 + (try db.fetchInt("SELECT COUNT(*) FROM \(layout.table($1))") ?? 0) }
        for deletion in deletions {
            try Self.deleteObjects(of: deletion.entity, by: source, deletedIn: diff.destination.version, in: db)
        }
        try LinkSweep.sweep(source, layout, from: nil, in: db)
        let after = try roots.reduce(0) { $0 + (try db.fetchInt("SELECT COUNT(*) FROM \(layout.table($1))") ?? 0) }
        return Int(before - after)
    }

    /// Deletes every object of `entity` by `schema`'s delete rules (the version before the one that deletes it),
    /// leaving the links to the sweep; a deny rule that still holds objects refuses, naming the version.
    ///
    /// - Returns: The number of objects of `entity` deleted, not counting cascades.
    @discardableResult
    static func deleteObjects(
        of entity: String, by schema: Schema, deletedIn version: Int, in db: any SQLConnection
    ) throws -> Int {
        do {
            return try Objects(db: db, schema: schema, isWritable: true).deleteAll(entity)
        } catch let error as MoltError where error.code == .constraintViolation {
            throw MoltError(
                .constraintViolation,
                "Version \(version) deletes entity '\(entity)', but one of its objects cannot go: \(error.message) Nothing was written.",
                entity: error.entity, property: error.property)
        }
    }
}
