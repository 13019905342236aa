import Foundation
import Testing
import Molt

/// A process killed with SIGKILL while it migrates: the store is found at its old version, every object intact,
/// and migrates fine afterwards.
@Suite("Killed mid-migration")
struct CrashRecoveryTests {
    /// When the worker is killed.
    enum Moment: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// As soon as the migration starts: during the table rebuild.
        case duringRebuild
        /// After every row is written and validated, just before the commit.
        case beforeCommit

        var testDescription: String { rawValue }
        var line: String { self == .duringRebuild ? "migrating" : "holding" }
    }

    static let itemCount = 200_000

    @Test(
        "a worker killed with SIGKILL mid-migration leaves the store at its old version with every object",
        arguments: StoreKind.files, Moment.allCases)
    func killedMidMigration(kind: StoreKind, moment: Moment) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try BulkStore.make(at: url, kind: kind, count: Self.itemCount)
        let rows = try BulkStore.rows(url)
        let expectedV1 = try BulkStore.expectedRowsV1(url)
        let reader = try Store.open(at: url, schema: BulkStore.v0(), options: kind.options)
        let shelves = try BulkStore.shelves(reader)
        try reader.close()
        #expect(rows.count == Self.itemCount)

        // The worker holds at 100 % before committing, so the kill always lands before the commit.
        let worker = try Worker(open: url, schema: BulkStore.v1(), kind: kind, hold: true)
        let line = try worker.waitForLine(moment.line)
        #expect(line == moment.line)
        worker.kill()
        #expect(worker.process.terminationReason == .uncaughtSignal)
        #expect(worker.process.terminationStatus == SIGKILL)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter {
            $0.hasPrefix("store.sqlite-")
        }
        if moment == .beforeCommit {
            #expect(!leftovers.isEmpty, "the kill left a journal or a WAL behind")
            // A copy of the crashed files, opened straight away (no version read first), recovers the same way.
            let copy = dir.file("copy.sqlite")
            for name in ["store.sqlite"] + leftovers {
                try FileManager.default.copyItem(
                    at: dir.file(name), to: dir.file(name.replacingOccurrences(of: "store.sqlite", with: "copy.sqlite"))
                )
            }
            let reopened = try Store.open(at: copy, schema: BulkStore.v0(), options: kind.options)
            #expect(try reopened.history() == [])
            try reopened.close()
            #expect(try BulkStore.rows(copy) == rows)
        }

        // The version is read without migrating, even before anyone recovered the file.
        #expect(try Store.version(at: url) == 0)
        let old = try Store.open(at: url, schema: BulkStore.v0(), options: kind.options)
        #expect(try old.history() == [])
        #expect(try old.read { try $0.count("Item") } == Self.itemCount)
        #expect(try BulkStore.shelves(old) == shelves)
        try old.close()
        #expect(try BulkStore.rows(url) == rows)

        let migrated = try Store.open(at: url, schema: BulkStore.v1(), options: kind.options)
        #expect(try migrated.history().map(\.objectsTouched) == [Self.itemCount])
        try migrated.close()
        #expect(try BulkStore.rowsV1(url) == expectedV1)
    }
}
