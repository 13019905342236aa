import Foundation

/// A value shared between threads, read and changed only under its lock: the caches of things computed once
/// per schema value or model type, the registry of open files, a progress bar's state. The one lock Molt's
/// modules use (no hand-rolled `NSLock` beside it).
package final class LockedValue<Wrapped>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Wrapped

    package init(_ value: Wrapped) { self.value = value }

    /// Runs `body` with the value, under the lock.
    package func withLock<Result>(_ body: (inout Wrapped) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
