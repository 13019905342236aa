import Foundation
import Testing
import Molt
import MoltPostgres

/// A PostgreSQL store's pool of sessions (issue 21): reads run beside each other and beside a write, and see a
/// write's commit whole or not at all; async calls waiting for a session suspend instead of holding a thread of
/// Swift's cooperative pool; openers in one process migrate once.
@Suite(
    "PostgreSQL: a pool of sessions per store",
    .enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipReason))
struct PostgresPoolTests {
    static let v1 = Schema(version: 1) {
        Entity("Slot") {
            Attribute("n", .int)
        }
    }

    static func location(_ dir: TemporaryDirectory, pool: Int) throws -> StoreLocation {
        try .postgres(
            try PostgresTestServer.requireURL(), schema: dir.namespace("store"),
            options: PostgresStoreOptions().pooling(pool))
    }

    /// Waits for `semaphore` at most 60 s, on the calling thread (a store's thread, in a body): a test that
    /// would deadlock fails instead.
    static func waitOrFail(_ semaphore: DispatchSemaphore, _ what: String) throws {
        guard semaphore.wait(timeout: .now() + 60) == .success else {
            throw MoltError(.locked, "timed out waiting for \(what)")
        }
    }

    /// The same from a task, waiting on a thread of Dispatch's rather than holding one of the cooperative pool,
    /// which the store's async calls need to start.
    static func signalled(_ semaphore: DispatchSemaphore, _ what: String) async throws {
        let signalled = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: semaphore.wait(timeout: .now() + 60) == .success)
            }
        }
        guard signalled else { throw MoltError(.locked, "timed out waiting for \(what)") }
    }

    @Test("a read runs while another read and a write are still open, and sees the state before the write's commit")
    func readsBesideReadsAndWrites() async throws {
        let dir = TemporaryDirectory()
        let store = try await Store.open(at: try Self.location(dir, pool: 3), schema: Self.v1)
        defer { try? store.close() }
        try await store.write { _ = try $0.insert("Slot", ["n": 1]) }
        let (readOpen, writeOpen, release) = (
            DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)
        )
        async let held: Int = store.read { objects in
            let n = try objects.fetch("Slot")[0]["n"].int ?? -1
            readOpen.signal()
            try Self.waitOrFail(release, "the release of the first read")
            return Int(n)
        }
        async let written: Void = store.write { objects in
            var slot = try objects.fetch("Slot")[0]
            slot["n"] = 2
            try objects.update(slot)
            writeOpen.signal()
            try Self.waitOrFail(release, "the release of the write")
        }
        try await Self.signalled(readOpen, "the first read")
        try await Self.signalled(writeOpen, "the write")
        // A third session: the other two are held by a read and a write that have not ended.
        let during = try await store.read { try $0.fetch("Slot")[0]["n"].int }
        release.signal()
        release.signal()
        #expect(try await held == 1)
        try await written
        #expect(during == 1)
        #expect(try await store.read { try $0.fetch("Slot")[0]["n"].int } == 2)
    }

    @Test("many concurrent readers while a writer commits see each commit whole or not at all, never a mix")
    func readersSeeWholeCommits() async throws {
        let dir = TemporaryDirectory()
        let store = try await Store.open(at: try Self.location(dir, pool: 6), schema: Self.v1)
        defer { try? store.close() }
        let slots = 20
        try await store.write { objects in for _ in 0..<slots { _ = try objects.insert("Slot", ["n": 0]) } }
        let rounds = 25
        try await withThrowingTaskGroup(of: Set<Int64>.self) { group in
            group.addTask {
                for round in 1...rounds {
                    try await store.write { objects in
                        for var slot in try objects.fetch("Slot") {
                            slot["n"] = .int(Int64(round))
                            try objects.update(slot)
                        }
                    }
                }
                return []
            }
            for _ in 0..<12 {
                group.addTask {
                    var seen: Set<Int64> = []
                    for _ in 0..<40 {
                        // Two statements in one read: a count, then every row; both see one state.
                        let (count, values) = try await store.read { objects in
                            (try objects.count("Slot"), try objects.fetch("Slot").compactMap { $0["n"].int })
                        }
                        guard count == slots, Set(values).count == 1 else {
                            throw MoltError(.validationFailed, "a read saw a mix: count \(count), values \(values)")
                        }
                        seen.insert(values[0])
                    }
                    return seen
                }
            }
            var seen: Set<Int64> = []
            for try await values in group { seen.formUnion(values) }
            #expect(seen.isSubset(of: Set(0...Int64(rounds))))
        }
        #expect(
            try await store.read { try $0.fetch("Slot").compactMap { $0["n"].int } }
                == Array(repeating: Int64(rounds), count: slots))
    }

    @Test("async reads waiting for the one session suspend: the task that lets the first one finish still runs")
    func waitingReadsSuspend() async throws {
        let dir = TemporaryDirectory()
        let store = try await Store.open(at: try Self.location(dir, pool: 1), schema: Self.v1)
        defer { try? store.close() }
        try await store.write { _ = try $0.insert("Slot", ["n": 7]) }
        let (firstOpen, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        // More waiting reads than the cooperative pool has threads: were they blocking their threads, the
        // releasing task below could never run.
        let waiting = ProcessInfo.processInfo.activeProcessorCount * 4 + 8
        try await withThrowingTaskGroup(of: Int64?.self) { group in
            group.addTask {
                try await store.read { objects in
                    firstOpen.signal()
                    try Self.waitOrFail(release, "the releasing task")
                    return try objects.fetch("Slot")[0]["n"].int
                }
            }
            try await Self.signalled(firstOpen, "the first read")
            for _ in 0..<waiting { group.addTask { try await store.read { try $0.fetch("Slot")[0]["n"].int } } }
            group.addTask {
                await Task.yield()
                release.signal()
                return 7
            }
            var results: [Int64?] = []
            for try await n in group { results.append(n) }
            #expect(results.count == waiting + 2)
            #expect(results.allSatisfy { $0 == 7 })
        }
    }

    @Test("eight stores opening one old store at once in one process migrate it once")
    func concurrentOpenersMigrateOnce() async throws {
        let dir = TemporaryDirectory()
        let location = try Self.location(dir, pool: 2)
        try await Store.open(at: location, schema: Self.v1).close()
        let v2 = Schema(version: 2) {
            Entity("Slot") {
                Attribute("n", .int)
                Attribute("note", .string, isOptional: true)
            }
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let store = try await Store.open(at: location, schema: v2)
                    defer { try? store.close() }
                    return store.schema.version
                }
            }
            for try await version in group { #expect(version == 2) }
        }
        let store = try await Store.open(at: location, schema: v2)
        defer { try? store.close() }
        #expect(try store.history().map { "\($0.fromVersion)→\($0.toVersion)" }.filter { $0 == "1→2" }.count == 1)
    }

    @Test("a pool of no session is refused, naming the fix")
    func emptyPoolRefused() throws {
        var options = PostgresStoreOptions()
        options.poolSize = 0
        let location = try StoreLocation.postgres(
            try PostgresTestServer.requireURL(), schema: "molt_never_made", options: options)
        let error = moltError { _ = try Store.open(at: location, schema: Self.v1) }
        #expect(error?.code == .invalidValue)
        #expect(
            error?.message
                == "PostgresStoreOptions.poolSize is 0; a store needs at least one session. Set it to 1 or more (default 8), e.g. `PostgresStoreOptions().pooling(16)`."
        )
    }
}

@Suite("Store.object(_:id:)")
struct StoreLookupTests {
    @Test(
        "a lookup by _id reads what a read does, on every engine, and nil for an unknown _id",
        arguments: StoreKind.allCases)
    func lookup(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: PostgresPoolTests.v1, in: dir)
        defer { try? store.close() }
        let id = try await store.write { try $0.insert("Slot", ["n": 42]).id! }
        #expect(try await store.object("Slot", id: id)?["n"] == 42)
        #expect(try await store.object("Slot", id: id + 1) == nil)
        await #expect(throws: MoltError.self) { try await store.object("Nothing", id: id) }
    }
}
