import Foundation
import Molt

/// The lock an adoption in place holds: other threads and processes opening the same store wait for it, as for
/// a migration. It is a `flock` on the original store file itself (or, once the original has been moved aside by
/// an adoption that a crash interrupted, on its work folder), so that no file is created beside the store. Each
/// holder re-reads what the path holds once it has the lock: one that waited for an adoption finds a Molt store.
enum AdoptionLock {
    static func holding<T>(for url: URL, workFolder: URL, timeout: TimeInterval, _ body: () throws -> T) throws -> T {
        var descriptor = open(url.path, O_RDONLY)
        if descriptor < 0 { descriptor = open(workFolder.path, O_RDONLY) }
        guard descriptor >= 0 else {
            throw MoltError(
                .ioError,
                "The store at \(url.path) cannot be opened for its adoption (errno \(errno)). Nothing was adopted; check the path and its permissions."
            )
        }
        defer { close(descriptor) }
        // flock belongs to an open file: threads of one process each open their own, so they exclude one another.
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
