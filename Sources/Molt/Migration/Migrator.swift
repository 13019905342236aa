import Foundation

/// Runs the steps of a migration inside the caller's transaction, then validates the result.
///
/// Consecutive inferred steps are folded into one ``LightweightMigration``, so that each table is altered or
/// rebuilt at most once however many versions they cross. A custom stage first materialises the version it
/// starts from, adds the next version beside it (``StageWorkspace``), runs its code or mappings, and hands
/// the clean-up to the following fold.
struct Migrator {
    let path: [MigrationStep]
    let progress: (@Sendable (MigrationProgress) -> Void)?
    var cancellation: MigrationCancellation? = nil

    func run(in db: any SQLConnection, from stored: Schema) throws -> MigrationRecord {
        let startedAt = Date()
        let clock = ContinuousClock.now
        guard let target = path.last?.to else {
            return MigrationRecord(
                fromVersion: stored.version, toVersion: stored.version, startedAt: startedAt, duration: 0, steps: [],
                stepRecords: [])
        }
        let run = RunContext(progress: progress, cancellation: cancellation, stepCount: path.count)
        var state = RunState(start: stored)
        for (index, step) in path.enumerated() {
            run.enter(step: index, from: step.from.version, to: step.to.version)
            try run.checkCancellation()
            try state.run(step, in: db, run: run)
        }
        try run.checkCancellation()
        try state.applyPending(in: db, run: run)
        run.begin("validating", entity: nil, total: 0)
        let raised = RaisedMinimum.along(path)
        try StoreValidator.validate(
            db, against: target, checkingLinksOf: state.linkedTables, inversesAround: state.inverseTables,
            from: stored, stageWrote: state.stageWrote, changes: state.changes, raised: raised)
        // The owners a raised minimum found short are kept, as Core Data's lightweight migration keeps them, and
        // listed in the entry of the step that raised it.
        let short = try Self.shortOwners(raised, in: db, target: target)
        for index in state.records.indices {
            let record = state.records[index]
            state.records[index].underMinimumCount = short[[record.fromVersion, record.toVersion]] ?? []
        }
        run.finish()
        let seconds = (ContinuousClock.now - clock).inSeconds
        return MigrationRecord(
            fromVersion: stored.version, toVersion: target.version, startedAt: startedAt, duration: seconds,
            steps: state.lines,
            stepRecords: state.records)
    }
}

extension Migrator {
    /// The tables (by their names in `path`'s first version) whose rows a run reads whole or rewrites, for the
    /// check before a migration; nil when a custom stage or a mapping runs, which may read anything.
    ///
    /// Inferred steps are folded as the run folds them: a table rebuilt, or converted in place, is rewritten;
    /// so is a table that loses a column (SQLite's `DROP COLUMN` rewrites each row); a join table seeded from
    /// a to-one column reads that column's table. Adding or renaming a column reads no row.
    static func tablesReadWhole(by path: [MigrationStep], in db: any SQLConnection) throws -> Set<String>? {
        guard let first = path.first else { return [] }
        var fold = LightweightMigration(start: first.from.storageSchema)
        var tables: Set<String> = []
        for step in path {
            // Values moved between the columns of a hierarchy's table, and entities renamed: an UPDATE reads every
            // row (by the table's name at the run's start, which the fold knows before this step).
            if let columns = step.hierarchyColumns {
                let read = columns.moves.map(\.oldTable) + HierarchyRenames(step.diff).tableNames
                tables.formUnion(read.map { fold.tables[$0]?.origin?.name ?? $0 })
            }
            switch step.stage?.kind {
            case nil, .lightweight?: try fold.fold(step.storageDiff)
            case .custom?, .mapping?: return nil
            }
        }
        for entity in fold.current.entities {
            guard let origin = fold.tables[entity.name]?.origin, let change = fold.tableChange(for: entity) else {
                continue
            }
            var kept: Set<String> = []
            let inPlace = change.finalColumns(for: db.dialect).allSatisfy {
                switch $0.source {
                case .column(let name):
                    kept.insert(name)
                    return true
                case .literal: return true
                default: return false
                }
            }
            // SQLite's DROP COLUMN rewrites every row, and the values dropped are counted first.
            let drops = change.originColumns.contains { !kept.contains($0) }
            if db.rewritesRows(change) || !inPlace || drops || !change.exactDoubles.isEmpty {
                tables.insert(origin.name)
            }
        }
        for join in fold.joins.values {
            if let seed = join.seed { tables.insert(seed.table) }
        }
        return tables
    }
}

