import Foundation
import Molt

/// Work that runs on a thread of its own while the caller goes on (an adoption's checks of the original, read
/// while the copy writes), and whose result the caller waits for.
final class BackgroundWork<Value: Sendable>: Sendable {
    private let outcome = LockedValue<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ name: String, _ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [outcome, done] in
            outcome.withLock { $0 = Result { try work() } }
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the work is done; its value, or what it threw.
    func value() throws -> Value {
        done.wait()
        done.signal()  // for the next caller
        return try outcome.withLock { $0! }.get()
    }
}
