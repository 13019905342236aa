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
            return MigrationRecord(fromVersion: stored.version, toVersion: stored.version, startedAt: startedAt, duration: 0, objectsTouched: 0, steps: [])
        }
        let run = RunContext(progress: progress, cancellation: cancellation, stepCount: path.count)
        var lines: [String] = []
        var pending = LightweightMigration(start: stored)
        // The tables where links may have broken; nil once a custom stage ran (its code may write anywhere).
        var linkedTables: Set<String>? = []
        func applyPending() throws {
            var tables: Set<String> = []
            run.touched += try pending.apply(in: db, linkedTables: &tables)
            linkedTables?.formUnion(tables)
        }
        for (index, step) in path.enumerated() {
            run.stepIndex = index
            run.step = (step.from.version, step.to.version)
            run.report(entity: nil, completed: 0, total: 1)
            try run.checkCancellation()
            let diff = step.diff
            let summary = diff.changes.isEmpty ? "no change" : diff.changes.map(\.description).joined(separator: " ")
            switch step.stage?.kind {
            case nil, .lightweight?:
                try pending.fold(diff)
                lines.append("\(step.from.version) → \(step.to.version) inferred: \(summary)")
            case .custom(let bodies)?:
                try applyPending()
                linkedTables = nil
                let migration = Migration(workspace: try StageWorkspace.prepare(from: step.from, to: step.to, in: db), db: db, run: run)
                for body in bodies { try body(migration) }
                pending = try migration.finish()
                lines.append("\(step.from.version) → \(step.to.version) custom: \(summary)")
            case .mapping(let mappings, let hook)?:
                try applyPending()
                linkedTables = nil
                let migration = Migration(workspace: try StageWorkspace.prepare(from: step.from, to: step.to, in: db), db: db, run: run)
                try migration.apply(mappings)
                try hook?(migration)
                pending = try migration.finish()
                lines.append("\(step.from.version) → \(step.to.version) mapping (\(mappings.count) entity mapping(s)): \(summary)")
            }
        }
        run.stepIndex = path.count - 1
        try run.checkCancellation()
        try applyPending()
        try StoreValidator.validate(db, against: target, checkingLinksOf: linkedTables)
        run.stepIndex = path.count
        run.report(entity: nil, completed: 1, total: 1)
        let duration = ContinuousClock.now - clock
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return MigrationRecord(
            fromVersion: stored.version, toVersion: target.version, startedAt: startedAt, duration: seconds,
            objectsTouched: run.touched, steps: lines)
    }
}

extension Migration {
    /// Ends the stage: checks that every required attribute of the new version has a value, unlinks objects
    /// the stage deleted, and returns the change that brings the tables to the new version's layout.
    func finish() throws -> LightweightMigration {
        let layout = workspace.newLayout
        for entity in newSchema.entities {
            for (attribute, column) in workspace.requiredWithoutDefault[entity.name] ?? [] {
                let missing = try db.fetchInt(
                    "SELECT COUNT(*) FROM \(layout.table(entity.name)) WHERE \(db.dialect.quote(column)) IS NULL") ?? 0
                if missing > 0 {
                    throw MoltError(
                        .validationFailed,
                        "Attribute '\(entity.name).\(attribute)' is required in version \(toVersion), but \(missing) object(s) have no value after the stage \(fromVersion) → \(toVersion). Set it for every object in the stage (for example `new[\"\(attribute)\"] = …` in `enumerateObjects(ofType: \"\(entity.name)\")`), give the attribute a default, or make it optional. The store was left at version \(fromVersion).",
                        entity: entity.name, property: attribute)
                }
            }
        }
        try sweepLinks(to: deletions.entities)
        return workspace.finalizer
    }

    /// Foreign keys are not enforced during a migration: unlink what points to objects the stage deleted.
    private func sweepLinks(to deleted: Set<String>) throws {
        guard !deleted.isEmpty else { return }
        let layout = workspace.newLayout
        let q = db.dialect.quote
        let id = q(StoreLayout.idColumn)
        for entity in newSchema.entities {
            for relationship in entity.relationships {
                let destination = layout.table(relationship.destination)
                switch relationship.kind {
                case .toOne where deleted.contains(relationship.destination):
                    let column = layout.column(entity.name, relationship.name)
                    try db.execute("UPDATE \(layout.table(entity.name)) SET \(column) = NULL WHERE \(column) IS NOT NULL AND \(column) NOT IN (SELECT \(id) FROM \(destination))")
                case .toMany where deleted.contains(relationship.destination) || deleted.contains(entity.name):
                    try db.execute("""
                        DELETE FROM \(layout.joinTable(entity.name, relationship.name))
                        WHERE \(q(StoreLayout.ownerColumn)) NOT IN (SELECT \(id) FROM \(layout.table(entity.name)))
                           OR \(q(StoreLayout.targetColumn)) NOT IN (SELECT \(id) FROM \(destination))
                        """)
                default:
                    continue
                }
            }
        }
    }
}
