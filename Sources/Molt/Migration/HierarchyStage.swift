/// A custom stage between versions with hierarchies (entities that inherit from others, sharing their root's
/// table): what Molt checks before it runs, does around it, and finishes after it.
///
/// The stage's workspace is laid out by the step's storage diff (``MigrationStep/storageDiff``): a hierarchy is
/// its root's table, each entity's objects the rows of its name in the entity column. So the old side reads
/// each object with its own entity's values (``Migration/enumerateObjects(ofType:_:)`` of a parent hands the
/// objects of each sub-entity in turn), the new side inserts into any entity of a hierarchy, and what the new
/// side writes never shows on the old side, as in any stage.
///
/// Before anything is written, it refuses what a stage cannot yet do over a hierarchy: an entity mapping, an
/// entity that moves to another hierarchy's table (a new parent from elsewhere, a flattened sub-entity), and
/// values that change column because a sibling declares the same name — each of those is an inferred step of its
/// own. Entities renamed within a hierarchy are renamed before the stage, the old side reading a snapshot with
/// their old names. When the stage ends, objects of an entity the new version no longer has as a concrete entity
/// (removed, or made abstract) go if the version declares their deletion, and are refused otherwise.
enum HierarchyStage {
    /// Refuses a step whose stage Molt cannot run over its hierarchies, naming the entity and what to do.
    static func check(_ step: MigrationStep) throws {
        let (diff, from, to) = (step.diff, step.from, step.to)
        let versions = "The step from version \(from.version) to \(to.version)"
        if case .mapping? = step.stage?.kind {
            throw MoltError(
                .migrationNotInferable,
                "\(versions) declares entity mappings, but its versions have entities that inherit from others (\(hierarchyMembers(step).joined(separator: ", "))); Molt cannot run a mapping over a hierarchy yet. Write the step as a custom stage: `migration.enumerateObjects(ofType:)` hands the objects of each sub-entity with their own values, and `migration.create(_:value:)` inserts into any entity.",
                entity: hierarchyMembers(step).first)
        }
        for entity in to.entities {
            guard let old = diff.originalName(ofEntity: entity.name), from.entity(named: old) != nil,
                let newRoot = to.rootEntity(of: entity.name)?.name, let oldRoot = from.rootEntity(of: old)?.name,
                diff.originalName(ofEntity: newRoot) != oldRoot
            else { continue }
            throw MoltError(
                .migrationNotInferable,
                "\(versions) runs a custom stage, and moves entity '\(entity.name)' out of the table of '\(oldRoot)' into that of '\(newRoot)' (a new parent from another hierarchy, or none). Molt cannot move objects between tables in a stage yet: make the move a step of its own, without a stage, or keep the parent.",
                entity: entity.name)
        }
        let columns = step.hierarchyColumns ?? HierarchyColumns(diff)
        if let move = columns.moves.first {
            throw MoltError(
                .migrationNotInferable,
                "\(versions) runs a custom stage, and the values of '\(move.entity).\(move.property)' change column in the table of '\(move.table)' (a sibling declares a property of that name, or stops declaring it). Make that change a step of its own, without a stage, before or after this one.",
                entity: move.entity, property: move.property)
        }
        if let refusal = columns.refusals.first {
            throw MoltError(.migrationNotInferable, "\(versions) cannot run: \(refusal)")
        }
    }

    /// The entities of either version that inherit from another.
    private static func hierarchyMembers(_ step: MigrationStep) -> [String] {
        Array(Set((step.from.entities + step.to.entities).filter { $0.parent != nil }.map(\.name))).sorted()
    }

    /// Renames the objects of the entities the step renames within a hierarchy, once the old side reads a
    /// snapshot of their table with the old names; the objects renamed count as updated.
    static func renameEntities(_ step: MigrationStep, in workspace: StageWorkspace, db: any SQLConnection) throws {
        for table in HierarchyRenames(step.diff).tables {
            try workspace.willWrite(table: table.table, columns: nil)
            let renamed = try db.execute(.update, HierarchyRenames.statement(table, dialect: db.dialect), [])
            let root = workspace.origins.first { $0.value == table.table }?.key ?? table.table
            workspace.counts.updatedAll(root, count: renamed)
        }
    }

