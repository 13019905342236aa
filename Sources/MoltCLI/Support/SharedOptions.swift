import ArgumentParser
import Molt

/// The store a command reads or changes.
struct StoreArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The store's file, or a postgres:// URL.", valueName: "store"))
    var store: String

    func validate() throws {
        if store.isEmpty { throw ValidationError("The store's path is empty.") }
    }
}

/// `--json`: machine-readable output instead of text.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false
}

/// `--to NEW.json` or `--to DIR [--to-version N]`: the schema snapshot a command migrates to, or the folder of
/// snapshots it walks (see ``MigrationTarget``).
struct TargetSchemaOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The schema snapshot to migrate to (JSON, as Schema.snapshotJSON() writes it), or a folder of snapshots (N.json, and FROM-to-TO.mapping.json for the steps that need a mapping) to walk version by version.",
            valueName: "new.json|dir"))
    var to: String

    @Option(
        name: .long,
        help: ArgumentHelp("With a folder: the version to walk to (default: the folder's newest).", valueName: "n"))
    var toVersion: Int?

    func validate() throws {
        if to.isEmpty { throw ValidationError("The path given to --to is empty.") }
        if let toVersion, toVersion < 0 { throw ValidationError("--to-version must not be negative.") }
    }
}

/// `--mapping FILE`: declarative SQL-expression mappings for the steps Molt cannot infer (see ``MappingFile``).
struct MappingOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Declarative SQL-expression mappings for the steps that cannot be inferred.", valueName: "file"))
    var mapping: String?

    func validate() throws {
        if mapping?.isEmpty == true { throw ValidationError("The path given to --mapping is empty.") }
    }

}
