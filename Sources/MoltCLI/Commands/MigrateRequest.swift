import Foundation
import Molt

/// What `molt migrate` was asked to do, as plain values, and the doing of it.
///
/// ``MigrateCommand`` declares the arguments for argument-parser and hands over a request; the common forms of the
/// command line are also read without argument-parser (``init(quickParsing:)``), because `molt migrate` adding a
/// column is mostly process start-up and argument-parser's reflection over the commands was a third of it.
struct MigrateRequest: Equatable {
    /// The store's file, or a postgres:// URL.
    var store: String
    /// `--to`: a snapshot or a folder of snapshots.
    var to: String
    /// `--to-version`.
    var toVersion: Int?
    /// `--mapping`.
    var mapping: String?
    /// `--backup`.
    var backup = false
    /// `--keep-backup`.
    var keepBackup = false
    /// `--skip-check`.
    var skipCheck = false
    /// `--secure-delete fast`.
    var fastSecureDelete = false
    /// `--json`.
    var json = false

    /// A combination of options that does not make sense, as the message argument-parser prints; nil when fine.
    var usageProblem: String? {
        keepBackup && !backup ? "--keep-backup needs --backup." : nil
    }

    struct Report: Encodable {
        var store: String
        var fromVersion: Int
        var toVersion: Int
        var duration: Double
        var objectsTouched: Int
        var steps: [String]
        var stepRecords: [MigrationStepRecord]
        var backup: String?

        /// A store found at `version` already: nothing migrated.
        static func nothing(store: String, version: Int) -> Report {
            Report(
                store: store, fromVersion: version, toVersion: version, duration: 0, objectsTouched: 0, steps: [],
                stepRecords: [], backup: nil)
        }

        /// A store migrated from `from` to `to` by the recorded `run`.
        static func migrated(store: String, from: Int, to: Int, run: MigrationRecord?, backup: String?) -> Report {
            Report(
                store: store, fromVersion: from, toVersion: to, duration: run?.duration ?? 0,
                objectsTouched: run?.objectsTouched ?? 0, steps: run?.steps ?? [], stepRecords: run?.stepRecords ?? [],
                backup: backup)
        }
    }

    /// Migrates the store and prints the report; see `molt migrate --help`.
    func run() throws {
        let location = try Files.existingStoreLocation(store)
        let name = StoreAddress.describe(location)
        let destination = try MigrationTarget(to: to, toVersion: toVersion, mapping: mapping)
        let schema = destination.schema
        if let url = location.url, destination.isInferredSnapshot, !backup,
            SQLFiles.recoverableLeftover(at: url.path) == nil
        {
            return try openOnce(location, name: name, schema: schema)
        }
        let info = try Self.readRecovering(location)
        if schema.isRecorded(version: info.version, hash: info.hash) {
            return try finish(.nothing(store: name, version: info.version), waited: false)
        }
        var options = storeOptions()
        options.plan = try destination.plan(from: info.schema)
        // Refuse before copying anything: a newer store, or a step that needs code, leaves no backup behind.
        try Store.checkMigration(from: info.schema, to: schema, plan: options.plan)
        let backupURL = backup ? try makeBackup(of: location, version: info.version) : nil
        let bar = json ? nil : Terminal.progressBar(title: "Migrating")
        options.progress = bar?.handler
        let record: MigrationRecord?
        do {
            let store = try Store.open(at: location, schema: schema, options: options)
            defer { try? store.close() }
            bar?.finish()
            guard case .migrated = store.outcome else {
                // Another process migrated the store between this one's first look and its lock.
                if let backupURL { Files.removeStore(backupURL) }
                return try finish(.nothing(store: name, version: schema.version), waited: true)
            }
            record = store.migrationRun
        } catch {
            bar?.finish()
            if let backupURL { Terminal.error("note: the store was left as it was; a copy is at \(backupURL.path).") }
            throw Self.explained(error, store: location.url)
        }
        if let backupURL, !keepBackup { Files.removeStore(backupURL) }
        try finish(
            .migrated(
                store: name, from: info.version, to: schema.version, run: record,
                backup: keepBackup ? backupURL?.path : nil),
            waited: false)
    }

    /// The usual run (one snapshot, no mapping, no backup, nothing to recover): `Store.open` reads the store's
    /// version, infers and refuses as the longer path would, and migrates, on one connection. Looking first on a
    /// connection of its own, which creates and removes the write-ahead log's files, cost as much as the
    /// migration of a small step (`molt migrate` adding a column at 1M objects: 12.9 ms against 10.5 ms).
    private func openOnce(_ location: StoreLocation, name: String, schema: Schema) throws {
        var options = storeOptions()
        let bar = json ? nil : Terminal.progressBar(title: "Migrating")
        options.progress = bar?.handler
        let store: Store
        do {
            store = try Store.open(at: location, schema: schema, options: options)
        } catch {
            bar?.finish()
            throw Self.explained(error, store: location.url)
        }
        defer { try? store.close() }
        bar?.finish()
        switch store.outcome {
        case .migrated(let version):
            try finish(
                .migrated(store: name, from: version, to: schema.version, run: store.migrationRun, backup: nil),
                waited: false)
        case .migratedByAnotherProcess:
            try finish(.nothing(store: name, version: schema.version), waited: true)
        case .opened, .created, .reset:
            try finish(.nothing(store: name, version: schema.version), waited: false)
        }
    }

    /// The options of the store's opening that the command line sets.
    private func storeOptions() -> Store.Options {
        var options = Files.existingStoreOptions()
        options.checksIntegrityBeforeMigrating = !skipCheck
        options.secureDelete = fastSecureDelete ? .fast : .systemDefault
        return options
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
        if json {
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
