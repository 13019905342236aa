import ArgumentParser
import Foundation
import Molt

/// `molt schema STORE`: the schema snapshot recorded in a store, as `Schema.snapshotJSON()` writes it.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the schema snapshot recorded in a store, as JSON.",
        discussion: """
            The output has the format of Schema.snapshotJSON() and of `molt diff`, `plan` and `migrate --to` \
            inputs: save it as `<version>.json` to start a folder of snapshots for `molt check`.
            """)

    @OptionGroup var storeArgument: StoreArgument

    func run() throws {
        let info = try Files.existingStore(at: storeArgument.store)
        var data = try info.schema.snapshotJSON()
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }
}
