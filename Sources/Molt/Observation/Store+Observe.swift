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
    /// reads run again: the interval at which the store reads SQLite's `PRAGMA data_version` on its own
    /// connection while an observation is active (no polling otherwise). Commits made through the store itself
    /// are noticed at once.
    public static var otherConnectionsLatency: Duration { StoreChanges.pollInterval }

    /// The number of active observations of the store.
    package var observationCount: Int { changes.count }
}
