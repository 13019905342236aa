import ArgumentParser

/// The store a command reads or changes.
struct StoreArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The store's file.", valueName: "store"))
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
