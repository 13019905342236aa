import Foundation
import Molt
import Observation
import Testing

/// `ObservedResults`, the `@Observable` typed results, on Linux through `withObservationTracking`.
@Suite("Observed results")
@MainActor
struct ObservedResultsTests {
    /// What `@Model struct Memo { var title: String; var rank: Int }` expands to.
    struct Memo: PersistentModel, Equatable {
        var title: String
        var rank: Int
        var persistentID: Int64? = nil

        init(title: String, rank: Int) { (self.title, self.rank) = (title, rank) }

        static let entity = Entity("Memo", attributes: [Attribute("title", .string), Attribute("rank", .int)])

        init(row: ModelRow) throws {
            persistentID = row.id
            title = try row.value(at: 0)
            rank = try row.value(at: 1)
        }

        func encode(to columns: inout ModelColumns) {
            columns.append(title)
            columns.append(rank)
        }

        static func propertyName(for keyPath: PartialKeyPath<Memo>) -> String? {
            keyPath == \Memo.title ? "title" : keyPath == \Memo.rank ? "rank" : nil
        }
    }

    static let schema = Schema(version: 1, entities: [Memo.entity])

    /// Whether reading `read` registered a change with the Observation machinery by the time `condition` held.
    final class Tracked: Sendable {
        let changes = LockedValue(0)
        @MainActor func track(_ read: () -> Void) {
            withObservationTracking(read) { [self] in changes.withLock { $0 += 1 } }
        }
        var count: Int { changes.withLock { $0 } }
    }

    @Test(
        "the results load, then follow the commits that change them, on the main actor", arguments: StoreKind.allCases)
    func follows(kind: StoreKind) async throws {
        // `ObservedResults` is `@Observable`: Apple platforms from macOS 14 and iOS 17 (always on Linux).
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try await store.write { objects in
            _ = try objects.insert(Memo(title: "low", rank: 1))
            _ = try objects.insert(Memo(title: "high", rank: 5))
        }
        let results = ObservedResults<Memo>(store, where: \.rank > 1, orderBy: [.descending(\.rank)])
        let tracked = Tracked()
        tracked.track { _ = results.models }
        try await ObservationRecorder<Int>.eventually { results.isLoaded }
        #expect(results.models.map(\.title) == ["high"])
        #expect(tracked.count == 1)

        tracked.track { _ = results.models }
        try await store.write { objects in _ = try objects.insert(Memo(title: "higher", rank: 9)) }
        try await ObservationRecorder<Int>.eventually { results.models.count == 2 }
        #expect(results.models.map(\.title) == ["higher", "high"])
        #expect(tracked.count == 2)

        // A typed save that moves a model out of the predicate, then a typed delete.
        var high = results.models[1]
        high.rank = 0
        try await store.write { [high] objects in try objects.save(high) }
        try await ObservationRecorder<Int>.eventually { results.models.count == 1 }
        let higher = results.models[0]
        try await store.write { objects in try objects.delete(higher) }
        try await ObservationRecorder<Int>.eventually { results.models.isEmpty }
        #expect(results.error == nil)
    }

    @Test("a migration by another opening ends the results with the error, keeping the last models")
    func migrated() async throws {
        let dir = TemporaryDirectory()
        let store = try StoreKind.wal.open(in: dir, schema: Self.schema)
        defer { try? store.close() }
        try await store.write { objects in _ = try objects.insert(Memo(title: "kept", rank: 2)) }
        let results = ObservedResults<Memo>(store)
        try await ObservationRecorder<Int>.eventually { results.isLoaded }
        var v2 = Self.schema
        v2.version = 2
        v2.entities[0].attributes.append(Attribute("note", .string, isOptional: true))
        let newer = try StoreKind.wal.open(in: dir, schema: v2)
        defer { try? newer.close() }
        try await ObservationRecorder<Int>.eventually { results.error != nil }
        #expect((results.error as? MoltError)?.code == .storeIsNewer)
        #expect(results.models.map(\.title) == ["kept"])
    }
}
