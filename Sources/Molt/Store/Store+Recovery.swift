import Foundation

extension Store {
    /// Applies or discards what a process that died while writing left beside the store at `url`: rolls back a
    /// rollback journal, copies a write-ahead log's committed changes into the file. It is what any writable
    /// opening of the store does first; `molt recover` runs it alone, for the read commands, which refuse such a
    /// store rather than change it.
    ///
    /// ```swift
    /// if let done = try Store.recover(at: url) { print(done) }   // "rolled back a rollback journal (…)"
    /// ```
    ///
    /// - Returns: What was recovered, as a sentence; nil when there was nothing to recover (nothing is written).
    /// - Throws: ``MoltError`` from opening the file (``MoltError/Code/locked`` while another process writes).
    package static func recover(at url: URL, waitingUpTo timeout: TimeInterval = 600) throws -> String? {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MoltError(.storeNotFound, "There is no store at \(url.path). Check the path.")
        }
        let leftovers = SQLiteLeftovers(path: url.path)
        guard let found = leftovers.recoverableLeftover() else { return nil }
        var settings = SQLiteDatabase.Settings()
        settings.busyTimeout = timeout
        let database = try SQLiteDatabase.open(path: url.path, settings: settings)
        defer { try? database.close() }
        try database.recoverLeftovers()
        switch found {
        case .journal: return "rolled back the unfinished write recorded in \(url.path)-journal"
        case .log: return "copied the committed changes of \(url.path)-wal into the store"
        }
    }
}
