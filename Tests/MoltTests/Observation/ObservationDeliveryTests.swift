import Dispatch
import Foundation
import Molt
import Testing

/// What an observation delivers under commits that come back to back, each changing its result: never an older
/// result, the last commit's result at the end; on an SQLite file in WAL mode the same state again only where
/// SQLite restarted its log (Molt knows which state each read saw), and with `removeDuplicates()` never the same
/// result twice on any engine.
extension ObservationTests {
    /// Inserts `count` notes one commit each, as fast as the writer goes, while `recorders` observe the count;
    /// then waits for the last result.
    static func commitBackToBack(
        _ store: Store, count: Int, recorders: [ObservationRecorder<Int>]
    ) async throws {
        for recorder in recorders { try await recorder.wait { $0 == [0] } }
        // On a dispatch thread: 1,000 synchronous commits would hold a thread of the cooperative pool (two on
        // this machine) for as long, and other suites running meanwhile wait for one.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try insertNotes(store, count: count) })
            }
        }
        for recorder in recorders { try await recorder.wait { $0.last == count } }
        // Long enough for a read the last commit's signal asked for to have run and delivered, if it would.
        try await Task.sleep(for: .milliseconds(300))
    }

    /// One commit per note, on this thread, one right after the other.
    static func insertNotes(_ store: Store, count: Int) throws {
        for index in 1...count {
            try store.write { _ = try $0.insert("Note", ["text": .string("\(index)")]) }
        }
    }

    @Test(
        "1,000 back-to-back commits: results in order; in WAL mode a state again only at a log restart; removeDuplicates: each a change",
        arguments: StoreKind.allCases)
    func backToBack(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let plain = ObservationRecorder<Int>(), deduplicated = ObservationRecorder<Int>()
        let tokens = [
            plain.start(store, dedupe: false) { try $0.count("Note") },
            deduplicated.start(store, dedupe: true) { try $0.count("Note") },
        ]
        try await Self.commitBackToBack(store, count: 1_000, recorders: [plain, deduplicated])
        for recorder in [plain, deduplicated] {
            #expect(recorder.error == nil)
            #expect(recorder.values == recorder.values.sorted(), "never older")
        }
        #expect(deduplicated.values.filter { $0 == 1_000 }.count == 1, "the last result once")
        let repeats = zip(plain.values, plain.values.dropFirst()).filter { $0 == $1 }.count
        if kind == .wal {
            #expect(plain.values.filter { $0 == 1_000 }.count == 1, "the last result once")
            // A repeat only where SQLite started its log over (its `data_version` moves then without a change,
            // see "Observing data"): once per ~1,000 pages written, and 1,000 commits of one note write a few
            // thousand. Without Molt knowing the state each read saw, 2–6 % of deliveries repeated.
            #expect(repeats <= 5, "\(repeats) of \(plain.values.count) deliveries repeated a state already delivered")
        }
        #expect(zip(deduplicated.values, deduplicated.values.dropFirst()).allSatisfy { $0 < $1 })
        withExtendedLifetime(tokens) {}
    }
}
