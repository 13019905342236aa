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
            inputs: save it as `<version>.json` to start a folder of snapshots for `molt check`. The store is opened \
            read-only; nothing is written.
            """)

    @OptionGroup var storeArgument: StoreArgument

    func run() throws {
        let location = try Files.existingStoreLocation(storeArgument.store)
        var data = try Store.reading(at: location) { snapshot, _ in try snapshot.schema.snapshotJSON() }
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }
}
