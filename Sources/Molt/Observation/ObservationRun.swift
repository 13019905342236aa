/// One running observation: reads once at its start and again after each commit that may change its result,
/// one read at a time, and hands each result (not a duplicate of the last, when asked) to `deliver`.
///
/// Reads are serialized and each sees every commit published before it started, so results come in commit
/// order and never older than one delivered. The run holds the store weakly: a store released or closed ends
/// it. ``cancel()`` ends it too, unsubscribes it, and stops its task.
final class ObservationRun<Value: Sendable>: Sendable {
    private let signals: AsyncStream<Void>.Continuation
    private let state = LockedValue((subscription: Int?.none, ended: false, task: Task<Void, Never>?.none))
    private let changes: StoreChanges
    private let end: @Sendable ((any Error)?) -> Void

    /// Starts observing: `deliver` gets each result, `end` is called once, with the error that ended the
    /// observation (nil: the store closed or was released), unless ``cancel()`` came first.
    init(
        store: Store, read: @escaping @Sendable (Objects) throws -> Value,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        deliver: @escaping @Sendable (Value) -> Void, end: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let (stream, signals) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.signals = signals
        self.changes = store.changes
        self.end = end
        let subscription = store.changes.subscribe(
            changed: { signals.yield() }, end: { [weak self] error in self?.finish(error) })
        guard let subscription else {
            state.withLock { $0.ended = true }
            end(nil)
            return
        }
        state.withLock { $0.subscription = subscription }
        signals.yield()
        let task = Task { [weak self, weak store] in
            await store?.startNoticingOtherConnections()
            var last: Value?
            var readAfter = -1
            for await _ in stream {
                guard let self, let current = store, !self.isEnded else { return }
                // A signal for a commit the last read started after needs no other read.
                let published = self.changes.sequence
                guard published > readAfter else { continue }
                readAfter = published
                do {
                    let (value, tables) = try await current.observedRead(read)
                    self.changes.depend(subscription, on: tables)
                    if let previous = last, let isDuplicate, isDuplicate(previous, value) { continue }
                    last = value
                    guard !self.isEnded else { return }
                    deliver(value)
                } catch {
                    return self.finish(self.isEnded ? nil : error)
                }
            }
        }
        state.withLock { $0.task = task }
    }

    private var isEnded: Bool { state.withLock { $0.ended } }

    /// Ends the run, calling `end` with `error` unless it ended already.
    private func finish(_ error: (any Error)?) {
        guard let subscription = stop() else { return }
        changes.unsubscribe(subscription)
        end(error)
    }

    /// Marks the run ended and stops its reads; returns its subscription the first time.
    private func stop() -> Int? {
        let (subscription, task) = state.withLock { state -> (Int?, Task<Void, Never>?) in
            guard !state.ended else { return (nil, nil) }
            state.ended = true
            return (state.subscription, state.task)
        }
        signals.finish()
        task?.cancel()
        return subscription
    }

    /// Stops delivery and frees the observation's resources; `end` is not called.
    func cancel() {
        if let subscription = stop() { changes.unsubscribe(subscription) }
    }

    deinit {
        if let subscription = stop() { changes.unsubscribe(subscription) }
    }
}
