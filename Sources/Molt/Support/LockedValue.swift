import Foundation

/// A value shared between threads, read and changed only under its lock: the caches of things computed once
/// per schema value or model type.
final class LockedValue<Wrapped>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Wrapped

    init(_ value: Wrapped) { self.value = value }

    /// Runs `body` with the value, under the lock.
    func withLock<Result>(_ body: (inout Wrapped) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
