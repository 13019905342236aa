import Foundation

/// The observations of one store and the commits that concern them: each observation subscribes with what to
/// call when a commit may have changed its result, and says after each run which tables its read touched.
///
/// Commits made through the store publish the tables they wrote; commits of other connections and processes
/// are found by polling the engine's change counter (``SQLDatabase/externalChangeCounter()``) every
/// ``pollInterval`` while at least one observation is active, and concern every observation (which tables they
/// wrote is not known). Closing the store ends every observation.
package final class StoreChanges: Sendable {
    /// How often the change counter of a store that other connections may write is read while observations
    /// are active: the latency of noticing another connection's or process's commit.
    package static let pollInterval: Duration = .milliseconds(50)

    private struct Subscriber {
        /// The tables the observation's last read touched; nil until it read once (any commit concerns it).
        var tables: Set<String>?
        let changed: @Sendable () -> Void
        let end: @Sendable ((any Error)?) -> Void
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var closed = false
        var poller: Task<Void, Never>?
        var counter: Int64?
        var sequence = 0
    }

    private let state = LockedValue(State())

    package init() {}

    /// Whether any observation is active: write transactions record the tables they write only then.
    package var isActive: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// The number of active observations.
    package var count: Int { state.withLock { $0.subscribers.count } }

    /// The number of commits published so far: a read that starts after it took this number sees every one of
    /// them, so that a change signalled for one of them needs no other read.
    package var sequence: Int { state.withLock { $0.sequence } }

    /// Subscribes an observation: `changed` is called after each commit that may concern it, `end` once when the
    /// store closes. Returns nil when the store is closed already.
    package func subscribe(
        changed: @escaping @Sendable () -> Void, end: @escaping @Sendable ((any Error)?) -> Void
    )
        -> Int?
    {
        state.withLock { state in
            guard !state.closed else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(tables: nil, changed: changed, end: end)
            return id
        }
    }

    /// Records the tables the observation's last read touched: only commits that write one of them concern it.
    package func depend(_ id: Int, on tables: Set<String>) {
        state.withLock { $0.subscribers[id]?.tables = tables }
    }

    /// Ends an observation's subscription; the last one stops the polling.
    package func unsubscribe(_ id: Int) {
        let poller = state.withLock { state -> Task<Void, Never>? in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty else { return nil }
            defer { (state.poller, state.counter) = (nil, nil) }
            return state.poller
        }
        poller?.cancel()
    }

    /// Tells the observations whose read touched one of `tables` (every one when nil) that a commit changed them.
    package func publish(_ tables: Set<String>?) {
        let concerned = state.withLock { state in
            state.sequence += 1
            return state.subscribers.values.filter { subscriber in
                guard let tables, let read = subscriber.tables else { return true }
                return !read.isDisjoint(with: tables)
            }.map(\.changed)
        }
        for changed in concerned { changed() }
    }

    /// After a write transaction committed: publishes what it wrote, recorded by `access` (everything when it
    /// started before the first observation, and so recorded nothing).
    package func didCommit(_ access: TableAccess?) {
        guard isActive else { return }
        guard let access else { return publish(nil) }
        let written = access.written
        if !written.isEmpty { publish(written) }
    }

    /// Ends every observation (the store closes): nothing is delivered after this.
    package func close() {
        let (ends, poller) = state.withLock { state in
            state.closed = true
            defer { (state.subscribers, state.poller) = ([:], nil) }
            return (state.subscribers.values.map(\.end), state.poller)
        }
        poller?.cancel()
        for end in ends { end(nil) }
    }
}

extension StoreChanges {
    /// Starts reading `database`'s change counter, unless it is read already or the engine has none: the counter
    /// is read once before this returns, so that an observation's first read (after it) misses no commit.
    package func startPolling(_ database: any SQLDatabase) async {
        guard state.withLock({ $0.poller == nil && !$0.closed }),
            let first = try? await database.externalChangeCounter()
        else { return }
        state.withLock { state in
            guard state.poller == nil, !state.closed, !state.subscribers.isEmpty else { return }
            state.counter = first
            state.poller = Task { [weak self, weak database] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.pollInterval)
                    guard let self, let database, !Task.isCancelled else { return }
                    guard let counter = try? await database.externalChangeCounter() else { continue }
                    if self.advance(to: counter) { self.publish(nil) }
                }
            }
        }
    }

    /// Records the counter read; true when it moved (another connection committed).
    private func advance(to counter: Int64) -> Bool {
        state.withLock { state in
            defer { state.counter = counter }
            return state.counter.map { $0 != counter } ?? false
        }
    }
}
