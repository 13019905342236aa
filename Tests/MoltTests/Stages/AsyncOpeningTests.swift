import Foundation
import GRDB
import Testing
@testable import Molt

@Suite("Opening off the caller's thread")
struct AsyncOpeningTests {
    @Test("an async open migrates, and the progress sequence a UI observes ends at 1")
    func progressSequence() async throws {
        let dir = TemporaryDirectory()
        try StageBehaviorTests.makeStore(.file(dir.file()), kind: .wal, count: 3000)
        let plan = try MigrationPlan(
            schemas: [StageBehaviorTests.v1, StageBehaviorTests.v2], stages: [StageBehaviorTests.parse])
        let opening = Store.opening(
            at: dir.file(), schema: StageBehaviorTests.v2, options: .init().migrating(with: plan))
        var fractions: [Double] = []
        for await step in opening.progress { fractions.append(step.fractionCompleted) }
        let store = try await opening.store
        #expect(store.schema.version == 2)
        #expect(fractions.last == 1)
        #expect(fractions == fractions.sorted())
    }

    @Test("cancelling an opening rolls the migration back")
    func cancel() async throws {
        let dir = TemporaryDirectory()
        try StageBehaviorTests.makeStore(.file(dir.file()), kind: .wal, count: 3000)
        let plan = try MigrationPlan(
            schemas: [StageBehaviorTests.v1, StageBehaviorTests.v2], stages: [StageBehaviorTests.parse])
        let opening = Store.opening(
            at: dir.file(), schema: StageBehaviorTests.v2, options: .init().migrating(with: plan))
        opening.cancel()
        await #expect(throws: MoltError.self) { try await opening.store }
        #expect(try Store.version(at: dir.file()) == 1)
        let store = try await Store.open(
            at: dir.file(), schema: StageBehaviorTests.v2, options: .init().migrating(with: plan))
        #expect(try await store.read { try $0.count("Item") } == 3000)
    }

    @Test("opens blocked on another process's lock hold no thread of the cooperative pool: other tasks still run")
    func blockedOpensLeaveThePoolFree() async throws {
        let dir = TemporaryDirectory()
        try StageBehaviorTests.makeStore(.file(dir.file()), kind: .wal, count: 10)
        let plan = try MigrationPlan(
            schemas: [StageBehaviorTests.v1, StageBehaviorTests.v2], stages: [StageBehaviorTests.parse])
        // Another connection holds the write lock: every migrating open must wait for it.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: dir.file().path, configuration: configuration)
        try Self.execute("BEGIN EXCLUSIVE", on: holder)
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 4) {
            try? Self.execute("COMMIT", on: holder)
            released.signal()
        }
        // Many more waiting opens than the pool has threads.
        let waiting = 4 * max(2, ProcessInfo.processInfo.activeProcessorCount)
        let finished = Counter()
        let opens = (0..<waiting).map { _ in
            Task {
                let store = try await Store.open(
                    at: dir.file(), schema: StageBehaviorTests.v2, options: .init().migrating(with: plan))
                finished.increment()
                return store
            }
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        // Work on the pool still runs while they wait: it finishes long before the lock is released.
        let clock = ContinuousClock.now
        let sum = await Task.detached { (1...1000).reduce(0, +) }.value
        let elapsed = ContinuousClock.now - clock
        #expect(sum == 500_500)
        #expect(elapsed < .seconds(2), "a task waited \(elapsed) for a thread while the opens were blocked")
        #expect(finished.value == 0, "the opens were not blocked when the pool was probed")
        for open in opens {
            let store = try await open.value
            #expect(store.schema.version == 2)
            try store.close()
        }
        released.wait()
        #expect(try Store.version(at: dir.file()) == 2)
    }

    /// Runs `sql` on `queue`'s connection outside a transaction, synchronously.
    private static func execute(_ sql: String, on queue: DatabaseQueue) throws {
        try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
    }

    /// A count shared by tasks.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func increment() { lock.withLock { count += 1 } }
    }
}
