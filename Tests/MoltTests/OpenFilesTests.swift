import Foundation
import Testing
@testable import Molt

/// Closing any descriptor of a file drops every POSIX lock the process holds on it: while this process has a
/// store open, the read-only paths must not open the file themselves.
@Suite("Files this process has open")
struct OpenFilesTests {
    @Test(
        "a store open in this process is known, and is read through SQLite (with its locks) rather than looked at raw",
        arguments: StoreKind.files)
    func openStoresAreKnown(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let schema = Schema(version: 1) { Entity("Item") { Attribute("name", .string) } }
        let store = try Store.open(at: url, schema: schema, options: kind.options)
        #expect(SQLiteOpenFiles.isOpen(url.path))
        #expect(try SQLiteLeftovers(path: url.path).readingPlan() == .readOnly)
        #expect(SQLiteLeftovers(path: url.path).recoverableLeftover() == nil)
        // Inspecting it while it is open, then writing through it, works.
        #expect(try Store.inspect(at: url).version == 1)
        try store.write { _ = try $0.insert("Item", ["name": "a"]) }
        try store.close()
        #expect(!SQLiteOpenFiles.isOpen(url.path))
        #expect(try Store.inspect(at: url).objectCounts["Item"] == 1)
    }
}
