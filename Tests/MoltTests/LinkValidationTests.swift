import Foundation
import GRDB
import Testing
@testable import Molt

/// Validation checks links where a migration wrote rows (and in the tables that link there), not in the
/// whole store: the store was valid before the run, so a link can only break where rows changed.
@Suite("Link validation after a migration")
struct LinkValidationTests {
    static let v1 = Schema(version: 1) {
        Entity("Folder") { Attribute("name", .string) }
        Entity("Note") {
            Attribute("text", .string)
            Relationship("folder", to: "Folder")
        }
    }

    /// A store whose only note points to a folder deleted behind Molt's back (foreign keys off).
    static func brokenStore(_ url: URL) throws {
        let store = try Store.open(at: url, schema: v1, options: StoreKind.rollback.options)
        try store.write { objects in
            let folder = try objects.insert("Folder", ["name": "Inbox"])
            let note = try objects.insert("Note", ["text": "milk"])
            try objects.set("folder", of: note, to: folder)
        }
        try store.close()
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.write { try $0.execute(sql: "DELETE FROM Folder") }
        try queue.close()
    }

    @Test("a rebuilt table with a broken link is refused, naming the table, the row and the missing entity")
    func rebuildChecksLinks() throws {
        let dir = TemporaryDirectory()
        try Self.brokenStore(dir.file())
        var v2 = Self.v1.withVersion(2)
        v2.entities[1].attributes[0].isOptional = true  // required → optional: Note is rebuilt
        #expect {
            try Store.open(at: dir.file(), schema: v2, options: StoreKind.rollback.options)
        } throws: { error in
            (error as? MoltError)?.message == "The migration to version 2 left 1 broken link(s), so nothing was committed: a row of 'Note' (_id 1) points to a missing 'Folder'. Delete or relink such objects in a custom stage."
        }
        #expect(try Store.version(at: dir.file()) == 1)
    }

    @Test("a metadata-only change elsewhere does not scan the untouched tables")
    func untouchedTablesAreNotScanned() throws {
        let dir = TemporaryDirectory()
        try Self.brokenStore(dir.file())
        var v2 = Self.v1.withVersion(2)
        v2.entities[0].attributes.append(Attribute("color", .string, isOptional: true))  // ADD COLUMN on Folder
        let store = try Store.open(at: dir.file(), schema: v2, options: StoreKind.rollback.options)
        #expect(store.schema.version == 2)
    }
}
