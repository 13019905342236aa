import Foundation
import Testing
@testable import Molt

/// An SQLite store with a live observation looks for other connections' commits quickly while commits come,
/// and backs off while none do: an idle store wakes the device at most once a second (it was 20 times).
@Suite("Noticing other connections without waking an idle device")
struct IdlePollingTests {
    static let schema = ObservationTests.schema

    /// The reads of the change counter over `duration`.
    static func polls(of store: Store, over duration: Duration) async throws -> Int {
        let start = store.changes.pollCount
        try await Task.sleep(for: duration)
        return store.changes.pollCount - start
    }

    @Test(
        "idle: at most one read of the change counter a second; a commit elsewhere is still noticed, and at once when asked",
        arguments: StoreKind.files)
    func idle(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.open(in: dir, schema: Self.schema)
        defer { try? store.close() }
        let counts = ObservationRecorder<Int>()
        let token = counts.start(store) { try $0.count("Note") }
        try await counts.wait { $0 == [0] }
        // 50 + 100 + 200 + 400 + 800 ms: backed off after about 1.5 s, later when the machine is busy (a full
        // suite on two cores once saw 6 reads in the window that began at 2 s): measured from 3 s.
        try await Task.sleep(for: .seconds(3))
        let idle = try await Self.polls(of: store, over: .seconds(4))
        print("idle wake-ups with one live observation: \(idle) in 4 s")
        #expect(idle <= 5, "\(idle) reads of the change counter in 4 idle seconds")
        #expect(idle >= 2, "the store stopped looking for other connections' commits (\(idle) reads in 4 s)")

        let other = try kind.open(in: dir, schema: Self.schema)
        defer { try? other.close() }
        try await other.write { _ = try $0.insert("Note", ["text": "elsewhere"]) }
        try await counts.wait { $0 == [0, 1] }
        // Noticed: the quick pace again, for a while.
        let busy = try await Self.polls(of: store, over: .milliseconds(500))
        #expect(busy >= 2, "\(busy) reads in the 500 ms after a commit was noticed")

        try await Task.sleep(for: .seconds(2))
        try await other.write { _ = try $0.insert("Note", ["text": "again"]) }
        store.noticeOtherConnections()
        try await counts.wait(timeout: .milliseconds(600)) { $0 == [0, 1, 2] }
        withExtendedLifetime(token) {}
    }

    @Test("the store's own commits bring the quick pace back")
    func ownCommits() async throws {
        let dir = TemporaryDirectory()
        let store = try StoreKind.wal.open(in: dir, schema: Self.schema)
        defer { try? store.close() }
        let counts = ObservationRecorder<Int>()
        let token = counts.start(store) { try $0.count("Note") }
        try await counts.wait { $0 == [0] }
        try await Task.sleep(for: .seconds(2))
        try await store.write { _ = try $0.insert("Note", ["text": "mine"]) }
        let busy = try await Self.polls(of: store, over: .milliseconds(500))
        #expect(busy >= 2, "\(busy) reads in the 500 ms after the store's own commit")
        withExtendedLifetime(token) {}
    }
}
