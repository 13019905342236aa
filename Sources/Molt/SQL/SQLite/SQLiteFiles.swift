import Foundation

/// The names of the files SQLite keeps beside a database: the rollback journal, the write-ahead log and its
/// index (`store.sqlite-journal`, `-wal`, `-shm`). What inspects them (``SQLiteLeftovers``) names them here, and
/// ``SQLFiles`` copies and removes a store with them.
package enum SQLiteFiles {
    /// The suffix of the rollback journal.
    package static let journal = "-journal"
    /// The suffix of the write-ahead log.
    package static let wal = "-wal"
    /// The suffix of the write-ahead log's shared-memory index.
    package static let shm = "-shm"
}
