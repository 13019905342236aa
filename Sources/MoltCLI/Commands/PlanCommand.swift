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
            The migration runs on a temporary copy of the store, in a transaction that is rolled back, and every \
            statement that would change the store is printed; the store itself is only read. A step that cannot be \
            inferred is reported as `migrate` would report it (exit code 5).
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
    }

    func run() throws {
        let info = try Files.existingStore(at: storeArgument.store)
        let schema = try Files.schema(at: target.to)
        let plan = try mapping.plan(from: info.schema, to: schema)
        let dryRun: MigrationDryRun
        if let url = info.location.url {
            let folder = try Files.temporaryFolder("molt-plan")
            defer { try? FileManager.default.removeItem(at: folder) }
            let copy = folder.appendingPathComponent(url.lastPathComponent)
            try Files.copyStore(url, to: copy)
            dryRun = try Store.dryRunMigration(at: copy, to: schema, plan: plan)
        } else {
            // PostgreSQL's DDL is transactional: the rolled-back transaction leaves the database as it was.
            dryRun = try Store.dryRunMigration(at: info.location, to: schema, plan: plan)
        }
        let report = Report(
            store: StoreAddress.describe(info), fromVersion: dryRun.fromVersion, toVersion: dryRun.toVersion, steps: dryRun.steps,
            statements: dryRun.statements, objectsTouched: dryRun.objectsTouched)
        if output.json {
            try Terminal.json(report)
            return
        }
        guard !report.steps.isEmpty else {
            Terminal.line("The store is already at version \(info.version) with this schema: nothing to do.")
            return
        }
        Terminal.line("Plan for \(report.store): version \(report.fromVersion) → \(report.toVersion) (dry run, nothing written)")
        Terminal.line()
        Terminal.line("Steps:")
        for step in report.steps { Terminal.line("  \(step)") }
        Terminal.line()
        Terminal.line("SQL:")
        for statement in report.statements { Terminal.line("  \(statement);") }
        Terminal.line()
        Terminal.line("Rows written: \(report.objectsTouched)")
    }
}
