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
    /// How long to wait for another session's creation or migration of the same store (taken from
    /// `Store.Options.migrationWaitTimeout` when the store is opened).
    var migrationWaitTimeout: Double = LockWait.defaultTimeout

    public init() {}

    /// A copy with another ``lockTimeout``.
    public func waitingForLocks(_ seconds: Double) -> PostgresStoreOptions {
        var copy = self
        copy.lockTimeout = seconds
        return copy
    }
}
