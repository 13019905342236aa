import Foundation
import GRDB
import Molt
import MoltAdoption
import Testing

/// A store in rollback mode whose app was killed in the middle of a save keeps the save's original pages in its
/// `-journal` while some of the new ones are already in the file. Its own engine rolls the save back at the next
/// opening; an adoption must read the store as that opening would (as last committed), not the file alone, and
/// leave both files as they were.
@Suite("Adopting a store left in the middle of a save")
struct HotJournalAdoptionTests {
    /// The SwiftData store with 20,000 stays more, written in `directory`.
    static func store(in directory: TemporaryDirectory) throws -> URL {
        let url = try SwiftDataStore.write(in: directory)
        try SwiftDataStore.execute(
            url,
            """
            WITH RECURSIVE n(x) AS (SELECT 4 UNION ALL SELECT x + 1 FROM n WHERE x < 20003)
            INSERT INTO ZSTAY SELECT x, 1, 1, x % 30, 1 + x % 3, 'Hotel ' || x FROM n;
            UPDATE Z_PRIMARYKEY SET Z_MAX = 20003 WHERE Z_ENT = 1;
            """)
        return url
    }

    /// Copies the store at `url` into `directory` in the middle of a save that changes every stay (more pages than
    /// the cache holds, so that some reach the file before the save would commit); then rolls the save back in the
    /// original.
    static func halfSaved(_ url: URL, into directory: TemporaryDirectory) throws -> URL {
        let copy = directory.file(url.lastPathComponent)
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = 10")
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "UPDATE ZSTAY SET ZNIGHTS = ZNIGHTS + 1, ZHOTEL = ZHOTEL || ' (moved)'")
            for suffix in ["", "-journal"] {
                try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
            }
            try db.execute(sql: "ROLLBACK")
        }
        try queue.close()
        let support = url.deletingLastPathComponent().appendingPathComponent(".default_SUPPORT")
        if FileManager.default.fileExists(atPath: support.path) {
            try FileManager.default.copyItem(at: support, to: directory.url.appendingPathComponent(".default_SUPPORT"))
        }
        return copy
    }

    /// How many stays the file at `url` alone shows changed by the half save (read without its journal).
    static func changedInFile(_ url: URL) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: "file:\(url.path)?immutable=1", configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM ZSTAY WHERE ZHOTEL LIKE '% (moved)'") }
            ?? 0
    }

    static func files(of url: URL) -> [String: Data] {
        ["", "-journal", "-wal"].reduce(into: [:]) { result, suffix in
            result[suffix] = FileManager.default.contents(atPath: url.path + suffix)
        }
    }

    @Test(
        "It is adopted as last committed, in SQL and object by object, and its file and journal are left as they were")
    func adoptsAsLastCommitted() throws {
        let committed = TemporaryDirectory()
        let url = try Self.store(in: committed)
        let tornDirectory = TemporaryDirectory()
        let torn = try Self.halfSaved(url, into: tornDirectory)
        let before = Self.files(of: torn)
        #expect(before["-journal"] != nil)
        // The file alone holds part of the save: some stays changed, others not.
        #expect((1..<20_003).contains(try Self.changedInFile(torn)))
        for inSQL in [true, false] {
            let (expectedDirectory, adoptedDirectory) = (TemporaryDirectory(), TemporaryDirectory())
            let (expected, expectedStore) = try SQLCopyAdoptionTests.adopt(
                url, with: SQLCopyAdoptionTests.swiftData, inSQL: inSQL, into: expectedDirectory)
            let (adopted, adoptedStore) = try SQLCopyAdoptionTests.adopt(
                torn, with: SQLCopyAdoptionTests.swiftData, inSQL: inSQL, into: adoptedDirectory)
            #expect(adopted.copy == expected.copy)
            #expect(adopted.comparison.agrees)
            #expect(try !SQLCopyAdoptionTests.rows(of: expectedStore).isEmpty)
            #expect(adopted.record.objectCounts == expected.record.objectCounts)
            #expect(try SQLCopyAdoptionTests.rows(of: adoptedStore) == SQLCopyAdoptionTests.rows(of: expectedStore))
            #expect(Self.files(of: torn) == before)
            withExtendedLifetime((expectedDirectory, adoptedDirectory)) {}
        }
        withExtendedLifetime(tornDirectory) {}
    }

    @Test("Adopted in place, the store and its journal become the backup, and the adopted store holds the last commit")
    func adoptsInPlace() throws {
        let committed = TemporaryDirectory()
        let url = try Self.store(in: committed)
        let directory = TemporaryDirectory()
        let torn = try Self.halfSaved(url, into: directory)
        let before = Self.files(of: torn)
        let expectedDirectory = TemporaryDirectory()
        let (_, expectedStore) = try SQLCopyAdoptionTests.adopt(
            url, with: SQLCopyAdoptionTests.swiftData, inSQL: true, into: expectedDirectory)
        let report = try #require(
            try SQLCopyAdoptionTests.swiftData.adopt(
                at: .file(torn), schema: SwiftDataAdoptionTests.v1, options: Store.Options()))
        #expect(report.copy == .sql)
        let backup = try #require(report.backup)
        let kept = backup.appendingPathComponent(torn.lastPathComponent)
        #expect(Self.files(of: kept) == before)
        // The adopted store's rows, but for the Molt metadata, are those of the committed store adopted.
        #expect(try SQLCopyAdoptionTests.rows(of: torn) == SQLCopyAdoptionTests.rows(of: expectedStore))
        withExtendedLifetime((committed, directory, expectedDirectory)) {}
    }
}
