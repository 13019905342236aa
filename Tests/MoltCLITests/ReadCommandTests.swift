import Foundation
import Molt
import Testing

/// Read commands never write: not the store, not a file beside it, not even the recovery of what a dead writer
/// left — that is reported with the command that recovers it, and `molt recover` (or a writing command) does it.
@Suite("Read commands write nothing")
struct ReadCommandTests {
    static let readCommands: [[String]] = [
        ["info", "s.sqlite"], ["info", "s.sqlite", "--json", "--count"], ["schema", "s.sqlite"],
        ["export", "s.sqlite"],
        ["export", "s.sqlite", "--format", "csv"], ["plan", "s.sqlite", "--to", "1.json"], ["check", "s.sqlite"],
        ["rehearse", "s.sqlite", "--to", "1.json"],
    ]

    /// A memo store in WAL mode (the library's default) at version 0, and the version 1 snapshot.
    static func walStore(_ dir: TemporaryDirectory, count: Int = 20) throws -> URL {
        let url = dir.file("s.sqlite")
        let store = try Store.open(at: url, schema: Fixtures.memoV0)
        try store.write { objects in
            for i in 0..<count {
                try objects.insert(
                    "UserMemo",
                    [
                        "objectID": .uuid(UUID()), "memoTitle": .string("Memo \(i)"),
                        "memoDate": .date(Date(timeIntervalSince1970: 1_700_000_000)),
                    ])
            }
        }
        try store.close()
        try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
        return url
    }

    @Test(
        "on a WAL store and a rollback-journal store, no file changes, appears or vanishes", arguments: [true, false])
    func nothingWritten(wal: Bool) throws {
        let dir = TemporaryDirectory()
        if wal {
            _ = try Self.walStore(dir)
        } else {
            try Fixtures.memoStore(at: dir.file("s.sqlite"))
            try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
        }
        let before = try snapshotOfFiles(in: dir.url)
        for command in Self.readCommands {
            let result = try Molt.run(command, in: dir.url)
            #expect(result.status == 0, "\(command): \(result)")
            #expect(try snapshotOfFiles(in: dir.url) == before, "\(command) changed a file")
        }
    }

    @Test("a hot journal is reported in one line with the command to run, and molt recover recovers it")
    func hotJournal() throws {
        let dir = TemporaryDirectory()
        let store = try Fixtures.memoStore(at: dir.file("s.sqlite"))
        try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
        // What a process killed mid-transaction leaves, as far as a reader can tell: a journal not starting with 0.
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: store.path + "-journal"))
        let before = try snapshotOfFiles(in: dir.url)
        for command in Self.readCommands {
            let result = try Molt.run(command, in: dir.url)
            #expect(result.status == 3, "\(command): \(result)")
            #expect(
                result.stderr
                    == "error: The store at \(store.path) has a rollback journal (\(store.path)-journal, 4096 bytes) left by a process that stopped in the middle of a write. A read command does not apply or discard it, and nothing was written. Run `molt recover \(store.path)` (or open the store for writing with `Store.open`), then try again.\n"
            )
            #expect(try snapshotOfFiles(in: dir.url) == before, "\(command) changed a file")
        }
        let recovered = try Molt.run(["recover", "s.sqlite"], in: dir.url)
        #expect(recovered.status == 0, "\(recovered)")
        #expect(
            recovered.stdout
                == "Recovered \(store.path): rolled back the unfinished write recorded in \(store.path)-journal.\n")
        #expect(!FileManager.default.fileExists(atPath: store.path + "-journal"))
        #expect(try Molt.run(["info", "s.sqlite"], in: dir.url).status == 0)
        let again = try Molt.run(["recover", "s.sqlite"], in: dir.url)
        #expect(
            again.stdout
                == "Nothing to recover: \(store.path) has no journal or log left by a process that stopped while writing.\n"
        )
    }

    @Test(
        "a write-ahead log with committed changes: read through its index, or refused without one; migrate recovers it")
    func staleLog() throws {
        let dir = TemporaryDirectory()
        let live = TemporaryDirectory()
        let store = try Self.walStore(live)
        // Copy the files of an open WAL store that has committed a change: what a killed app leaves behind.
        let open = try Store.open(at: store, schema: Fixtures.memoV0)
        try open.write { objects in
            _ = try objects.insert(
                "UserMemo", ["objectID": .uuid(UUID()), "memoTitle": "late", "memoDate": .date(Date())])
        }
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: dir.file("s.sqlite").path + suffix)
        }
        try open.close()
        try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
        let path = dir.file("s.sqlite").path

        let withIndex = try Molt.run(["info", "s.sqlite", "--count"], in: dir.url)
        #expect(withIndex.status == 0, "\(withIndex)")
        #expect(withIndex.stdout.contains("  UserMemo: 21 objects"))

        try FileManager.default.removeItem(atPath: path + "-shm")
        let before = try snapshotOfFiles(in: dir.url)
        let refused = try Molt.run(["export", "s.sqlite"], in: dir.url)
        #expect(refused.status == 3, "\(refused)")
        #expect(refused.stderr.hasPrefix("error: The store at \(path) has a write-ahead log (\(path)-wal, "))
        #expect(
            refused.stderr.hasSuffix(
                " bytes) with committed changes, left by a process that stopped before it closed the store. A read command does not apply or discard it, and nothing was written. Run `molt recover \(path)` (or open the store for writing with `Store.open`), then try again.\n"
            ))
        #expect(try snapshotOfFiles(in: dir.url) == before)

        let migrated = try Molt.run(["migrate", "s.sqlite", "--to", "1.json"], in: dir.url)
        #expect(migrated.status == 0, "\(migrated)")
        #expect(
            migrated.stderr
                == "note: copied the committed changes of \(path)-wal into the store (left by a process that stopped while writing).\n"
        )
        #expect(try Store.inspect(at: dir.file("s.sqlite")).objectCounts == ["UserMemo": 21])
    }

    @Test("check STORE verifies the whole store; a damaged one gets exit 3 and one line")
    func checkStore() throws {
        let dir = TemporaryDirectory()
        let store = try Fixtures.memoStore(at: dir.file("s.sqlite"), count: 300)
        let sound = try Molt.run(["check", "s.sqlite"], in: dir.url)
        #expect(sound.status == 0, "\(sound)")
        #expect(
            sound.stdout
                == "\(store.path) is sound: every page, index and link checked (SQLite's integrity_check and foreign_key_check), every required relationship set and minimum count met, and Molt's metadata and history read; version 0.\n"
        )
        try damageLastPage(store)
        let before = try snapshotOfFiles(in: dir.url)
        let damaged = try Molt.run(["check", "s.sqlite"], in: dir.url)
        #expect(damaged.status == 3, "\(damaged)")
        #expect(damaged.stderr.hasPrefix("error: The store at \(store.path) is damaged: "))
        #expect(damaged.stderr.split(separator: "\n").count == 1)
        #expect(try snapshotOfFiles(in: dir.url) == before)
    }
}
