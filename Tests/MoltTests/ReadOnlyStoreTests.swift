import Foundation
import GRDB
import Testing
@testable import Molt

/// Opening a store without writing to it, backing it up, checking it, and what opening did.
@Suite("Read-only opening, backup, verify, outcome")
struct ReadOnlyStoreTests {
    static let v1 = Schema(version: 1) { Entity("Item") { Attribute("name", .string) } }
    static let v2 = Schema(version: 2) {
        Entity("Item") {
            Attribute("name", .string)
            Attribute("note", .string, isOptional: true)
        }
    }

    static func files(in dir: TemporaryDirectory) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.url.path) {
            result[name] = try Data(contentsOf: dir.url.appendingPathComponent(name))
        }
        return result
    }

    static func makeStore(_ kind: StoreKind, in dir: TemporaryDirectory, count: Int = 10) throws {
        let store = try kind.makeStore(schema: v1, in: dir)
        try store.write { objects in for i in 0..<count { try objects.insert("Item", ["name": .string("item \(i)")]) } }
        try store.close()
    }

    @Test(
        "openReadOnly reads objects at the recorded schema, refuses writes and leaves every file as it was",
        arguments: StoreKind.files)
    func readsWithoutWriting(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(kind, in: dir)
        let before = try Self.files(in: dir)
        let store = try Store.openReadOnly(at: dir.file())
        #expect(store.isReadOnly)
        #expect(store.schema == Self.v1)
        #expect(try store.read { try $0.count("Item") } == 10)
        #expect { try store.write { try $0.insert("Item", ["name": "x"]) } } throws: {
            ($0 as? MoltError)?.code == .readOnly
        }
        try store.close()
        #expect(try Self.files(in: dir) == before)
    }

    @Test(
        "a file whose header names a format SQLite does not write is read alone: no -wal or -shm left beside it",
        arguments: [18, 19, 47])
    func unknownFormatVersion(offset: Int) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.wal, in: dir)
        // Byte 18 (write version) 3: SQLite opens the file read-only; byte 19 (read version) 3: it cannot read it;
        // bytes 44–47 (schema format) 9: "unsupported file format".
        let handle = try FileHandle(forWritingTo: dir.file())
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data([offset == 47 ? 9 : 3]))
        try handle.close()
        let before = try Self.files(in: dir)
        #expect(before.count == 1)
        let info = try? Store.inspect(at: dir.file())
        if offset == 18 { #expect(info?.version == 1) }
        _ = try? Store.openReadOnly(at: dir.file()).close()
        #expect(try Self.files(in: dir) == before)
    }

    @Test("a read-only store notices that another process migrated the store since it was opened")
    func noticesMigration() throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.wal, in: dir)
        let reader = try Store.openReadOnly(at: dir.file())
        try Store.open(at: dir.file(), schema: Self.v2).close()
        #expect {
            try reader.read { try $0.count("Item") }
        } throws: { error in
            (error as? MoltError)?.message
                == "The store at \(dir.file().path) was migrated to version 2 by another process after it was opened read-only at version 1. Open it again to read it."
        }
        try reader.close()
    }

    @Test("openReadOnly refuses a hot journal with needsRecovery, without a byte written; inspect recovers it first")
    func hotJournal() throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.rollback, in: dir)
        try Data(repeating: 0x5A, count: 512).write(to: URL(fileURLWithPath: dir.file().path + "-journal"))
        let before = try Self.files(in: dir)
        #expect { try Store.openReadOnly(at: dir.file()) } throws: { ($0 as? MoltError)?.code == .needsRecovery }
        #expect(try Self.files(in: dir) == before)
        #expect(try Store.inspect(at: dir.file()).objectCounts == ["Item": 10])
        #expect(!FileManager.default.fileExists(atPath: dir.file().path + "-journal"))
    }

    @Test("a rollback-journal reader waits for a writer instead of failing", arguments: [0.0, 0.5])
    func readerWaits(hold: Double) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.rollback, in: dir)
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let writer = try DatabaseQueue(path: dir.file().path, configuration: configuration)
        try writer.writeWithoutTransaction { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        DispatchQueue.global().asyncAfter(deadline: .now() + hold) {
            try? writer.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        }
        let store = try Store.openReadOnly(at: dir.file(), waitingUpTo: 30)
        #expect(try store.read { try $0.count("Item") } == 10)
        try store.close()
        try writer.close()
    }

    @Test("backup(to:) writes a consistent store of its own, and never overwrites a file", arguments: StoreKind.files)
    func backup(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(kind, in: dir)
        let store = try Store.openReadOnly(at: dir.file())
        let copy = dir.file("copy.sqlite")
        try store.backup(to: copy)
        #expect { try store.backup(to: copy) } throws: { ($0 as? MoltError)?.code == .ioError }
        try store.close()
        #expect(!FileManager.default.fileExists(atPath: copy.path + "-wal"))
        let info = try Store.inspect(at: copy)
        #expect(info.schema == Self.v1)
        #expect(info.objectCounts == ["Item": 10])
    }

    @Test("verify passes on a sound store and names the damage of a damaged one")
    func verify() throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.rollback, in: dir, count: 2000)
        try Store.openReadOnly(at: dir.file()).verify()
        var bytes = try Data(contentsOf: dir.file())
        let page = 4096 * (bytes.count / 4096 - 1)
        for i in page..<page + 12 { bytes[i] = 0xAB }
        try bytes.write(to: dir.file())
        let store = try Store.openReadOnly(at: dir.file())
        #expect {
            try store.verify()
        } throws: { error in
            let message = (error as? MoltError)?.message ?? ""
            return (error as? MoltError)?.code == .corruptStore
                && message.hasPrefix("The store at \(dir.file().path) is damaged: ")
                && !message.contains("\n")
        }
    }

    @Test("outcome says what opening did: created, opened, migrated")
    func outcome() throws {
        let dir = TemporaryDirectory()
        let created = try Store.open(at: dir.file(), schema: Self.v1)
        #expect(created.outcome == .created)
        try created.close()
        let opened = try Store.open(at: dir.file(), schema: Self.v1)
        #expect(opened.outcome == .opened)
        try opened.close()
        let migrated = try Store.open(at: dir.file(), schema: Self.v2)
        #expect(migrated.outcome == .migrated(fromVersion: 1))
        try migrated.close()
    }

    @Test("an opener that waited while another migrated the store is told so", arguments: StoreKind.files)
    func migratedByAnother(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(kind, in: dir, count: 100)
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        var options = kind.options
        let once = OnceFlag()
        options.progress = { _ in
            guard once.first() else { return }
            started.signal()
            release.wait()
        }
        let migrating = options
        let first = Thread { try? Store.open(at: dir.file(), schema: Self.v2, options: migrating).close() }
        first.start()
        guard started.wait(timeout: .now() + 30) == .success else {
            Issue.record("the first opener reported no progress")
            release.signal()
            return
        }
        // The first opener holds the lock mid-migration; release it once the second is waiting for the lock.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { release.signal() }
        let second = try Store.open(at: dir.file(), schema: Self.v2, options: kind.options)
        #expect(second.outcome == .migratedByAnotherProcess(fromVersion: 1))
        try second.close()
        #expect(try Store.inspect(at: dir.file()).history.count == 1)
    }
}

