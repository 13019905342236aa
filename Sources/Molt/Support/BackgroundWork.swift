import Foundation

/// Work that runs on a thread of its own while the caller goes on (a bulk copy's reading of its source for the proof,
/// an adoption's check of the original's pages, while the copy writes), and whose result the caller waits for.
package final class BackgroundWork<Output: Sendable>: Sendable {
    private let outcome = LockedValue<Result<Output, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    package init(_ name: String, _ work: @escaping @Sendable () throws -> Output) {
        let thread = Thread { [outcome, done] in
            outcome.withLock { $0 = Result { try work() } }
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the work is done; its value, or what it threw.
    package func value() throws -> Output {
        done.wait()
        done.signal()  // for the next caller
        return try outcome.withLock { $0! }.get()
    }
}
