import Foundation
import GRDB
import Molt
@testable import MoltAdoption
import Testing

/// A store that is only its file is read in place, without a lock; an adoption must not commit what it read if
/// another process wrote to the store meanwhile (the app's extension still on Core Data, say): it is refused as
/// in use, and what the other process wrote stays.
@Suite("Adopting a store another process writes to")
struct ConcurrentWriterAdoptionTests {
    @Test("The check before commit sees a commit, or a save begun, in the store read in place")
    func checkSeesWrites() throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory)
        let source = try ForeignFile.source(of: url, copyingTo: directory.file("copy.sqlite"))
        #expect(source.path.hasPrefix("file:"), "read in place")
        #expect(source.file == url)
        try source.checked()
        try SwiftDataStore.execute(url, "UPDATE ZTRIP SET ZNAME = 'Porto' WHERE Z_PK = 1")
        let error = try #require(throws: MoltError.self) { try source.checked() }
        #expect(error.code == .locked)
        #expect(error.message.contains("was written to while it was adopted (its file changed)"), "\(error.message)")

        // A save begun and not finished: its -journal is there.
        let again = try ForeignFile.source(of: url, copyingTo: directory.file("copy.sqlite"))
        FileManager.default.createFile(atPath: url.path + "-journal", contents: Data())
        defer { try? FileManager.default.removeItem(atPath: url.path + "-journal") }
        let begun = try #require(throws: MoltError.self) { try again.checked() }
        #expect(begun.message.contains("a -journal file appeared"), "\(begun.message)")
    }

    @Test("An adoption during which the store is written to is refused as in use, and the write stays")
    func adoptionRefused() throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory)
        let error = try #require(throws: MoltError.self) {
            // The target is chosen once the store is read and before the copy: another process writes then.
            try SQLCopyAdoptionTests.swiftData.adopt(at: .file(url), options: Store.Options()) { _ in
                try SwiftDataStore.execute(url, "UPDATE ZTRIP SET ZNAME = 'Porto' WHERE Z_PK = 1")
                return (SwiftDataAdoptionTests.v1, Store.Options())
            }
        }
        #expect(error.code == .locked, "\(error.message)")
        #expect(try ForeignFile.kind(at: url) == .coreData)
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        #expect(try queue.read { try String.fetchOne($0, sql: "SELECT ZNAME FROM ZTRIP WHERE Z_PK = 1") } == "Porto")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
                == [".default_SUPPORT", "default.store"])
    }
}
