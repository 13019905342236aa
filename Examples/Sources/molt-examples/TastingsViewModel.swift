// Seed 004 on screen: a view model over an observed typed query of the tasting notes. The screen lists the
// favourite wines (score 8 or more, best first); the view model holds them as `ObservedResults`, which follow
// every commit that changes them, on the main actor. On Apple platforms a SwiftUI view reads it (below, in
// `#if canImport(SwiftUI)`); here, on any platform, the example drives it as the view would and checks what it
// shows after each write.
import Foundation
import MoltMacros
import Observation

/// The favourite wines of a tastings store, for a screen: what to list, whether it is loading, and the actions
/// the screen offers. Every write goes through the store; the list updates itself from the commit.
@MainActor @Observable
final class TastingsViewModel {
    typealias Wine = SwiftDataTastings.V2.Wine

    /// The wines scored 8 or more, best first (then by title), kept current.
    let favorites: ObservedResults<Wine>
    @ObservationIgnored private let store: Store

    init(store: Store) {
        self.store = store
        favorites = ObservedResults(store, where: \.score >= 8, orderBy: [.descending(\.score), .ascending(\.title)])
    }

    /// Whether the first read is still running: the screen shows a progress indicator.
    var isLoading: Bool { !favorites.isLoaded }

    /// One line per favourite wine, as the list shows it.
    var rows: [String] { favorites.models.map { "\($0.title) (\($0.maker)): \($0.score)" } }

    /// Records a new tasting.
    func addWine(title: String, maker: String, score: Double) async throws {
        try await store.write { objects in _ = try objects.insert(Wine(title: title, maker: maker, score: score)) }
    }

    /// Gives a wine another score; below 8 it leaves the favourites.
    func rescore(_ wine: Wine, to score: Double) async throws {
        var changed = wine
        changed.score = score
        try await store.write { [changed] objects in try objects.save(changed) }
    }

    /// Deletes a tasting.
    func delete(_ wine: Wine) async throws {
        try await store.write { objects in try objects.delete(wine) }
    }
}

#if canImport(SwiftUI)
import SwiftUI

/// The screen on Apple platforms: SwiftUI re-renders the list when `favorites.models` changes.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct FavoriteWinesView: View {
    let model: TastingsViewModel

    var body: some View {
        List(model.favorites.models, id: \.persistentID) { wine in
            VStack(alignment: .leading) {
                Text(wine.title)
                Text("\(wine.maker) · \(wine.score, format: .number)").font(.caption)
            }
            .swipeActions {
                Button("Delete", role: .destructive) { Task { try await model.delete(wine) } }
            }
        }
        .overlay { if model.isLoading { ProgressView() } }
    }
}
#endif

enum TastingsScreen {
    /// Opens a seed 004 store at version 2 with tastings in it, drives the view model as a screen would, and
    /// checks the rows after each write.
    @MainActor
    static func run(_ check: Checker) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-example-tastings-screen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await Store.open(
            at: folder.appendingPathComponent("tastings.sqlite"), schema: SwiftDataTastings.V2.schema)
        defer { try? store.close() }
        try await store.write { objects in
            try objects.insert(SwiftDataTastings.V2.Wine(title: "Chablis", maker: "Domaine Laroche", score: 8))
            try objects.insert(SwiftDataTastings.V2.Wine(title: "Rioja", maker: "Muga", score: 6))
            try objects.insert(SwiftDataTastings.V2.Coffee(title: "Yirgacheffe", maker: "Ethiopia", score: 10))
        }

        let model = TastingsViewModel(store: store)
        check.expect(model.isLoading, true, "the screen shows progress until the first read is done")
        try await until(check, "the favourites load") { !model.isLoading }
        check.expect(model.rows, ["Chablis (Domaine Laroche): 8.0"], "the favourite wines, coffee left out")

        let changed = Changes()
        changed.track { _ = model.favorites.models }
        try await model.addWine(title: "Barolo", maker: "Vietti", score: 9.5)
        try await until(check, "a new favourite appears") { model.rows.count == 2 }
        check.expect(
            model.rows, ["Barolo (Vietti): 9.5", "Chablis (Domaine Laroche): 8.0"], "the new wine comes first")
        check.expect(changed.count, 1, "Observation told the view once")

        try await model.rescore(model.favorites.models[1], to: 7)
        try await until(check, "a wine scored below 8 leaves") { model.rows.count == 1 }
        check.expect(model.rows, ["Barolo (Vietti): 9.5"], "the rescored wine left the favourites")
        try await model.delete(model.favorites.models[0])
        try await until(check, "a deleted wine leaves") { model.rows.isEmpty }
        check.expect(model.favorites.error == nil, true, "the observation is still running")
    }

    /// Counts the changes Observation reports for what `read` reads (what SwiftUI uses to re-render).
    final class Changes: @unchecked Sendable {
        private let lock = NSLock()
        private var changes = 0  // guarded by `lock`: Observation calls back on the thread that changed a value
        var count: Int { lock.withLock { changes } }
        @MainActor func track(_ read: () -> Void) {
            withObservationTracking(read) { self.lock.withLock { self.changes += 1 } }
        }
    }

    /// Waits (on the main actor, letting the results update) until `condition` holds; fails after 10 s.
    @MainActor
    static func until(_ check: Checker, _ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                check.expect(false, true, "\(what) (timed out after 10 s)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
