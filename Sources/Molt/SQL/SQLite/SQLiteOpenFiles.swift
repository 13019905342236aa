import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SQLite files this process has open through ``SQLiteDatabase``, by device and inode.
///
/// POSIX advisory locks belong to the process, and closing *any* descriptor of a file releases all of them: a
/// raw `open`/`close` of a store this process is using would silently drop its SQLite connections' locks (the
/// first way to corrupt a database in SQLite's own list). ``SQLiteLeftovers`` asks here first and, for a file in
/// use, never opens it itself.
enum SQLiteOpenFiles {
    fileprivate struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// How many connections of this process have each file open.
    fileprivate static let counts = LockedValue<[FileID: Int]>([:])

    private static func id(_ path: String) -> FileID? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// A connection's hold on its file in the registry: released by ``release()`` or when it goes away.
    final class Lease: @unchecked Sendable {
        private let id: FileID
        private var released = false

        fileprivate init(_ id: FileID) { self.id = id }

        /// Ends the hold (once; later calls do nothing).
        func release() {
            SQLiteOpenFiles.counts.withLock { counts in
                guard !released else { return }
                released = true
                counts[id, default: 1] -= 1
                if counts[id] == 0 { counts[id] = nil }
            }
        }

        deinit { release() }
    }

    /// Records that a connection to the file at `path` was opened, until the lease is released.
    static func lease(_ path: String) -> Lease? {
        guard let id = id(path) else { return nil }
        counts.withLock { $0[id, default: 0] += 1 }
        return Lease(id)
    }

    /// Whether this process has a connection to the file at `path`.
    static func isOpen(_ path: String) -> Bool {
        guard let id = id(path) else { return false }
        return counts.withLock { $0[id] != nil }
    }
}