/// The state of a run between its steps: the inferred steps folded but not yet applied, the tables whose links
/// may have broken, the history lines and records.
private struct RunState {
    var pending: LightweightMigration
    /// The tables where links may have broken: those inferred steps and stages wrote to (stages write through
    /// objects and mappings, which report every table), so that validation checks them and what links to them.
    var linkedTables: Set<String>? = []
    /// The tables where the two sides of a relationship may disagree: sides filled from their inverse, pairs
    /// declared inverses anew, and what stages wrote.
    var inverseTables: Set<String> = []
    /// Whether a stage wrote objects: every JSON value is then checked against its shape.
    var stageWrote = false
    /// The objects stages inserted and the owners whose links they (or a step over a hierarchy) removed, by the
    /// tables' names in the version each step led to: those held to a minimum count the run keeps.
    let changes = TableAccess()
    var lines: [String] = []
    var records: [MigrationStepRecord] = []

    init(start: Schema) { pending = LightweightMigration(start: start.storageSchema) }

    mutating func applyPending(in db: any SQLConnection, run: RunContext) throws {
        var tables: Set<String> = []
        _ = try pending.apply(in: db, linkedTables: &tables, inverseTables: &inverseTables, run: run)
        linkedTables?.formUnion(tables)
    }

    mutating func run(_ step: MigrationStep, in db: any SQLConnection, run: RunContext) throws {
        let diff = step.diff
        let summary = diff.changes.isEmpty ? "no change" : diff.changes.map(\.description).joined(separator: " ")
        let (from, to) = (step.from.version, step.to.version)
        switch step.stage?.kind {
        case nil, .lightweight?:
            if let error = diff.notInferableError { throw error }
            if HierarchyMigration.involves(diff) {
                try runInHierarchies(step, in: db, run: run)
                return
            }
            let (dropped, updated) = try pending.count(diff, in: db)
            try pending.fold(diff)
            lines.append("\(from) → \(to) inferred: \(summary)")
            records.append(
                MigrationStepRecord(
                    fromVersion: from, toVersion: to, kind: .inferred, objectsUpdated: updated, dropped: dropped))
        case .custom?, .mapping?:
            if HierarchyMigration.involves(diff) { try HierarchyStage.check(step) }
            try runStage(step, in: db, run: run)
        }
    }

    /// An inferred step between versions with a hierarchy: the steps folded so far are applied, the hierarchy's
    /// objects checked (``HierarchyMigration``), and the step applied on its own to the tables as they are.
    private mutating func runInHierarchies(_ step: MigrationStep, in db: any SQLConnection, run: RunContext) throws {
        try applyPending(in: db, run: run)
        pending = LightweightMigration(start: pending.current)
        let linkCounts = try HierarchyLinkCounts(step, in: db)
        let hierarchy = try HierarchyMigration(step, in: db)
        let deleted = try hierarchy.deleteDeclared(in: db)
        let renamed = try hierarchy.renames.rename(in: db)
        try hierarchy.columns.move(before: true, in: db)
        let storage = step.storageDiff
        let (dropped, updated) = try pending.count(storage, in: db)
        try pending.fold(storage)
        try applyPending(in: db, run: run)
        pending = LightweightMigration(start: pending.current)
        try hierarchy.columns.move(before: false, in: db)
        try hierarchy.clear(in: db)
        try hierarchy.fill(in: db)
        linkedTables = nil
        inverseTables.formUnion(StoreLayout.tableNames(step.to))
        // Objects of a sub-entity removed went with their links: the owners linking into a hierarchy that hold fewer.
        try linkCounts.record(in: changes, after: step, in: db)
        let summary =
            step.diff.changes.isEmpty ? "no change" : step.diff.changes.map(\.description).joined(separator: " ")
        lines.append("\(step.from.version) → \(step.to.version) inferred: \(summary)")
        records.append(
            MigrationStepRecord(
                fromVersion: step.from.version, toVersion: step.to.version, kind: .inferred,
                objectsUpdated: updated + renamed, objectsDeleted: deleted, dropped: dropped))
    }

    private mutating func runStage(_ step: MigrationStep, in db: any SQLConnection, run: RunContext) throws {
        let (diff, from, to) = (step.diff, step.from.version, step.to.version)
        let summary = diff.changes.isEmpty ? "no change" : diff.changes.map(\.description).joined(separator: " ")
        switch step.stage?.kind {
        case nil, .lightweight?: return
        case .custom(let bodies)?:
            let migration = try beginStage(step, in: db, run: run)
            for body in bodies { try body(migration) }
            try endStage(migration, kind: .custom)
            lines.append("\(from) → \(to) custom: \(summary)")
        case .mapping(let mappings, let hook)?:
            let migration = try beginStage(step, in: db, run: run)
            try migration.apply(mappings, foldingIntoRebuild: hook == nil)
            try hook?(migration)
            try endStage(migration, kind: .mapping)
            lines.append("\(from) → \(to) mapping (\(mappings.count) entity mapping(s)): \(summary)")
        }
    }

