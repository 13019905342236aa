import Foundation

/// A switch that cancels a running migration: the run stops at its next check (between steps, tables and
/// batches of objects) and rolls back, leaving the store at its old version.
///
/// ```swift
/// let cancellation = MigrationCancellation()
/// var options = Store.Options()
/// options.cancellation = cancellation
/// // On another thread, when the user taps Cancel:
/// cancellation.cancel()
/// ```
public final class MigrationCancellation: Sendable {
    private let cancelled = LockedValue(false)

    /// Creates a switch that is not cancelled.
    public init() {}

    /// Asks the migration to stop and roll back.
    public func cancel() { cancelled.withLock { $0 = true } }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { cancelled.withLock { $0 } }
}
