import Dispatch
import Foundation
import Molt
import Testing

/// Commits that come faster than an observation reads, and the reads of several observations that run
/// together (on SQLite, in one read transaction).
extension ObservationTests {
    @Test(
        "commits made while an observation is busy make one more read, of the last commit: in order, none older",
        arguments: StoreKind.allCases)
    func coalescing(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let gate = DispatchSemaphore(value: 0)
        let busy = ObservationRecorder<Int>()
        // Delivering the count 1 blocks until the commits below are made: they all land before the next read.
        let token = store.observe { objects in
            busy.didRun()
            return try objects.count("Note")
        }.start(onError: { busy.fail($0) }) { count in
            busy.append(count)
            if count == 1 { gate.wait() }
        }
        let other = ObservationRecorder<Int>()
        let otherToken = other.start(store, dedupe: false) { try $0.count("Note") }
        try await busy.wait { $0 == [0] }
        try await other.wait { $0 == [0] }
        try await store.write { _ = try $0.insert("Note", ["text": "1"]) }
        try await busy.wait { $0 == [0, 1] }
        for text in ["2", "3", "4", "5"] {
            try await store.write { _ = try $0.insert("Note", ["text": .string(text)]) }
        }
        gate.signal()
        try await busy.wait { $0.last == 5 }
        try await other.wait { $0.last == 5 }
        // The first read, the one of the first commit, then one read for the four commits made meanwhile.
        #expect(busy.values == [0, 1, 5] && busy.runs == 3 && busy.error == nil)
        // The other observation (held back by the busy one on SQLite, which runs both in turns) never goes back.
        #expect(other.values == other.values.sorted())
        withExtendedLifetime((token, otherToken)) {}
    }

    @Test(
        "a read that throws ends its own observation; the others that read with it go on", arguments: StoreKind.allCases
    )
    func failingRead(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let (failing, before, after) = (
            ObservationRecorder<Int>(), ObservationRecorder<Int>(), ObservationRecorder<Int>()
        )
        let tokens = [
            before.start(store) { try $0.count("Note") },
            failing.start(store) { objects in
                let count = try objects.count("Note")
                if count > 0 { throw Failure() }
                return count
            },
            after.start(store) { try $0.count("Note") },
        ]
        for recorder in [before, failing, after] { try await recorder.wait { $0 == [0] } }
        try await store.write { _ = try $0.insert("Note", ["text": "1"]) }
        #expect(try await failing.waitForError() is Failure)
        try await before.wait { $0 == [0, 1] }
        try await after.wait { $0 == [0, 1] }
        try await store.write { _ = try $0.insert("Note", ["text": "2"]) }
        try await before.wait { $0 == [0, 1, 2] }
        try await after.wait { $0 == [0, 1, 2] }
        try await ObservationRecorder<Int>.eventually { store.observationCount == 2 }
        #expect(failing.values == [0] && failing.runs == 2)
        withExtendedLifetime(tokens) {}
    }
}
