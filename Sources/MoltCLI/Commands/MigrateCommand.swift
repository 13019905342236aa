import ArgumentParser
import Foundation
import Molt

/// `molt migrate STORE --to NEW.json [--mapping FILE] [--backup [--keep-backup]] [--json]`: migrates a store to
/// a schema snapshot, in one transaction, validated before it commits.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a schema snapshot, all or nothing.",
        discussion: """
            Molt infers the steps from the schema recorded in the store to the snapshot, runs them in one \
            transaction and validates the result before committing: on any error the store is left exactly as it \
            was. With --backup, a copy is kept as `STORE.backup-<version>` until the migration succeeds, then \
            removed unless --keep-backup is given. A progress bar is drawn when standard output is a terminal.
            """)

    @OptionGroup var storeArgument: StoreArgument
    @OptionGroup var target: TargetSchemaOptions

    @OptionGroup var mapping: MappingOptions

    @Flag(name: .long, help: "Copy the store to STORE.backup-<version> before migrating, and remove the copy after success.")
    var backup = false

    @Flag(name: .long, help: "With --backup: keep the copy after success.")
    var keepBackup = false

    @OptionGroup var output: OutputOptions

    struct Report: Encodable {
        var store: String
        var fromVersion: Int
        var toVersion: Int
        var duration: Double
        var objectsTouched: Int
        var steps: [String]
        var backup: String?
    }

    func validate() throws {
        if keepBackup && !backup { throw ValidationError("--keep-backup needs --backup.") }
    }

    func run() throws {
        let info = try Files.existingStore(at: storeArgument.store)
        let schema = try Files.schema(at: target.to)
        var options = StoreAddress.options(for: info)
        options.plan = try mapping.plan(from: info.schema, to: schema)
        if info.schema.version == schema.version && info.schemaHash == schema.contentHash {
            try finish(Report(
                store: StoreAddress.describe(info), fromVersion: info.version, toVersion: info.version, duration: 0, objectsTouched: 0,
                steps: [], backup: nil))
            return
        }
        // Refuse before copying anything: a newer store, or a step that needs code, leaves no backup behind.
        try Store.checkMigration(from: info.schema, to: schema, plan: options.plan)

        var backupURL: URL?
        if backup {
            guard info.location.url != nil else {
                throw CLIFailure(
                    .failure, "--backup copies a store file; back a PostgreSQL store up with `pg_dump --schema=…` instead (a failed migration leaves it as it was anyway); nothing was written.")
            }
            let url = URL(fileURLWithPath: info.url.path + ".backup-\(info.version)")
            guard !FileManager.default.fileExists(atPath: url.path) else {
                throw CLIFailure(
                    .failure, "\(url.path) already exists: move that earlier backup away, or migrate without --backup; nothing was written.")
            }
            try Files.copyStore(info.url, to: url)
            backupURL = url
        }
        let bar = output.json ? nil : Terminal.progressBar(title: "Migrating")
        options.progress = bar?.handler
        do {
            let store = try Store.open(at: info.location, schema: schema, options: options)
            try store.close()
            bar?.finish()
        } catch {
            bar?.finish()
            if let backupURL { Terminal.error("note: the store was left as it was; a copy is at \(backupURL.path).") }
            throw error
        }
        let record = try Store.inspect(at: info.location).history.last
        if let backupURL, !keepBackup { Files.removeStore(backupURL) }
        try finish(Report(
            store: StoreAddress.describe(info), fromVersion: info.version, toVersion: schema.version, duration: record?.duration ?? 0,
            objectsTouched: record?.objectsTouched ?? 0, steps: record?.steps ?? [],
            backup: keepBackup ? backupURL?.path : nil))
    }

    private func finish(_ report: Report) throws {
        if output.json {
            try Terminal.json(report)
            return
        }
        guard report.fromVersion != report.toVersion || !report.steps.isEmpty else {
            Terminal.line("The store is already at version \(report.toVersion) with this schema: nothing to do.")
            return
        }
        Terminal.line(
            "Migrated \(report.store) from version \(report.fromVersion) to \(report.toVersion) in \(Format.duration(report.duration)) (\(Format.count(report.objectsTouched, "object")) touched).")
        for step in report.steps { Terminal.line("  \(step)") }
        if let backup = report.backup { Terminal.line("Backup kept at \(backup).") }
    }
}
