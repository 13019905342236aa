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

    /// What the command line asked for, as plain values.
    var request: MigrateRequest {
        MigrateRequest(
            store: storeArgument.store, to: target.to, toVersion: target.toVersion, mapping: mapping.mapping,
            backup: backup, keepBackup: keepBackup, skipCheck: skipCheck, fastSecureDelete: secureDelete == .fast,
            json: output.json)
    }

    func validate() throws {
        if let problem = request.usageProblem { throw ValidationError(problem) }
    }

    func run() throws { try request.run() }
}