    /// Deletes, when the stage ends, the objects left of entities the new version does not have as concrete
    /// entities, where the version declares their deletion: by the older version's delete rules, counting what
    /// links to them for minimum counts, their links swept; refuses, naming them, where it does not.
    static func removeLeftovers(of migration: Migration) throws {
        let (workspace, db) = (migration.workspace, migration.db)
        let (from, to) = (migration.oldSchema, migration.newSchema)
        let q = db.dialect.quote
        let column = q(StoreLayout.entityColumn)
        // The objects of every table before the first deletion: a cascade may reach any of them, and the record
        // counts what it deleted too.
        var before: [String: Int64]?
        for oldRoot in from.entities where oldRoot.parent == nil && from.isInHierarchy(oldRoot.name) {
            guard let newRoot = workspace.origins.first(where: { $0.value == oldRoot.name })?.key else { continue }
            let concrete =
                to.isInHierarchy(newRoot)
                ? to.concreteEntityNames(of: newRoot)
                : (to.entity(named: newRoot)?.isAbstract == false ? [newRoot] : [])
            let table = workspace.newLayout.table(newRoot)
            let kept = concrete.map { db.dialect.literal(.string($0)) }.joined(separator: ", ")
            let rows = try db.fetchRows(
                "SELECT \(column), COUNT(*) FROM \(table)\(kept.isEmpty ? "" : " WHERE \(column) NOT IN (\(kept))") GROUP BY \(column) ORDER BY \(column)",
                [], types: [.string, .int])
            for row in rows {
                guard let name = row[0].string, let count = row[1].int else { continue }
                let declared = workspace.diff.declaredDeletions.contains { $0.entity == name && $0.property == nil }
                guard declared else {
                    throw MoltError(
                        .validationFailed,
                        "The stage \(from.version) → \(to.version) leaves \(count) object\(count == 1 ? "" : "s") of entity '\(name)', which version \(to.version) does not have as a concrete entity. Create what replaces \(count == 1 ? "it" : "them") in the stage and declare \(count == 1 ? "its" : "their") deletion (`Schema(version: \(to.version), deleting: [.entity(\"\(name)\")])`), or delete \(count == 1 ? "it" : "them") in the stage (`migration.deleteData(forType: \"\(name)\")`). The store was left at version \(from.version).",
                        entity: name)
                }
                let selected = "SELECT \(q(StoreLayout.idColumn)) FROM \(table) WHERE \(column) = ?"
                try recordOwners(into: newRoot, of: migration, selected: selected, [.string(name)])
                // By the older version's delete rules, as an inferred step deletes them: a cascade follows, a deny
                // refuses the run.
                if before == nil { before = try objectCounts(of: migration) }
                try HierarchyMigration.deleteObjects(of: name, by: from, deletedIn: to.version, in: db)
            }
        }
        guard let before else { return }
        for (root, count) in try objectCounts(of: migration) where count < before[root] ?? 0 {
            workspace.didDelete(root, count: Int((before[root] ?? 0) - count))
        }
        // A cascade may have reached any table: every link to an object gone is unlinked.
        try LinkSweep.sweep(to, workspace.newLayout, from: nil, in: db)
    }

    /// The number of objects in the table of each root entity of the new version.
    private static func objectCounts(of migration: Migration) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for root in migration.newSchema.entities where root.parent == nil {
            counts[root.name] =
                try migration.db.fetchInt("SELECT COUNT(*) FROM \(migration.workspace.newLayout.table(root.name))") ?? 0
        }
        return counts
    }

    /// Records the owners of to-many relationships with a minimum count that link to the objects `selected`
    /// picks (in the hierarchy of `root`): they lose a link, and only they are held to the minimum.
    private static func recordOwners(
        into root: String, of migration: Migration, selected: String, _ arguments: [Value]
    ) throws {
        let (schema, layout, db) = (migration.newSchema, migration.workspace.newLayout, migration.db)
        let q = db.dialect.quote
        for owner in schema.entities {
            for relationship in owner.relationships
            where relationship.kind == .toMany && relationship.toManyMinimum != nil
                && schema.rootEntity(of: relationship.destination)?.name == root
            {
                let join = layout.physicalJoinTable(owner.name, relationship.name)
                let owners = try db.fetchInts(
                    "SELECT DISTINCT \(q(StoreLayout.ownerColumn)) FROM \(layout.joinTable(owner.name, relationship.name)) WHERE \(q(StoreLayout.targetColumn)) IN (\(selected))",
                    arguments)
                migration.workspace.changes.willWrite(join)
                migration.workspace.changes.mayEmptyLinks(in: join, of: owners)
            }
        }
    }
}
