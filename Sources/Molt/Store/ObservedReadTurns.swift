import Dispatch

/// An observation whose reads take turns with the store's other observations (``SQLDatabase/observedReadsTakeTurns``,
/// SQLite), so that the reads due at the same moment share one read transaction.
package protocol TurnTakingRead: AnyObject, Sendable {
    /// Claims a read that sees every commit up to `published` (``StoreChanges/sequence``): what reads and keeps
    /// the result, or nil when no read is due (the observation ended, or its last read saw those commits).
    func claimRead(seeing published: Int) -> ((Objects) throws -> Void)?

    /// After the shared transaction: the tables the claimed read touched, or what it (or the transaction) threw,
    /// and the token of the state it saw, if the engine gives one. Delivers the result kept by the claimed read.
    func finishRead(_ outcome: Result<Set<String>, any Error>, state: Int64?)
}

/// The queue on which the observed reads of a store whose reads take turns run, and what is due to be read: a
/// commit that concerns ten observations wakes one thread, which runs their ten reads in one read transaction
/// (one `BEGIN`, one schema check, one page cache for all of them) rather than ten.
///
/// A commit only hands over the tables it wrote (``committed(_:)``): the thread finds the observations
/// they concern, so the committing thread's cost does not grow with the number of observations. The commits that
/// come before a turn make one read per observation, of the latest state. Reads are serialized on one queue, so
/// an observation's results come in commit order.
package final class ObservedReadTurns: Sendable {
    private struct State {
        /// Observations waiting for their first read.
        var due: [any TurnTakingRead] = []
        /// Whether commits came since the thread last looked, and the tables they wrote (nil: any table).
        var committed = false
        var written: Set<String>? = []
        var draining = false
        /// The store whose observations read here (weak: the store owns its changes, which own this).
        weak var store: Store?
    }

    private let state = LockedValue(State())
    private let queue = DispatchQueue(label: "dev.molt.observations")

    /// Queues `read`'s first read for the next shared transaction, and starts a drain on the queue unless one
    /// runs.
    package func schedule(_ read: any TurnTakingRead, in store: Store) {
        let start = state.withLock { state -> Bool in
            state.store = store
            state.due.append(read)
            defer { state.draining = true }
            return !state.draining
        }
        if start { queue.async { [weak self] in self?.drain() } }
    }

    /// After a commit that wrote `tables` (nil: unknown), while turn-taking observations are subscribed:
    /// the next turn reads for those it concerns. Starts a drain unless one runs.
    package func committed(_ tables: Set<String>?) {
        let start = state.withLock { state -> Bool in
            state.committed = true
            if let tables { state.written?.formUnion(tables) } else { state.written = nil }
            defer { state.draining = true }
            return !state.draining
        }
        if start { queue.async { [weak self] in self?.drain() } }
    }

    /// Reads for the observations due, in one transaction per turn, until nothing is due.
    private func drain() {
        while true {
            let (due, written, store) = state.withLock {
                state -> (due: [any TurnTakingRead], written: Set<String>??, store: Store?) in
                defer { (state.due, state.committed, state.written) = ([], false, []) }
                let written: Set<String>?? = state.committed ? .some(state.written) : .none
                if state.due.isEmpty && written == nil { state.draining = false }
                return (state.due, written, state.store)
            }
            guard !due.isEmpty || written != nil else { return }
            // The store released: its observations ended with it.
            guard let store else { continue }
            store.startNoticingOtherConnections()
            // Taken after the commits above were counted, so a read claimed now sees each of them.
            let published = store.changes.sequence
            var reads = due
            if let written { reads += store.changes.turnTakers(concernedBy: written) }
            var claimed: [(read: any TurnTakingRead, body: (Objects) throws -> Void)] = []
            var seen = Set<ObjectIdentifier>()
            for read in reads where seen.insert(ObjectIdentifier(read)).inserted {
                if let body = read.claimRead(seeing: published) { claimed.append((read, body)) }
            }
            guard !claimed.isEmpty else { continue }
            let outcomes: [Result<Set<String>, any Error>], seenState: Int64?
            do {
                (outcomes, seenState) = try store.observedReads(claimed.map(\.body))
            } catch {
                (outcomes, seenState) = (claimed.map { _ in .failure(error) }, nil)
            }
            for ((read, _), outcome) in zip(claimed, outcomes) { read.finishRead(outcome, state: seenState) }
        }
    }
}
