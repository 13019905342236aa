import Dispatch

/// An observation whose reads take turns with the store's other observations (``SQLDatabase/observedReadsTakeTurns``,
/// SQLite), so that the reads due at the same moment share one read transaction.
package protocol TurnTakingRead: AnyObject, Sendable {
    /// Claims a read that sees every commit up to `published` (``StoreChanges/sequence``): what reads and keeps
    /// the result, or nil when no read is due (the observation ended, or its last read saw those commits).
    func claimRead(seeing published: Int) -> ((Objects) throws -> Void)?

    /// After the shared transaction: the tables the claimed read touched, or what it (or the transaction) threw.
    /// Delivers the result kept by the claimed read.
    func finishRead(_ outcome: Result<Set<String>, any Error>)
}

/// The queue on which the observed reads of a store whose reads take turns run, and the observations due to
/// read: a commit that concerns ten observations wakes one thread, which runs their ten reads in one read
/// transaction (one `BEGIN`, one schema check, one page cache for all of them) rather than ten.
///
/// Each observation is queued once however many commits signal it before its turn; its read then sees all of
/// them. Reads are serialized on one queue, so an observation's results come in commit order.
package final class ObservedReadTurns: Sendable {
    private struct State {
        var due: [any TurnTakingRead] = []
        var draining = false
    }

    private let state = LockedValue(State())
    private let queue = DispatchQueue(label: "dev.molt.observations")

    /// Queues `read` for the next shared transaction, and starts a drain on the queue unless one runs. The
    /// caller queues each observation at most once until its ``TurnTakingRead/claimRead(seeing:)`` is called.
    package func schedule(_ read: any TurnTakingRead, in store: Store) {
        let start = state.withLock { state -> Bool in
            state.due.append(read)
            defer { state.draining = true }
            return !state.draining
        }
        guard start else { return }
        queue.async { [weak store, weak self] in
            guard let self else { return }
            self.drain(store)
        }
    }

    /// Reads for the queued observations, in one transaction per batch, until none is queued.
    private func drain(_ store: Store?) {
        while true {
            let due = state.withLock { state -> [any TurnTakingRead] in
                defer { state.due = [] }
                if state.due.isEmpty { state.draining = false }
                return state.due
            }
            guard !due.isEmpty else { return }
            // The store released: its observations ended with it.
            guard let store else { continue }
            store.startNoticingOtherConnections()
            let published = store.changes.sequence
            let claimed = due.compactMap { read in read.claimRead(seeing: published).map { (read, $0) } }
            guard !claimed.isEmpty else { continue }
            let outcomes: [Result<Set<String>, any Error>]
            do {
                outcomes = try store.observedReads(claimed.map(\.1))
            } catch {
                outcomes = claimed.map { _ in .failure(error) }
            }
            for ((read, _), outcome) in zip(claimed, outcomes) { read.finishRead(outcome) }
        }
    }
}
