import Foundation
import GRDB

/// A store file, or an in-memory store, opened through a GRDB `DatabaseQueue`: one serialized connection.
///
/// Opening writes nothing: the connection starts in the file's own journal mode (GRDB's `.wal` would switch
/// with a throw-away `CREATE TABLE` even when the opening is then refused), foreign keys are enforced outside
/// migrations, and Molt's SQL functions (``SQLiteFunctions``) are registered.
package final class SQLiteDatabase: SQLDatabase {
    let queue: DatabaseQueue
    /// The file's path, or `:memory:`.
    package let path: String

    package var location: String { path }
    package var dialect: any SQLDialect { SQLiteDialect.shared }

    /// How a file is opened.
    package struct Settings: Sendable {
        /// How long to wait for another connection's lock, in seconds.
        package var busyTimeout: Double = 600
        /// Opens the file read-only: nothing is ever written, not even a journal recovery.
        package var readOnly = false
        /// `PRAGMA secure_delete = FAST` during exclusive work (a migration).
        package var fastSecureDelete = false
        /// `PRAGMA query_only`: a writable connection that refuses every write statement (it may still recover
        /// a journal, and removes the `-wal` and `-shm` files it needed when it closes last).
        package var queryOnly = false

        package init() {}
    }

    let settings: Settings

    private init(queue: DatabaseQueue, path: String, settings: Settings) {
        self.queue = queue
        self.path = path
        self.settings = settings
    }

    /// Opens (or, unless read-only, creates) the file at `path`.
    ///
    /// - Throws: ``MoltError`` from the error map, about the file.
    package static func open(path: String, settings: Settings = Settings()) throws -> SQLiteDatabase {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(settings.busyTimeout)
        configuration.journalMode = .default
        configuration.readonly = settings.readOnly
        let queryOnly = settings.queryOnly
        configuration.prepareDatabase { db in
            SQLiteFunctions.register(in: db)
            if queryOnly { try db.execute(sql: "PRAGMA query_only = 1") }
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            return SQLiteDatabase(queue: queue, path: path, settings: settings)
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, .file(path))
        }
    }

    /// An empty database in memory.
    package static func inMemory() throws -> SQLiteDatabase {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in SQLiteFunctions.register(in: db) }
        return SQLiteDatabase(queue: try DatabaseQueue(configuration: configuration), path: ":memory:", settings: Settings())
    }

    private func mapping<T>(_ context: SQLiteErrors.Context, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, context)
        }
    }

    package func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try mapping(.objects) { try queue.read { db in try body(SQLiteConnection(db)) } }
    }

    package func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try mapping(.objects) { try queue.write { db in try body(SQLiteConnection(db)) } }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        do {
            return try await queue.read { db in try body(SQLiteConnection(db)) }
        } catch {
            throw SQLiteErrors.mapped(error, .objects)
        }
    }

    package func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        do {
            return try await queue.write { db in try body(SQLiteConnection(db)) }
        } catch {
            throw SQLiteErrors.mapped(error, .objects)
        }
    }

    /// Reads outside of any transaction SQLite would open for writing: for the first look at a file that may
    /// not be a store, so that nothing is written to it.
    package func inspect<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try mapping(.file(path)) { try queue.read { db in try body(SQLiteConnection(db, context: .file(path))) } }
    }

    package func exclusive(_ body: (any SQLConnection) throws -> Bool) throws {
        try mapping(.file(path)) {
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                if settings.fastSecureDelete { try db.execute(sql: "PRAGMA secure_delete = FAST") }
                try db.inTransaction(.immediate) {
                    try body(SQLiteConnection(db, context: .file(path))) ? .commit : .rollback
                }
            }
        }
    }

    package func compact() throws {
        try mapping(.file(path)) { try queue.vacuum() }
    }

    package func close() throws {
        try queue.close()
    }

    // MARK: - SQLite only

    /// The journal mode the file is in: `wal`, `delete`, `truncate`, `persist`, `memory` or `off`.
    package func journalMode() throws -> String {
        try mapping(.file(path)) { try queue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "delete" } }
    }

    /// Switches the file to write-ahead logging (a file already in WAL mode is not written to).
    package func switchToWAL() throws {
        try mapping(.file(path)) {
            try queue.writeWithoutTransaction { db in
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                    throw MoltError(
                        .ioError,
                        "SQLite could not switch the store at \(path) to write-ahead logging; open it with `journalMode = .rollback`.")
                }
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
        }
    }

    /// Copies the database to a new file with SQLite's online backup: a consistent copy even while another
    /// connection writes, in the source's journal mode.
    package func backup(to destination: String) throws {
        try mapping(.file(destination)) {
            let target = try DatabaseQueue(path: destination)
            defer { try? target.close() }
            try queue.backup(to: target)
        }
    }

    /// SQLite's `PRAGMA quick_check`: the problems it finds, none when the file is sound.
    package func quickCheck(full: Bool = false) throws -> [String] {
        let lines = try mapping(.file(path)) {
            try queue.read { db in try String.fetchAll(db, sql: full ? "PRAGMA integrity_check" : "PRAGMA quick_check") }
        }
        return lines == ["ok"] ? [] : lines
    }
}
