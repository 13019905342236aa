import Foundation
import Molt

/// How Molt uses a PostgreSQL store, beyond `Store/Options`.
///
/// ```swift
/// var postgres = PostgresStoreOptions()
/// postgres.lockTimeout = 2          // a migration gives up after 2 s behind live traffic
/// let store = try Store.open(at: .postgres(url, options: postgres), schema: v6)
/// ```
public struct PostgresStoreOptions: Sendable, Hashable {
    /// How long, in seconds, each statement of a creation or migration waits for a lock held by live traffic
    /// (PostgreSQL's `lock_timeout`) before the whole run is rolled back with `MoltError/Code/locked`.
    ///
    /// An `ALTER TABLE` waits for every transaction that uses the table, and every query that comes after it
    /// waits for the `ALTER TABLE`: a short limit keeps a migration from stalling an app's traffic, and a
    /// migration never deadlocks with it (PostgreSQL would cancel one side; the limit ends the wait first).
    /// Retry the opening when it throws. Default: 10 s. Waiting for *another migrator* is governed by
    /// `Store.Options.migrationWaitTimeout` instead.
    public var lockTimeout: Double = 10
    /// The most sessions the store keeps open to the server (at least 1). Default: 8.
    ///
    /// Sessions are opened as concurrent work needs them and kept until the store is closed. Reads run
    /// concurrently, each on a session of its own; writes run one at a time (each on one session for the whole
    /// transaction), beside the reads. An async call that finds every session in use suspends until one is given
    /// back; a synchronous one waits on its thread. Size it as a postgres-nio `PostgresClient`: the concurrent
    /// requests a server serves, within the server's `max_connections` over all the processes that use it.
    public var poolSize: Int = 8
    /// How long to wait for another session's creation or migration of the same store (taken from
    /// `Store.Options.migrationWaitTimeout` when the store is opened).
    var migrationWaitTimeout: Double = LockWait.defaultTimeout

    public init() {}

    /// A copy with another ``poolSize``.
    ///
    /// ```swift
    /// let store = try Store.open(at: .postgres(url, options: PostgresStoreOptions().pooling(16)), schema: v6)
    /// ```
    public func pooling(_ sessions: Int) -> PostgresStoreOptions {
        var copy = self
        copy.poolSize = sessions
        return copy
    }

    /// A copy with another ``lockTimeout``.
    public func waitingForLocks(_ seconds: Double) -> PostgresStoreOptions {
        var copy = self
        copy.lockTimeout = seconds
        return copy
    }
}
