import Foundation
import Molt

/// The lock an adoption in place holds: other threads and processes opening the same store wait for it, as
/// for a migration. A file beside the store, `.<name>.molt-adoption.lock`, locked with `flock`.
enum AdoptionLock {
    static func holding<T>(for url: URL, timeout: TimeInterval, _ body: () throws -> T) throws -> T {
        let path = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).molt-adoption.lock")
            .path
        let descriptor = open(path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else {
            throw MoltError(
                .ioError,
                "The adoption's lock file \(path) cannot be created (errno \(errno)): the store's folder must be writable. Nothing was adopted."
            )
        }
        defer { close(descriptor) }
        // flock is per open file: threads of one process each open their own, so they exclude one another too.
        let deadline = Date().addingTimeInterval(timeout)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard Date() < deadline else {
                throw MoltError(
                    .locked,
                    "Another process has been adopting the store at \(url.path) for longer than \(Int(timeout)) seconds. Nothing was written; try again later."
                )
            }
            usleep(20_000)
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
