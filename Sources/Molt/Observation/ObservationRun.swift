import Dispatch

/// One running observation: reads once at its start and again after each commit that may change its result,
/// one read at a time, and hands each result (not a duplicate of the last, when asked) to `deliver`. Where
/// observed reads take turns anyway (SQLite), its reads run on the store's ``StoreChanges/turns``, in one read
/// transaction with those of the store's other observations due at the same moment; elsewhere (PostgreSQL, whose
/// pool reads concurrently) on a dispatch queue of its own.
///
/// Reads are serialized and each sees every commit published before it started, so results come in commit
/// order and never older than one delivered; a signal for a commit the last read already saw is dropped, and
/// the signals of several commits that come before a read starts make one read, of the latest state. The run
/// holds the store weakly: a store released or closed ends it. ``cancel()`` ends it too and unsubscribes it.
/// Nothing here waits on Swift's cooperative pool, so an app (or a test run) that keeps that pool busy does not
/// delay its results.
final class ObservationRun<Value: Sendable>: TurnTakingRead, Sendable {
    private struct State {
        var subscription: Int?
        var ended = false
        /// Whether a drain of the signals runs on the run's queue, and whether a signal came during it (unused
        /// where the run takes the store's turns).
        var running = false
        var pending = false
        var last: Value?
        /// The result of the claimed read, until it is delivered.
        var read: Value?
        /// The commit sequence (``StoreChanges/sequence``) the last read started after.
        var readAfter = -1
        /// The token of the state of the store the last delivered result was read from, where the engine gives
        /// one (``SQLDatabase/observationRead(_:)``).
        var deliveredState: Int64?
    }

    private let state = LockedValue(State())
    /// The queue of the run's reads; nil where they take the store's turns.
    private let queue: DispatchQueue?
    private weak let store: Store?
    private let changes: StoreChanges
    private let read: @Sendable (Objects) throws -> Value
    private let isDuplicate: (@Sendable (Value, Value) -> Bool)?
    private let deliver: @Sendable (Value) -> Void
    private let end: @Sendable ((any Error)?) -> Void

    /// Starts observing: `deliver` gets each result, `end` is called once, with the error that ended the
    /// observation (nil: the store closed or was released), unless ``cancel()`` came first.
    init(
        store: Store, read: @escaping @Sendable (Objects) throws -> Value,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        deliver: @escaping @Sendable (Value) -> Void, end: @escaping @Sendable ((any Error)?) -> Void
    ) {
        (self.store, self.changes, self.read, self.isDuplicate) = (store, store.changes, read, isDuplicate)
        (self.deliver, self.end) = (deliver, end)
        queue = store.database.observedReadsTakeTurns ? nil : DispatchQueue(label: "dev.molt.observation")
        let end: @Sendable ((any Error)?) -> Void = { [weak self] error in self?.finish(error) }
        let subscription =
            queue == nil
            ? store.changes.subscribe(turnTaking: self, end: end)
            : store.changes.subscribe(changed: { [weak self] in self?.signal() }, end: end)
        guard let subscription else {
            state.withLock { $0.ended = true }
            end(nil)
            return
        }
        state.withLock {
            $0.subscription = subscription
            $0.running = true
        }
        guard let queue else {
            changes.turns.schedule(self, in: store)
            return
        }
        queue.async { [weak self] in
            self?.store?.startNoticingOtherConnections()
            self?.drain()
        }
    }

    private var isEnded: Bool { state.withLock { $0.ended } }

    /// A commit may have changed the result: reads again on the run's queue, after the read under way if there
    /// is one. (A run that takes the store's turns is not signalled: the turns read for it.)
    private func signal() {
        let start = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            if state.running {
                state.pending = true
                return false
            }
            state.running = true
            return true
        }
        guard start, let queue else { return }
        queue.async { [weak self] in self?.drain() }
    }

    /// Reads until no signal came during the last read.
    private func drain() {
        while true {
            runOnce()
            let again = state.withLock { state -> Bool in
                guard state.pending, !state.ended else {
                    state.running = false
                    return false
                }
                state.pending = false
                return true
            }
            guard again else { return }
        }
    }

    /// Reads once, unless the last read already saw every commit published, and delivers the result.
    private func runOnce() {
        guard let store, let claimed = claimRead(seeing: changes.sequence) else { return }
        do {
            let (outcomes, seen) = try store.observedReads([claimed])
            finishRead(outcomes[0], state: seen)
        } catch {
            finishRead(.failure(error), state: nil)
        }
    }

    func claimRead(seeing published: Int) -> ((Objects) throws -> Void)? {
        let claimed = state.withLock { state -> Bool in
            guard !state.ended, published > state.readAfter else { return false }
            state.readAfter = published
            return true
        }
        guard claimed else { return nil }
        return { [read, state] objects in
            let value = try read(objects)
            state.withLock { $0.read = value }
        }
    }

    func finishRead(_ outcome: Result<Set<String>, any Error>, state seen: Int64?) {
        let subscription = state.withLock { $0.subscription }
        switch outcome {
        case .success(let tables):
            if let subscription { changes.depend(subscription, on: tables) }
            let value = state.withLock { state -> Value? in
                defer { state.read = nil }
                guard let value = state.read else { return nil }
                // A read of the state the last result came from (it had already seen the commit that asked
                // for this one) returns that result again: not delivered twice.
                if let seen, seen == state.deliveredState { return nil }
                if let last = state.last, let isDuplicate, isDuplicate(last, value) { return nil }
                state.last = value
                state.deliveredState = seen
                return state.ended ? nil : value
            }
            if let value { deliver(value) }
        case .failure(let error):
            state.withLock { $0.read = nil }
            finish(isEnded ? nil : error)
        }
    }

    /// Ends the run, calling `end` with `error` unless it ended already.
    private func finish(_ error: (any Error)?) {
        guard let subscription = stop() else { return }
        changes.unsubscribe(subscription)
        end(error)
    }

    /// Marks the run ended; returns its subscription the first time.
    private func stop() -> Int? {
        state.withLock { state -> Int? in
            guard !state.ended else { return nil }
            state.ended = true
            return state.subscription
        }
    }

    /// Stops delivery and frees the observation's resources; `end` is not called.
    func cancel() {
        if let subscription = stop() { changes.unsubscribe(subscription) }
    }

    deinit {
        if let subscription = stop() { changes.unsubscribe(subscription) }
    }
}
