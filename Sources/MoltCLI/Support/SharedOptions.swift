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

/// `--to NEW.json`: the schema snapshot a command migrates to.
struct TargetSchemaOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The schema snapshot to migrate to (JSON, as Schema.snapshotJSON() writes it).", valueName: "new.json"))
    var to: String

    func validate() throws {
        if to.isEmpty { throw ValidationError("The path given to --to is empty.") }
    }
}

/// `--mapping FILE`: declarative SQL-expression mappings for the steps Molt cannot infer (see ``MappingFile``).
struct MappingOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Declarative SQL-expression mappings for the steps that cannot be inferred.", valueName: "file"))
    var mapping: String?

    func validate() throws {
        if mapping?.isEmpty == true { throw ValidationError("The path given to --mapping is empty.") }
    }

    /// The plan from `stored` to `target` with the file's mapping stage, or nil without --mapping.
    func plan(from stored: Schema, to target: Schema) throws -> MigrationPlan? {
        guard let mapping else { return nil }
        return try MappingFile.plan(at: mapping, from: stored, to: target)
    }
}
