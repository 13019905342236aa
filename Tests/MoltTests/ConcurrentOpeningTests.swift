import Foundation
import Testing
import Molt

/// Several openers of one old store at once, in threads or processes: one migrates, the others wait and open
/// the result; the history records one run.
@Suite("Concurrent opening")
struct ConcurrentOpeningTests {
    static let itemCount = 30_000

    @Test(
        "two processes opening one old store at once migrate it once and both see the new version",
        arguments: StoreKind.files)
    func twoProcesses(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try BulkStore.make(at: url, kind: kind, count: Self.itemCount)
        let expected = try BulkStore.expectedRowsV1(url)
        let workers = try (0..<2).map { _ in try Worker(open: url, schema: BulkStore.v1(), kind: kind) }
        let results = workers.map { $0.finish() }
        for result in results {
            #expect(result.status == 0, "\(result.lines)")
            #expect(result.lines.last == "opened 1", "\(result.lines)")
        }
        let info = try Store.inspect(at: url)
        #expect(info.version == 1)
        #expect(info.history.map { [$0.fromVersion, $0.toVersion, $0.objectsTouched] } == [[0, 1, Self.itemCount]])
        #expect(try BulkStore.rowsV1(url) == expected)
    }

    @Test(
        "two threads opening one old store at once migrate it once and both see the new version",
        arguments: StoreKind.files)
    func twoThreads(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try BulkStore.make(at: url, kind: kind, count: Self.itemCount)
        let expected = try BulkStore.expectedRowsV1(url)
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let store = try Store.open(at: url, schema: BulkStore.v1(), options: kind.options)
                let seen = (store.schema.version, try store.read { try $0.count("Item", where: .equal("note", "new")) })
                try store.close()
                results.append(.success(seen))
            } catch {
                results.append(.failure(error))
            }
        }
        let outcomes = try results.all.map { try $0.get() }
        #expect(outcomes.map(\.0) == [1, 1])
        #expect(outcomes.map(\.1) == [Self.itemCount, Self.itemCount])
        let info = try Store.inspect(at: url)
        #expect(info.history.map { [$0.fromVersion, $0.toVersion, $0.objectsTouched] } == [[0, 1, Self.itemCount]])
        #expect(try BulkStore.rowsV1(url) == expected)
    }

    /// Results gathered from several threads.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Result<(Int, Int), any Error>] = []

        func append(_ value: Result<(Int, Int), any Error>) {
            lock.lock()
            values.append(value)
            lock.unlock()
        }

        var all: [Result<(Int, Int), any Error>] {
            lock.lock()
            defer { lock.unlock() }
            return values
        }
    }
}
