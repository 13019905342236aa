import ArgumentParser
import Foundation
import Molt
import MoltTooling

/// `molt import STORE --schema S.json DATA.json`: creates a store at a schema and fills it with the objects of a
/// `molt export` file, or adds them to an existing store at that schema.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create a store at a schema snapshot from a `molt export` JSON file, or add the objects to one.",
        discussion: """
            The file is read and written object by object, in bounded memory, in one transaction: on any error \
            (a value that does not fit the schema, a link to an object not in the file, the two sides of a \
            relationship that disagree, an `_id` given twice) nothing is written, and a store created for the \
            import is removed. In a new store objects keep their `_id`, so export → import → export gives the same \
            file; added to an existing store their `_id`s are shifted past the store's largest and their \
            relationships follow. A side of a relationship the file leaves out is filled from its inverse. An \
            existing file must be a Molt store already at the schema's version (migrate it first).
            """)

    @OptionGroup var storeArgument: StoreArgument

    @Option(
        name: .long, help: ArgumentHelp("The schema snapshot of the data (and of the store).", valueName: "schema.json")
    )
    var schema: String

    @Argument(help: ArgumentHelp("The data, as `molt export` writes it.", valueName: "data.json"))
    var data: String

    /// Refuses to add objects to a store at another version than `schema`'s, naming the fix.
    private func checkVersion(of schema: Schema) throws {
        let info = try MigrateRequest.readRecovering(try Files.existingStoreLocation(storeArgument.store))
        guard info.version == schema.version else {
            if info.version > schema.version {
                try Store.checkMigration(from: info.schema, to: schema)
            }
            throw CLIFailure(
                .versionConflict,
                "The store is at version \(info.version), but the schema is version \(schema.version): bring the store to version \(schema.version) with `molt migrate` first; nothing was written."
            )
        }
    }

    func run() throws {
        let schema = try Files.schema(at: self.schema)
        let dataURL = Files.url(data)
        // A file handle, so that a pipe (`<(molt export old.sqlite)`) works too.
        guard let handle = FileHandle(forReadingAtPath: dataURL.path) else {
            throw CLIFailure(.badInput, "There is no data file at \(dataURL.path). Check the path.")
        }
        defer { try? handle.close() }
        let location = try StoreAddress.location(storeArgument.store)
        let exists = try StoreAddress.holdsStore(location)
        // A failed import removes only what it created: on PostgreSQL, a namespace that was there stays.
        let namespaceExisted = try StoreAddress.namespaceExists(location)
        if exists { try checkVersion(of: schema) }
        let store: Store
        do {
            store = try Store.open(
                at: location, schema: schema, options: exists ? Files.existingStoreOptions() : Store.Options())
        } catch {
            // A PostgreSQL store is created in one transaction: a failed creation left nothing behind.
            if !exists, let url = location.url { Files.removeStore(url) }
            throw error
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: dataURL.path))?[.size] as? Int
        let reader = DataFileReader(
            JSONStreamReader(descriptor: handle.fileDescriptor), name: dataURL.lastPathComponent, schema: schema)
        let bar = Terminal.progressBarOnStandardError(title: "Importing")
        do {
            let count = try store.write { objects in
                let importer = try ObjectImporter(objects, keepingIDs: !exists)
                let marks = try reader.read { row in
                    try importer.insert(row.entity, fileID: row.fileID, values: row.values, links: row.links)
                    if let bar, let size, importer.count % 4096 == 0 { bar.update(bytes: reader.bytesRead, of: size) }
                }
                try importer.finish(identifierMarks: marks)
                return importer.count
            }
            bar?.finish()
            try store.close()
            Terminal.line(
                "Imported \(Format.count(count, "object")) into \(StoreAddress.describe(location)) (version \(schema.version))."
            )
        } catch {
            bar?.finish()
            try? store.close()
            if !exists {
                try? StoreAddress.remove(createdStore: location, schema: schema, namespaceExisted: namespaceExisted)
            }
            throw error
        }
    }
}
