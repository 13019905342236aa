import Foundation

/// Stores in a file of their own, or in memory: the engine Molt opens them with (SQLite), behind the seam.
///
/// `Store` opens, recovers and creates file stores through these functions and ``SQLFileDatabase``, without
/// naming the engine.
package enum SQLFiles {
    /// The dialect of file stores.
    package static var dialect: any SQLDialect { SQLiteDialect.shared }

    /// Opens (or creates) the store file at `path` for reading and writing.
    ///
    /// - Parameters:
    ///   - busyTimeout: How long to wait for another connection's lock, in seconds.
    ///   - fastSecureDelete: Whether deleted content is overwritten where it costs no extra I/O only.
    package static func open(
        path: String, busyTimeout: TimeInterval = LockWait.defaultTimeout, fastSecureDelete: Bool = false
    ) throws -> any SQLFileDatabase {
        var settings = SQLiteDatabase.Settings()
        settings.busyTimeout = busyTimeout
        settings.fastSecureDelete = fastSecureDelete
        return try SQLiteDatabase.open(path: path, settings: settings)
    }

    /// Opens the store file at `path` for reading only: nothing is written, not even a recovery.
    package static func openForReading(path: String, busyTimeout: TimeInterval) throws -> any SQLFileDatabase {
        try SQLiteDatabase.openForReading(path: path, busyTimeout: busyTimeout)
    }

    /// An empty database in memory.
    package static func inMemory() throws -> any SQLDatabase { try SQLiteDatabase.inMemory() }

    /// What a process that died while writing left beside the store file at `path` that holds data to recover,
    /// or nil.
    package static func recoverableLeftover(at path: String) -> SQLFileLeftover? {
        switch SQLiteLeftovers(path: path).recoverableLeftover() {
        case .journal: return .journal
        case .log: return .log
        case nil: return nil
        }
    }

    /// The suffixes of the files that may sit beside a store file and belong to it.
    package static let companionSuffixes = [SQLiteFiles.journal, SQLiteFiles.wal, SQLiteFiles.shm]

    /// The paths of the store file at `path` and of each file that may sit beside it, the store's first.
    package static func paths(of path: String) -> [String] {
        [path] + companionSuffixes.map { path + $0 }
    }

    /// Removes the store file at `path` and those of its companions that exist.
    ///
    /// ```swift
    /// SQLFiles.remove("/tmp/scratch.sqlite")  // the file and whichever companions exist
    /// ```
    package static func remove(_ path: String) {
        for file in paths(of: path) { try? FileManager.default.removeItem(atPath: file) }
    }
}

/// What a dead writer left beside a store file.
package enum SQLFileLeftover: Sendable {
    /// A rollback journal: the unfinished write is rolled back.
    case journal
    /// A write-ahead log: its committed changes are copied into the file.
    case log
}

/// A store's database in a file of its own, with what recovering a file needs beyond ``SQLDatabase``.
package protocol SQLFileDatabase: SQLDatabase {
    /// Recovers what a dead writer left: rolls back a journal, or copies a log's committed changes into the file.
    func recoverLeftovers() throws
    /// The engine's quick check of the whole file: the problems it finds, none when the file is sound.
    func quickCheck(full: Bool, tables: [String]?) throws -> [String]
}

/// The journal an opening sets on a file store.
package enum SQLJournal: Sendable {
    /// Write-ahead logging.
    case wal
    /// A rollback journal: the file's mode is left as it is.
    case rollback
    /// The mode the file has; write-ahead logging for a new file.
    case preserve
}
