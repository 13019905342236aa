import Foundation

/// How long Molt waits for another connection's lock (a writer, a migration in another process) before it gives
/// up with an error that says who holds it: ten minutes, long enough for a migration of a large store on a slow
/// device. Every default wait in Molt and its engines is this one.
package enum LockWait {
    /// The default wait, in seconds.
    package static let defaultTimeout: TimeInterval = 600
}
