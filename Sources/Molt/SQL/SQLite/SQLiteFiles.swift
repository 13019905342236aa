import Foundation

/// An SQLite database's files: the database itself and the rollback journal, write-ahead log and its index that
/// SQLite keeps beside it (`store.sqlite-journal`, `-wal`, `-shm`). Whatever copies, removes or inspects a store's
/// files names them here.
///
/// ```swift
/// SQLiteFiles.remove("/tmp/scratch.sqlite")  // the database and whichever side files exist
/// ```
package enum SQLiteFiles {
    /// The suffix of the rollback journal.
    package static let journal = "-journal"
    /// The suffix of the write-ahead log.
    package static let wal = "-wal"
    /// The suffix of the write-ahead log's shared-memory index.
    package static let shm = "-shm"

    /// The paths of the database at `path` and of each side file it may have, the database first.
    package static func paths(of path: String) -> [String] {
        [path, path + journal, path + wal, path + shm]
    }

    /// Removes the database at `path` and those of its side files that exist.
    package static func remove(_ path: String) {
        for file in paths(of: path) { try? FileManager.default.removeItem(atPath: file) }
    }
}
