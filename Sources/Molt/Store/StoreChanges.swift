import Foundation

/// The observations of one store and the commits that concern them: each observation subscribes with what to
/// call when a commit may have changed its result, and says after each run which tables its read touched.
///
/// Commits made through the store publish the tables they wrote. Commits of other connections and processes
/// are found, while at least one observation is active, by polling the engine's change counter
/// (``SQLDatabase/externalChangeCounter()``, SQLite) every ``pollInterval`` while commits come, backing off to
/// ``idlePollInterval`` while none do (a phone is not woken 20 times a second for nothing) — they concern every observation,
/// which tables they wrote being unknown — or by listening to the commits other servers announce
/// (``SQLDatabase/listenForCommits(_:)``, PostgreSQL), with their tables. Closing the store ends every
/// observation.
package final class StoreChanges: Sendable {
    /// How often the change counter of a store that other connections may write is read while observations
    /// are active: the latency of noticing another connection's or process's commit.
    package static let pollInterval: Duration = .milliseconds(50)
    /// The longest wait between two reads of the change counter: after a poll that found no change the wait
    /// doubles, up to this; a change found, or a commit of the store's own, brings it back to ``pollInterval``.
    package static let idlePollInterval: Duration = .seconds(1)

    private struct Subscriber {
        /// The tables the observation's last read touched; nil until it read once (any commit concerns it).
        var tables: Set<String>?
        /// What to call after a commit that concerns it; nil for an observation whose reads take the store's
        /// turns, which ``turns`` finds by its tables when it reads.
        let changed: (@Sendable () -> Void)?
        /// The observation, when its reads take the store's turns (weak: the observation holds the changes).
        weak var turnTaking: (any TurnTakingRead)?
        let end: @Sendable ((any Error)?) -> Void
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var closed = false
        var poller: (any DispatchSourceTimer)?
        var counter: Int64?
        /// The wait before the next read of the change counter.
        var pollDelay = StoreChanges.pollInterval
        /// How many times the change counter was read: the wake-ups that noticing other connections costs.
        var polls = 0
        /// Stops listening to the commits other servers announce (PostgreSQL).
        var listener: (@Sendable () -> Void)?
        var sequence = 0
        /// How many subscribers take the store's turns.
        var turnTakers = 0
    }

    private let state = LockedValue(State())
    /// Where observed reads run when they take turns anyway (``SQLDatabase/observedReadsTakeTurns``): the reads
    /// due at the same moment share one read transaction on one thread.
    package let turns = ObservedReadTurns()

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
            state.subscribers[id] = Subscriber(tables: nil, changed: changed, turnTaking: nil, end: end)
            return id
        }
    }

    /// Subscribes an observation whose reads take the store's turns: after each commit that may concern it,
    /// ``turns`` reads for it (it is not called), `end` once when the store closes. Returns nil when the store is
    /// closed already.
    package func subscribe(
        turnTaking read: any TurnTakingRead, end: @escaping @Sendable ((any Error)?) -> Void
    ) -> Int? {
        state.withLock { state in
            guard !state.closed else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(tables: nil, changed: nil, turnTaking: read, end: end)
            state.turnTakers += 1
            return id
        }
    }

    /// The turn-taking observations that commits writing `tables` (any table when nil) concern.
    package func turnTakers(concernedBy tables: Set<String>?) -> [any TurnTakingRead] {
        state.withLock { state in
            var concerned: [any TurnTakingRead] = []
            guard state.turnTakers > 0 else { return concerned }
            for subscriber in state.subscribers.values {
                guard let read = subscriber.turnTaking else { continue }
                if let tables, let touched = subscriber.tables, touched.isDisjoint(with: tables) { continue }
                concerned.append(read)
            }
            return concerned
        }
    }

    /// Records the tables the observation's last read touched: only commits that write one of them concern it.
    package func depend(_ id: Int, on tables: Set<String>) {
        state.withLock { $0.subscribers[id]?.tables = tables }
    }

    /// Ends an observation's subscription; the last one stops the polling.
    package func unsubscribe(_ id: Int) {
        let (poller, listener) = state.withLock { state -> ((any DispatchSourceTimer)?, (@Sendable () -> Void)?) in
            if let removed = state.subscribers.removeValue(forKey: id), removed.changed == nil {
                state.turnTakers -= 1
            }
            guard state.subscribers.isEmpty else { return (nil, nil) }
            defer { (state.poller, state.counter, state.listener) = (nil, nil, nil) }
            return (state.poller, state.listener)
        }
        poller?.cancel()
        listener?()
    }

    /// Tells the observations whose read touched one of `tables` (every one when nil) that a commit changed them.
    ///
    /// The committing thread does little for observations whose reads take the store's turns, however many
    /// there are: it counts the commit and hands its tables to ``turns``, whose thread finds the observations
    /// they concern when it reads. Others are called here.
    package func publish(_ tables: Set<String>?) {
        let (concerned, turnTaking) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
            state.sequence += 1
            // The store is in use: other connections' commits are looked for at the quick pace again.
            if state.pollDelay > Self.pollInterval { Self.schedule(&state, after: Self.pollInterval) }
            guard state.subscribers.count > state.turnTakers else { return ([], state.turnTakers > 0) }
            var concerned: [@Sendable () -> Void] = []
            for subscriber in state.subscribers.values {
                guard let changed = subscriber.changed else { continue }
                if let tables, let read = subscriber.tables, read.isDisjoint(with: tables) { continue }
                concerned.append(changed)
            }
            return (concerned, state.turnTakers > 0)
        }
        if turnTaking { turns.committed(tables) }
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
        let (ends, poller, listener) = state.withLock { state in
            state.closed = true
            defer { (state.subscribers, state.turnTakers, state.poller, state.listener) = ([:], 0, nil, nil) }
            return (state.subscribers.values.map(\.end), state.poller, state.listener)
        }
        poller?.cancel()
        listener?()
        for end in ends { end(nil) }
    }
}

