extension HierarchyMigration {
    /// Deletes the objects of the sub-entities the version deletes on purpose (``deletions``), with the older
    /// version's delete rules: a cascade deletes what they point to, a deny refuses (the migration writes
    /// nothing), and what pointed to them is unlinked. Runs first, on the store as it is at the step's older
    /// version, so that the rest of the step sees only the objects that stay.
    ///
    /// Foreign keys are not enforced during a migration: the links to and from the deleted objects (a cascade may
    /// reach any table) are swept in one statement per relationship.
    ///
    /// - Returns: The number of objects deleted, cascades included.
    /// - Throws: ``MoltError/Code/constraintViolation`` when a deny rule keeps an object.
    func deleteDeclared(in db: any SQLConnection) throws -> Int {
        guard !deletions.isEmpty else { return 0 }
        let source = diff.source
        let layout = StoreLayout.standard(source, dialect: db.dialect)
        let roots = Set(source.entities.filter { $0.parent == nil }.map(\.name))
        let before = try roots.reduce(0) { $0 + (try db.fetchInt("SELECT COUNT(*) FROM \(layout.table($1))") ?? 0) }
        let objects = Objects(db: db, schema: source, isWritable: true)
        for deletion in deletions {
            do {
                try objects.deleteAll(deletion.entity)
            } catch let error as MoltError where error.code == .constraintViolation {
                throw MoltError(
                    .constraintViolation,
                    "Version \(diff.destination.version) deletes entity '\(deletion.entity)', but one of its objects cannot go: \(error.message) Nothing was written.",
                    entity: error.entity, property: error.property)
            }
        }
        try sweepLinks(source, layout, in: db)
        let after = try roots.reduce(0) { $0 + (try db.fetchInt("SELECT COUNT(*) FROM \(layout.table($1))") ?? 0) }
        return Int(before - after)
    }

    /// Unlinks, in the store at the older version, every link whose object is gone.
    private func sweepLinks(_ schema: Schema, _ layout: StoreLayout, in db: any SQLConnection) throws {
        let q = db.dialect.quote
        let id = q(StoreLayout.idColumn)
        for entity in schema.entities {
            for relationship in entity.relationships {
                let destination = layout.table(relationship.destination)
                switch relationship.kind {
                case .toOne:
                    let column = layout.column(entity.name, relationship.name)
                    try db.execute(
                        .update,
                        "UPDATE \(layout.table(entity.name)) SET \(column) = NULL WHERE \(column) IS NOT NULL AND \(column) NOT IN (SELECT \(id) FROM \(destination))"
                    )
                case .toMany:
                    try db.execute(
                        .update,
                        """
                        DELETE FROM \(layout.joinTable(entity.name, relationship.name))
                        WHERE \(q(StoreLayout.ownerColumn)) NOT IN (SELECT \(id) FROM \(layout.table(entity.name)))
                           OR \(q(StoreLayout.targetColumn)) NOT IN (SELECT \(id) FROM \(destination))
                        """)
                }
            }
        }
    }
}