/// True the first time only.
private final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false

    func first() -> Bool {
        lock.withLock {
            defer { done = true }
            return !done
        }
    }
}

@Suite("Recovering what a dead writer left")
struct RecoveryTests {
    @Test(
        "a write-ahead log that would leave tables the store's schema does not describe is not replayed: refused, nothing written"
    )
    func foreignLogRefused() throws {
        let dir = TemporaryDirectory()
        let store = dir.file("store.sqlite"), other = dir.file("other.sqlite")
        let schema = Schema(version: 1) { Entity("Pet") { Attribute("name", .string) } }
        try Store.open(at: store, schema: schema, options: StoreKind.wal.options).close()
        // Another database that starts as a copy of this one, changed outside Molt; its log, with committed
        // frames, copied beside the store while its writer still has it open. Each page is sound: only the
        // result is not the store the metadata describes.
        try FileManager.default.copyItem(at: store, to: other)
        let writer = try DatabaseQueue(path: other.path)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE Elsewhere (x)")
            try db.execute(sql: "INSERT INTO Elsewhere VALUES (1)")
        }
        try FileManager.default.copyItem(atPath: other.path + "-wal", toPath: store.path + "-wal")
        try writer.close()
        let before = FileState(store)
        let error = moltError { _ = try Store.recover(at: store) }
        #expect(error?.code == .corruptStore)
        #expect(error?.message.contains("its tables would not match the schema of version 1 it records") == true)
        #expect(FileState(store) == before)
    }

    @Test("a rehearsal copy that cannot be made is a one-line error naming the folder, and nothing is written")
    func copyFailureNamed() throws {
        let dir = TemporaryDirectory()
        let store = dir.file("store.sqlite")
        let schema = Schema(version: 1) { Entity("Pet") { Attribute("name", .string) } }
        try Store.open(at: store, schema: schema, options: StoreKind.rollback.options).close()
        // A journal left by a dead writer makes a recovery due; the folder for the copy is a plain file.
        try Data("not a journal header, but present".utf8).write(to: URL(fileURLWithPath: store.path + "-journal"))
        let scratch = dir.file("scratch")
        try Data().write(to: scratch)
        let before = FileState(store)
        let error = moltError { _ = try Store.recover(at: store, rehearsingIn: scratch) }
        #expect(error?.code == .ioError)
        #expect(
            error?.message.hasPrefix(
                "Molt rehearses a recovery on a copy of the store before it writes to \(store.path), and the copy in \(scratch.path) failed ("
            ) == true)
        #expect(
            error?.message.hasSuffix(
                "Nothing was written. Make room there for a copy of the store, or point TMPDIR to a folder that has it, and recover again."
            ) == true)
        #expect(FileState(store) == before)
    }
}