    private mutating func beginStage(
        _ step: MigrationStep, in db: any SQLConnection, run: RunContext
    ) throws -> Migration {
        try applyPending(in: db, run: run)
        let workspace = try StageWorkspace.prepare(step, in: db)
        if HierarchyMigration.involves(step.diff) { try HierarchyStage.renameEntities(step, in: workspace, db: db) }
        return Migration(workspace: workspace, db: db, run: run)
    }

    private mutating func endStage(_ migration: Migration, kind: MigrationStepRecord.Kind) throws {
        let (finalizer, dropped) = try migration.finish()
        pending = finalizer
        linkedTables?.formUnion(migration.workspace.writtenTables)
        changes.absorb(migration.workspace.changes, naming: migration.workspace.finalName(of:))
        if !migration.workspace.writtenTables.isEmpty { stageWrote = true }
        inverseTables.formUnion(migration.workspace.writtenTables)
        if HierarchyMigration.involves(migration.workspace.diff) {
            // Objects renamed, or deleted with their entity at the end: every link and inverse is checked.
            linkedTables = nil
            inverseTables.formUnion(StoreLayout.tableNames(migration.newSchema))
        }
        inverseTables.formUnion(migration.workspace.filledInverseTables)
        let counts = migration.workspace.counts
        records.append(
            MigrationStepRecord(
                fromVersion: migration.fromVersion, toVersion: migration.toVersion, kind: kind,
                objectsInserted: counts.inserted,
                objectsUpdated: counts.updated, objectsDeleted: counts.deleted, dropped: dropped))
    }
}

extension Migration {
    /// Ends the stage: checks that every required attribute of the new version has a value, unlinks objects
    /// the stage deleted, drops the old side's snapshots, counts what the new version drops, and returns the
    /// change that brings the tables to the new version's layout.
    func finish() throws -> (LightweightMigration, [DroppedData]) {
        try checkIntermediateNames()
        let layout = workspace.newLayout
        for entity in newSchema.entities {
            for (attribute, column) in workspace.requiredWithoutDefault[entity.name] ?? []
            where !workspace.computedLater.contains(attribute, of: entity.name) {
                let missing =
                    try db.fetchInt(
                        "SELECT COUNT(*) FROM \(layout.table(entity.name)) WHERE \(db.dialect.quote(column)) IS NULL")
                    ?? 0
                if missing > 0 {
                    throw MoltError(
                        .validationFailed,
                        "Attribute '\(entity.name).\(attribute)' is required in version \(toVersion), but \(missing) object(s) have no value after the stage \(fromVersion) → \(toVersion). Set it for every object in the stage (for example `new[\"\(attribute)\"] = …` in `enumerateObjects(ofType: \"\(entity.name)\")`), give the attribute a default, or make it optional. The store was left at version \(fromVersion).",
                        entity: entity.name, property: attribute)
                }
            }
        }
        if HierarchyMigration.involves(workspace.diff) { try HierarchyStage.removeLeftovers(of: self) }
        try sweepLinks(to: workspace.counts.deletedEntities)
        try workspace.dropSnapshots()
        var dropped = try DataLoss.check(workspace.storage, refusing: false) { loss in try storedCount(of: loss) }
        for i in dropped.indices where !dropped[i].isRelationship {
            dropped[i].wasReadByStage =
                dropped[i].property.map { workspace.read($0, of: dropped[i].entity) }
                ?? workspace.readAnything(of: dropped[i].entity)
        }
        return (workspace.finalizer, dropped)
    }

    /// What is stored now, in the workspace, for a removal of the new version.
    private func storedCount(of loss: SchemaDiff.Loss) throws -> Int {
        let q = db.dialect.quote
        guard let entity = workspace.storage.source.entity(named: loss.entity) else { return 0 }
        guard let property = loss.property else {
            return Int(try db.fetchInt("SELECT COUNT(*) FROM \(q(entity.name))") ?? 0)
        }
        if let relationship = entity.relationship(named: property), relationship.kind == .toMany {
            let table = StoreLayout.joinTableName(entity: entity.name, relationship: property)
            return Int(try db.fetchInt("SELECT COUNT(*) FROM \(q(table))") ?? 0)
        }
        return Int(try db.fetchInt("SELECT COUNT(*) FROM \(q(entity.name)) WHERE \(q(property)) IS NOT NULL") ?? 0)
    }

    /// Foreign keys are not enforced during a migration: unlink what points to objects the stage deleted (an
    /// object deleted from a hierarchy is gone from the table every entity of it links into).
    func sweepLinks(to deleted: Set<String>) throws {
        let layout = workspace.newLayout
        try LinkSweep.sweep(newSchema, layout, from: Set(deleted.map(layout.physicalTable)), in: db)
    }
}
