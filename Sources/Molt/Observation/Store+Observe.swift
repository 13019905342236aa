extension Store {
    /// Observes a read: its result now, then after each commit that may have changed it.
    ///
    /// `read` is any read of the store: a fetch or a count (dynamic or typed), an object by identifier, a
    /// relationship's destinations, or several of them; it runs in a read transaction, like ``read(_:)-15rin``.
    ///
    /// ```swift
    /// let favorites = store.observe { objects in
    ///     try objects.fetch(Note.self, where: \.favorite == true, orderBy: [.ascending(\.title)])
    /// }
    /// for try await notes in favorites {
    ///     show(notes)
    /// }
    /// ```
    ///
    /// - Parameter read: Reads through ``Objects``; what it returns (a `Sendable` value) is each result.
    /// - Returns: The observation, to iterate or to ``StoreObservation/start(onError:onChange:)``.
    public func observe<Value: Sendable>(
        _ read: @escaping @Sendable (Objects) throws -> Value
    ) -> StoreObservation<Value> {
        StoreObservation(store: self, read: read, isDuplicate: nil)
    }

    /// How long, at most, a commit of another connection or process to an SQLite file (another opening of the
    /// file, the `molt` tool, an app extension) takes to be noticed by the store's observations, before their
    /// reads run again: 1 second. While an observation is active (no polling otherwise) the store reads SQLite's
    /// `PRAGMA data_version` on its own connection every 50 ms as long as commits come (its own, or noticed
    /// ones), and doubles the wait after each read that found none, up to this: an idle store wakes the device
    /// at most once a second. Commits made through the store itself are noticed at once. To notice another
    /// process's commit at once (the app became active, an extension finished), call
    /// ``noticeOtherConnections()``.
    public static var otherConnectionsLatency: Duration { StoreChanges.idlePollInterval }

    /// Looks now for commits that other connections or processes made to the store's SQLite file, for the
    /// observations to see them without waiting up to ``otherConnectionsLatency``; the store then looks for more
    /// at the quick pace again. Does nothing when no observation is active, or on PostgreSQL, whose commits are
    /// announced as they happen.
    ///
    /// ```swift
    /// // SwiftUI: an app extension may have written while the app was in the background.
    /// .onChange(of: scenePhase) { _, phase in if phase == .active { store.noticeOtherConnections() } }
    /// ```
    public func noticeOtherConnections() { changes.pollNow() }

    /// The number of active observations of the store.
    package var observationCount: Int { changes.count }
}
