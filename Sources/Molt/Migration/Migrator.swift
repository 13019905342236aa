import Foundation
import GRDB

/// Runs the steps of a migration inside the caller's transaction, then validates the result.
///
/// Consecutive inferred steps are folded into one ``LightweightMigration``, so that each table is altered
/// or rebuilt at most once however many versions the run crosses.
struct Migrator {
    let path: [MigrationStep]
    let progress: (@Sendable (MigrationProgress) -> Void)?

    func run(in db: Database, from stored: Schema) throws -> MigrationRecord {
        let startedAt = Date()
        let clock = ContinuousClock.now
        guard let target = path.last?.to else {
            return MigrationRecord(fromVersion: stored.version, toVersion: stored.version, startedAt: startedAt, duration: 0, objectsTouched: 0, steps: [])
        }
        var written = 0
        var lines: [String] = []
        var lightweight = LightweightMigration(start: stored)
        for (index, step) in path.enumerated() {
            report(step, index: index)
            let diff = SchemaDiff(from: step.from, to: step.to)
            let summary = diff.changes.isEmpty ? "no change" : diff.changes.map(\.description).joined(separator: " ")
            switch step.stage?.kind {
            case nil, .lightweight?:
                try lightweight.fold(to: step.to)
                lines.append("\(step.from.version) → \(step.to.version) inferred: \(summary)")
            }
        }
        written += try lightweight.apply(in: db)
        try StoreValidator.validate(db, against: target)
        if let progress, let last = path.last {
            progress(MigrationProgress(
                fromVersion: last.from.version, toVersion: last.to.version, entity: nil, completed: 1, total: 1,
                stepsCompleted: path.count, stepCount: path.count))
        }
        let duration = ContinuousClock.now - clock
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return MigrationRecord(
            fromVersion: stored.version, toVersion: target.version, startedAt: startedAt, duration: seconds,
            objectsTouched: written, steps: lines)
    }

    private func report(_ step: MigrationStep, index: Int) {
        progress?(MigrationProgress(
            fromVersion: step.from.version, toVersion: step.to.version, entity: nil, completed: 0, total: 1,
            stepsCompleted: index, stepCount: path.count))
    }
}
