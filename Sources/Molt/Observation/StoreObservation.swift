/// A read of a store, observed: its result now, then again after each commit that may have changed it.
///
/// Create one with ``Store/observe(_:)``; iterate it, or ``start(onError:onChange:)`` it with a callback.
/// Each iteration (each start) is an observation of its own.
///
/// ```swift
/// for try await count in store.observe({ try $0.count("Note") }).removeDuplicates() {
///     print("\(count) notes")
/// }
/// ```
///
/// What concerns a read: the tables (entities, and the links of to-many relationships) it touched the last time
/// it ran. A commit made through the store re-runs the reads that touched a table it wrote, and no other; a
/// rolled-back transaction re-runs none. A commit of another connection or process (another opening of the
/// same file, the `molt` tool, an app extension) is noticed within ``Store/otherConnectionsLatency``, on SQLite
/// files, and re-runs every read. Results come in commit order and are never older than one delivered; when
/// commits come faster than the read, the intermediate results are skipped, never reordered.
///
/// An observation ends:
/// - without an error when the store is closed or released (no observation keeps a store open),
/// - with a ``MoltError`` of code ``MoltError/Code/storeIsNewer`` naming the new version when another opening
///   migrated the store (its objects are never read with the old schema),
/// - with what the read throws.
///
/// ## Topics
/// - ``removeDuplicates()``
/// - ``removeDuplicates(by:)``
/// - ``start(onError:onChange:)``
/// - ``ObservationToken``
public struct StoreObservation<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value

    let store: Store
    let read: @Sendable (Objects) throws -> Value
    let isDuplicate: (@Sendable (Value, Value) -> Bool)?

    /// The same observation, delivering a result only when it differs from the last one delivered.
    ///
    /// ```swift
    /// let titles = store.observe { try $0.fetch(Note.self).map(\.title) }.removeDuplicates()
    /// ```
    public func removeDuplicates() -> StoreObservation where Value: Equatable {
        removeDuplicates(by: ==)
    }

    /// The same observation, delivering a result only when `isDuplicate` says it differs from the last one
    /// delivered.
    ///
    /// ```swift
    /// let notes = store.observe { try $0.fetch(Note.self) }.removeDuplicates { $0.count == $1.count }
    /// ```
    public func removeDuplicates(by isDuplicate: @escaping @Sendable (Value, Value) -> Bool) -> StoreObservation {
        StoreObservation(store: store, read: read, isDuplicate: isDuplicate)
    }

    /// Starts the observation: `onChange` gets the first result as soon as it is read, then each fresh one, on
    /// a dispatch queue (never Swift's cooperative pool, so a busy pool does not delay results), one call at a
    /// time: hop to the main actor (`Task { @MainActor in … }`) to update a UI. On a PostgreSQL store the queue
    /// is the observation's own. On an SQLite store, whose observed reads share one connection, it is one queue
    /// of the store's, on which its observations read in turns (those due at the same moment in one read
    /// transaction) and deliver: an `onChange` that blocks holds the store's other observations back, so hand
    /// long work to another queue.
    ///
    /// Keep the token: the observation lasts until it is cancelled or released, the store closes, or the
    /// observation fails.
    ///
    /// ```swift
    /// let token = store.observe { try $0.count("Note") }.start { count in print(count) }
    /// // …
    /// token.cancel()
    /// ```
    ///
    /// - Parameters:
    ///   - onError: Called once if the observation fails: the store was migrated by another opening (a
    ///     ``MoltError/Code/storeIsNewer`` that names the version), or the read threw. Not called on
    ///     cancellation nor when the store closes.
    ///   - onChange: Called with each result.
    /// - Returns: The token that cancels the observation.
    public func start(
        onError: @escaping @Sendable (any Error) -> Void = { _ in }, onChange: @escaping @Sendable (Value) -> Void
    ) -> ObservationToken {
        ObservationToken(
            ObservationRun(
                store: store, read: read, isDuplicate: isDuplicate, deliver: onChange,
                end: { error in if let error { onError(error) } }))
    }

    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Value.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(1))
        let run = ObservationRun(
            store: store, read: read, isDuplicate: isDuplicate, deliver: { continuation.yield($0) },
            end: { continuation.finish(throwing: $0) })
        continuation.onTermination = { _ in run.cancel() }
        return Iterator(base: stream.makeAsyncIterator())
    }

    /// Iterates the results of one observation; it ends when the iterating task is cancelled.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Value, any Error>.Iterator

        public mutating func next() async throws -> Value? { try await base.next() }
    }
}

/// The handle of an observation started with a callback: ``cancel()`` (or releasing the token) stops delivery
/// and frees the observation's resources.
///
/// ```swift
/// let token = store.observe { try $0.count("Note") }.start { print($0) }
/// token.cancel()
/// ```
public final class ObservationToken: Sendable {
    private let cancelRun: @Sendable () -> Void

    init<Value>(_ run: ObservationRun<Value>) { cancelRun = { run.cancel() } }

    /// Stops the observation: no result is delivered once this returns, except one already being delivered.
    public func cancel() { cancelRun() }

    deinit { cancelRun() }
}
