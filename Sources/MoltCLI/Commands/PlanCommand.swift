import ArgumentParser
import Foundation
import Molt

/// `molt plan STORE --to NEW.json [--json]`: a dry run that shows the steps of a migration and the SQL it
/// would execute, without writing to the store.
///
/// The SQL is the real one: the migration runs on a temporary copy of the store, inside a transaction that is
/// rolled back, with every statement recorded (`Store.dryRunMigration(at:to:plan:)`). The original file is only
/// read (to copy it).
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Dry run: show the steps and the SQL of a migration, without writing anything.",
        discussion: """
            The migration runs on a temporary copy of the store (SQLite's online backup, read in one read-only \
            transaction), in a transaction that is rolled back, and every statement that would change the store is \
            printed; the store itself is never written. A step that cannot be \
            inferred is reported as `migrate` would report it (exit code 5). Given a folder of snapshots, --to \
            plans the walk through every version, as `migrate` runs it, and shows every step.
            """)

    @OptionGroup var storeArgument: StoreArgument
    @OptionGroup var target: TargetSchemaOptions
    @OptionGroup var mapping: MappingOptions
    @OptionGroup var output: OutputOptions

    struct Report: Encodable {
        var store: String
        var fromVersion: Int
        var toVersion: Int
        var steps: [String]
        var statements: [String]
        var objectsTouched: Int
        var stepRecords: [MigrationStepRecord]
    }

    func run() throws {
        let destination = try MigrationTarget(target, mapping: mapping)
        let location = try Files.existingStoreLocation(storeArgument.store)
        guard let url = location.url else { return try planInTransaction(location, destination: destination) }
        let folder = try Files.temporaryFolder("molt-plan")
        defer { try? FileManager.default.removeItem(at: folder) }
        // One read of the store: a consistent copy (SQLite's online backup); everything else reads the copy.
        let copy = folder.appendingPathComponent(url.lastPathComponent)
        try Files.backUpStore(url, to: copy)
        let info = try Files.storeInfo(.file(copy), countingObjects: false)
        if info.isAt(destination.schema) {
            return try report(
                Report(
                    store: url.path, fromVersion: info.version, toVersion: info.version, steps: [], statements: [],
                    objectsTouched: 0, stepRecords: []))
        }
        let plan = try destination.plan(from: info.schema)
        let dryRun = try Store.dryRunMigration(at: copy, to: destination.schema, plan: plan)
        try self.report(
            Report(
                store: url.path, fromVersion: dryRun.fromVersion, toVersion: dryRun.toVersion, steps: dryRun.steps,
                statements: dryRun.statements, objectsTouched: dryRun.objectsTouched, stepRecords: dryRun.stepRecords))
    }

    /// A PostgreSQL store is planned in place, in a transaction that is rolled back (its DDL is transactional).
    private func planInTransaction(_ location: StoreLocation, destination: MigrationTarget) throws {
        let info = try Files.storeInfo(location, countingObjects: false)
        let name = StoreAddress.describe(location)
        if info.isAt(destination.schema) {
            return try report(
                Report(
                    store: name, fromVersion: info.version, toVersion: info.version, steps: [], statements: [],
                    objectsTouched: 0, stepRecords: []))
        }
        let plan = try destination.plan(from: info.schema)
        let dryRun = try Store.dryRunMigration(at: location, to: destination.schema, plan: plan)
        try self.report(
            Report(
                store: name, fromVersion: dryRun.fromVersion, toVersion: dryRun.toVersion, steps: dryRun.steps,
                statements: dryRun.statements, objectsTouched: dryRun.objectsTouched, stepRecords: dryRun.stepRecords))
    }

    private func report(_ report: Report) throws {
        if output.json {
            try Terminal.json(report)
            return
        }
        guard !report.steps.isEmpty else {
            Terminal.line(MigrationTarget.nothingToDo(version: report.toVersion))
            return
        }
        Terminal.line(
            "Plan for \(report.store): version \(report.fromVersion) → \(report.toVersion) (dry run, nothing written)")
        Terminal.line()
        Terminal.line("Steps:")
        for step in report.steps { Terminal.line("  \(step)") }
        Terminal.line()
        Terminal.line("SQL:")
        for statement in report.statements { Terminal.line("  \(statement);") }
        Terminal.line()
        Terminal.line("Changes: \(Format.changes(report.stepRecords))")
    }
}
