import Observation

/// The models of a typed fetch, kept current on the main actor: an `@Observable` object that a SwiftUI view or a
/// view model holds.
///
/// It observes the fetch (``Store/observe(_:)``) from the moment it is created and updates ``models`` on the main
/// actor after each commit that changes them; SwiftUI (or `withObservationTracking`) re-renders what read them.
/// Released, it stops observing.
///
/// ```swift
/// @MainActor @Observable final class NotesModel {
///     let favorites: ObservedResults<Note>
///     init(store: Store) {
///         favorites = ObservedResults(store, where: \.favorite == true, orderBy: [.ascending(\.title)])
///     }
/// }
///
/// struct NotesView: View {
///     let model: NotesModel
///     var body: some View {
///         List(model.favorites.models, id: \.persistentID) { Text($0.title) }
///     }
/// }
/// ```
///
/// `@Observable` needs the Observation framework: macOS 14, iOS 17, tvOS 17, watchOS 10 or later on Apple
/// platforms (any Swift 5.9 toolchain on Linux).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@Observable
@MainActor
public final class ObservedResults<Model: PersistentModel> {
    /// The models the fetch returns now: empty until the first read is done (``isLoaded``).
    public private(set) var models: [Model] = []
    /// Whether the first read is done.
    public private(set) var isLoaded = false
    /// What ended the observation: the store was migrated by another opening (a ``MoltError`` of code
    /// ``MoltError/Code/storeIsNewer`` that names the new version), or the fetch failed. ``models`` keeps the
    /// last results read.
    public private(set) var error: (any Error)?

    @ObservationIgnored private var token: ObservationToken?
    /// The number of the last result applied, so that a result never replaces a newer one.
    @ObservationIgnored private var applied = 0

    /// Starts observing the models of a fetch.
    ///
    /// - Parameters:
    ///   - store: The store to observe.
    ///   - predicate: Which models; all without one.
    ///   - orderBy: Their order; insertion order without one.
    ///   - limit: At most this many models.
    public init(
        _ store: Store, where predicate: ModelPredicate<Model>? = nil, orderBy: [ModelSort<Model>] = [],
        limit: Int? = nil
    ) {
        let counter = LockedValue(0)
        let observation = store.observe { objects in
            try objects.fetch(Model.self, where: predicate, orderBy: orderBy, limit: limit)
        }
        token = observation.start(
            onError: { [weak self] error in
                Task { @MainActor in self?.error = error }
            },
            onChange: { [weak self] models in
                let number = counter.withLock { count in
                    count += 1
                    return count
                }
                Task { @MainActor in self?.apply(models, number: number) }
            })
    }

    private func apply(_ models: [Model], number: Int) {
        guard number > applied else { return }
        applied = number
        self.models = models
        if !isLoaded { isLoaded = true }
    }
}