extension StoreChanges {
    /// Starts noticing the commits of other connections, unless it is done already or the engine cannot tell
    /// of them: SQLite's change counter is read once before this returns, PostgreSQL's `LISTEN` is in place, so
    /// that an observation's first read (after it) misses no commit.
    package func startNoticing(_ database: any SQLDatabase) {
        guard state.withLock({ $0.poller == nil && $0.listener == nil && !$0.closed }) else { return }
        if let first = try? database.externalChangeCounter() {
            return startPolling(database, from: first)
        }
        guard database.announcesCommits,
            let stop = try? database.listenForCommits({ [weak self] tables in self?.publish(tables) })
        else { return }
        let kept = state.withLock { state -> Bool in
            guard state.listener == nil, !state.closed, !state.subscribers.isEmpty else { return false }
            state.listener = stop
            return true
        }
        if !kept { stop() }
    }

    /// Reads `database`'s change counter from `first` on, on a dispatch timer (never on Swift's cooperative
    /// pool), and publishes a change when it moved: every ``pollInterval`` while changes come, the wait doubling
    /// after each read that found none, up to ``idlePollInterval``.
    private func startPolling(_ database: any SQLDatabase, from first: Int64) {
        state.withLock { state in
            guard state.poller == nil, !state.closed, !state.subscribers.isEmpty else { return }
            state.counter = first
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "dev.molt.changes"))
            timer.setEventHandler { [weak self, weak database] in
                guard let self, let database else { return }
                let moved = (try? database.externalChangeCounter()).map(self.advance(to:)) ?? false
                if moved { self.publish(nil) }
                self.state.withLock { state in
                    state.polls += 1
                    let next =
                        moved
                        ? Self.pollInterval
                        : Swift.min(Swift.max(state.pollDelay * 2, Self.pollInterval), Self.idlePollInterval)
                    Self.schedule(&state, after: next)
                }
            }
            state.poller = timer
            Self.schedule(&state, after: Self.pollInterval)
            timer.resume()
        }
    }

    /// Sets the poller's next read of the change counter `delay` from now (with a tenth of it as leeway, so
    /// that the system may fold the wake-up into another).
    private static func schedule(_ state: inout State, after delay: Duration) {
        state.pollDelay = delay
        guard let poller = state.poller else { return }
        let milliseconds =
            Int(delay.components.seconds) * 1000
            + Int(delay.components.attoseconds / 1_000_000_000_000_000)
        poller.schedule(
            deadline: .now() + .milliseconds(milliseconds), leeway: .milliseconds(Swift.max(5, milliseconds / 10)))
    }

    /// Reads the change counter now, and at the quick pace after it: for an app that knows another process may
    /// have written (it became active again, an extension finished).
    package func pollNow() {
        state.withLock { state in
            guard state.poller != nil else { return }
            Self.schedule(&state, after: .zero)
        }
    }

    /// How many times the change counter was read so far (see ``idlePollInterval``).
    package var pollCount: Int { state.withLock { $0.polls } }

    /// Records the counter read; true when it moved (another connection committed).
    private func advance(to counter: Int64) -> Bool {
        state.withLock { state in
            defer { state.counter = counter }
            return state.counter.map { $0 != counter } ?? false
        }
    }
}
