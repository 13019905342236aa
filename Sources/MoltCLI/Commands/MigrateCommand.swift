import ArgumentParser
import Foundation
import Molt

/// `molt migrate STORE --to NEW.json [--mapping FILE] [--backup [--keep-backup]] [--json]`: migrates a store to
/// a schema snapshot, in one transaction, validated before it commits; `--to DIR [--to-version N]` walks a folder
/// of snapshots version by version (``MigrationTarget``).
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a schema snapshot, all or nothing.",
        discussion: """
            Molt infers the steps from the schema recorded in the store to the snapshot, runs them in one \
            transaction and validates the result before committing: on any error the store is left exactly as it \
            was. Given a folder of snapshots (N.json), --to walks every version from the store's to the newest (or \
            --to-version N) in order, in the same one transaction, running the folder's FROM-to-TO.mapping.json \
            files (the format of --mapping) as the stages of their steps and inferring the others. Before its first write it checks the whole store, SQLite's quick_check of every page and every link, \
            reading it once (about a second per gigabyte; --skip-check skips it), and refuses a damaged store. With --backup, a \
            consistent copy (SQLite's online backup) is kept as `STORE.backup-<version>` until the migration \
            succeeds, then removed unless --keep-backup is given. --secure-delete fast makes table rebuilds quicker \
            by not zeroing the old pages, so old values may linger in free pages until the store is vacuumed. A \
            store already at the target (perhaps migrated by another process meanwhile) is left alone, exit 0. A \
            progress bar is drawn when standard output is a terminal.
            """)

    @OptionGroup var storeArgument: StoreArgument
    @OptionGroup var target: TargetSchemaOptions

    @OptionGroup var mapping: MappingOptions

    @Flag(
        name: .long,
        help: "Copy the store to STORE.backup-<version> before migrating, and remove the copy after success.")
    var backup = false

    @Flag(name: .long, help: "With --backup: keep the copy after success.")
    var keepBackup = false

    @Flag(
        name: .long,
        help: "Skip the check of the whole store (SQLite's quick_check, every link) before the migration's first write."
    )
    var skipCheck = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How rebuilt tables' old pages are erased: default (zeroed), or fast (quicker; old values may remain in free pages until VACUUM).",
            valueName: "mode"))
    var secureDelete: SecureDeleteMode = .default

    enum SecureDeleteMode: String, ExpressibleByArgument, CaseIterable {
        case `default`, fast
    }

    @OptionGroup var output: OutputOptions

    struct Report: Encodable {
        var store: String
        var fromVersion: Int
        var toVersion: Int
        var duration: Double
        var objectsTouched: Int
        var steps: [String]
        var stepRecords: [MigrationStepRecord]
        var backup: String?
    }

    func validate() throws {
        if keepBackup && !backup { throw ValidationError("--keep-backup needs --backup.") }
    }

    func run() throws {
        let location = try Files.existingStoreLocation(storeArgument.store)
        let name = StoreAddress.describe(location)
        let destination = try MigrationTarget(target, mapping: mapping)
        let schema = destination.schema
        let info = try Self.readRecovering(location)
        if schema.isRecorded(version: info.version, hash: info.hash) {
            try finish(
                Report(
                    store: name, fromVersion: info.version, toVersion: info.version, duration: 0, objectsTouched: 0,
                    steps: [], stepRecords: [], backup: nil), waited: false)
            return
        }
        var options = Files.existingStoreOptions()
        options.plan = try destination.plan(from: info.schema)
        options.checksIntegrityBeforeMigrating = !skipCheck
        options.secureDelete = secureDelete == .fast ? .fast : .systemDefault
        // Refuse before copying anything: a newer store, or a step that needs code, leaves no backup behind.
        try Store.checkMigration(from: info.schema, to: schema, plan: options.plan)
        let backupURL = backup ? try makeBackup(of: location, version: info.version) : nil
        let bar = output.json ? nil : Terminal.progressBar(title: "Migrating")
        options.progress = bar?.handler
        let record: MigrationRecord?
        do {
            let store = try Store.open(at: location, schema: schema, options: options)
            defer { try? store.close() }
            bar?.finish()
            guard case .migrated = store.outcome else {
                // Another process migrated the store between this one's first look and its lock.
                if let backupURL { Files.removeStore(backupURL) }
                try finish(
                    Report(
                        store: name, fromVersion: schema.version, toVersion: schema.version, duration: 0,
                        objectsTouched: 0,
                        steps: [], stepRecords: [], backup: nil), waited: true)
                return
            }
            record = try store.lastMigration()
        } catch {
            bar?.finish()
            if let backupURL { Terminal.error("note: the store was left as it was; a copy is at \(backupURL.path).") }
            throw Self.explained(error, store: location.url)
        }
        if let backupURL, !keepBackup { Files.removeStore(backupURL) }
        try finish(
            Report(
                store: name, fromVersion: info.version, toVersion: schema.version, duration: record?.duration ?? 0,
                objectsTouched: record?.objectsTouched ?? 0, steps: record?.steps ?? [],
                stepRecords: record?.stepRecords ?? [],
                backup: keepBackup ? backupURL?.path : nil), waited: false)
    }

    /// The schema a store records, and its hash (neither its history nor its counts: they are not needed here).
    struct Recorded {
        var schema: Schema
        var hash: String
        var version: Int { schema.version }
    }

    /// The store's schema and hash; a journal or log left by a dead writer is recovered first, since migrate is
    /// a command that writes.
    static func readRecovering(_ location: StoreLocation) throws -> Recorded {
        try Store.recoveringFirst(
            location, recovered: { Terminal.error("note: \($0) (left by a process that stopped while writing).") }
        ) {
            let (schema, hash) = try Store.recordedSchema(at: location)
            return Recorded(schema: schema, hash: hash)
        }
    }

    /// `STORE.backup-<version>`, a consistent copy made with SQLite's online backup.
    private func makeBackup(of location: StoreLocation, version: Int) throws -> URL {
        guard let url = location.url else {
            throw CLIFailure(
                .badInput,
                "--backup copies a store file; back a PostgreSQL store up with `pg_dump --schema=…` instead (a failed migration leaves it as it was anyway); nothing was written."
            )
        }
        let backupURL = URL(fileURLWithPath: url.path + ".backup-\(version)")
        guard !FileManager.default.fileExists(atPath: backupURL.path) else {
            throw CLIFailure(
                .failure,
                "\(backupURL.path) already exists: move that earlier backup away, or migrate without --backup; nothing was written."
            )
        }
        try Files.backUpStore(url, to: backupURL)
        return backupURL
    }

    /// A full disk's error with the room the migration may need: up to the store's size again, for a rebuild.
    static func explained(_ error: any Error, store url: URL?) -> any Error {
        guard var error = error as? MoltError, error.code == .diskFull, let url else { return error }
        let size = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
        error.message +=
            " This migration may need up to \(Format.bytes(size)) free beside the store (as much as the store's \(Format.bytes(size)), for the tables it rebuilds and their journal)."
        return error
    }

    private func finish(_ report: Report, waited: Bool) throws {
        if output.json {
            try Terminal.json(report)
            return
        }
        guard report.fromVersion != report.toVersion || !report.steps.isEmpty else {
            Terminal.line(
                waited
                    ? "The store is already at version \(report.toVersion) (migrated by another process): nothing to do."
                    : MigrationTarget.nothingToDo(version: report.toVersion))
            return
        }
        Terminal.line(
            "Migrated \(report.store) from version \(report.fromVersion) to \(report.toVersion) in \(Format.duration(report.duration)) (\(Format.changes(report.stepRecords)))."
        )
        for step in report.steps { Terminal.line("  \(step)") }
        if let backup = report.backup { Terminal.line("Backup kept at \(backup).") }
    }
}
