import Foundation
import GRDB

/// A store file, or an in-memory store, opened through a GRDB `DatabaseQueue`: one serialized connection.
///
/// Opening writes nothing: the connection starts in the file's own journal mode (GRDB's `.wal` would switch
/// with a throw-away `CREATE TABLE` even when the opening is then refused), foreign keys are enforced outside
/// migrations, and Molt's SQL functions (``SQLiteFunctions``) are registered.
package final class SQLiteDatabase: SQLFileDatabase {
    let queue: DatabaseQueue
    /// The file's path, or `:memory:`.
    package let path: String

    package var location: String { path }
    package var dialect: any SQLDialect { SQLiteDialect.shared }

    /// How a file is opened.
    package struct Settings: Sendable {
        /// How long to wait for another connection's lock, in seconds.
        package var busyTimeout: Double = LockWait.defaultTimeout
        /// Opens the file read-only: nothing is ever written, not even a journal recovery.
        package var readOnly = false
        /// `PRAGMA secure_delete = FAST` during exclusive work (a migration).
        package var fastSecureDelete = false
        /// `PRAGMA query_only`: a writable connection that refuses every write statement (it may still recover
        /// a journal, and removes the `-wal` and `-shm` files it needed when it closes last).
        package var queryOnly = false
        /// Reads the file alone, as SQLite's `immutable=1` does: no lock, no journal, no `-wal` or `-shm` file read
        /// or created. Only for a file no other process uses (see ``SQLiteLeftovers``).
        package var immutable = false
        /// With ``readOnly``: maps the `-shm` read-only (SQLite's `readonly_shm`), so that a reader of a WAL file
        /// writes no byte of it (a reader otherwise rebuilds the index of the `-wal` there); SQLite then reads
        /// the `-wal` into memory of its own when no live writer keeps the index current.
        package var readOnlySharedMemory = false

        package init() {}
    }

    let settings: Settings

    /// This connection's entry in ``SQLiteOpenFiles``, released when it closes.
    private let openFile: SQLiteOpenFiles.Lease?
    /// The connection observed reads run on in WAL mode (``observationRead(_:)``), opened by the first one.
    let observationReader = LockedValue(ObservationReader.unopened)

    private init(queue: DatabaseQueue, path: String, settings: Settings) {
        self.queue = queue
        self.path = path
        self.settings = settings
        openFile = path == ":memory:" ? nil : SQLiteOpenFiles.lease(path)
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
            let target =
                settings.immutable
                ? uri(path, "immutable=1")
                : settings.readOnly && settings.readOnlySharedMemory ? uri(path, "mode=ro&readonly_shm=1") : path
            let queue = try DatabaseQueue(path: target, configuration: configuration)
            return SQLiteDatabase(queue: queue, path: path, settings: settings)
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, .file(path))
        }
    }

    /// `file:PATH?QUERY` (`immutable=1`), with the characters a URI gives a meaning to escaped.
    private static func uri(_ path: String, _ query: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:\(path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)?\(query)"
    }

    /// Opens an existing file to read it without writing a byte of it or of anything beside it, whatever a dead
    /// process left there (``SQLiteLeftovers``).
    ///
    /// - Parameter busyTimeout: How long to wait for a writer's lock, in seconds.
    /// - Throws: ``MoltError/Code/needsRecovery`` when a journal or a log left by a dead writer must be recovered
    ///   first; other ``MoltError``s from the error map.
    package static func openForReading(path: String, busyTimeout: Double) throws -> SQLiteDatabase {
        var settings = Settings()
        settings.busyTimeout = busyTimeout
        let leftovers = SQLiteLeftovers(path: path)
        switch try leftovers.readingPlan() {
        case .readOnly:
            settings.readOnly = true
            // A file of another process (or of none): its `-shm` is read, never written. A store this process
            // has open writes its own `-shm` anyway.
            settings.readOnlySharedMemory = !SQLiteOpenFiles.isOpen(path) && leftovers.hasSharedMemory
        case .immutable:
            settings.readOnly = true
            settings.immutable = true
        case .writableQueryOnly:
            settings.queryOnly = true
            do {
                return try open(path: path, settings: settings)
            } catch let error as MoltError where error.code == .ioError || error.code == .readOnly {
                settings.queryOnly = false
                settings.readOnly = true  // a file or folder this process may not write
            }
        }
        return try open(path: path, settings: settings)
    }

    /// An empty database in memory.
    package static func inMemory() throws -> SQLiteDatabase {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in SQLiteFunctions.register(in: db) }
        return SQLiteDatabase(
            queue: try DatabaseQueue(configuration: configuration), path: ":memory:", settings: Settings())
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
                do {
                    try db.inTransaction(.immediate) {
                        try body(SQLiteConnection(db, context: .file(path))) ? .commit : .rollback
                    }
                } catch let error as DatabaseError {
                    // Mapped here, with the connection, so that the system's errno (ENOSPC, EFBIG) is read.
                    throw SQLiteErrors.map(error, .file(path), connection: db.sqliteConnection)
                }
            }
        }
    }

    /// Gives a store created before Molt numbered objects with AUTOINCREMENT the guarantee that no identifier
    /// is handed out again (`SQLiteConnection.upgradeLegacyIdentifiers()`): one read of the schema table when
    /// there is nothing to do, one short write transaction the first time.
    package func upgradeLegacyIdentifiers() throws {
        let needed = try mapping(.file(path)) { try queue.read { try SQLiteConnection.hasLegacyIdentifierTables($0) } }
        guard needed else { return }
        try exclusive { db in
            try db.keepIdentifiersIncreasing()
            return true
        }
    }

    package func compact() throws {
        try mapping(.file(path)) { try queue.vacuum() }
    }

    package func close() throws {
        try closeObservationReader()
        try queue.close()
        openFile?.release()
    }

    /// `PRAGMA data_version` on the store's one connection: it moves when another connection commits to the file,
    /// never for this connection's own commits. Nil in memory, where no other connection can write.
    package func externalChangeCounter() throws -> Int64? {
        guard path != ":memory:" else { return nil }
        return try mapping(.objects) { try queue.read { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") } }
    }

    // MARK: - SQLite only

    /// The journal mode the file is in: `wal`, `delete`, `truncate`, `persist`, `memory` or `off`.
    package func journalMode() throws -> String {
        try mapping(.file(path)) {
            try queue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "delete" }
        }
    }

    /// Switches the file to write-ahead logging (a file already in WAL mode is not written to).
    package func switchToWAL() throws {
        try mapping(.file(path)) {
            try queue.writeWithoutTransaction { db in
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                    throw MoltError(
                        .ioError,
                        "SQLite could not switch the store at \(path) to write-ahead logging; open it with `journalMode = .rollback`."
                    )
                }
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
        }
    }

    /// Lets SQLite recover what a dead writer left (a first read rolls back a hot journal or rebuilds a log's
    /// index), then copies a log's committed changes into the file and empties it.
    package func recoverLeftovers() throws {
        try mapping(.file(path)) {
            try queue.writeWithoutTransaction { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" {
                    try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                }
            }
        }
    }

    /// The upgrade of a store created before AUTOINCREMENT, then the journal `journal` asks for.
    package func finishOpening(journal: SQLJournal, isNew: Bool) throws {
        try upgradeLegacyIdentifiers()
        switch journal {
        case .wal: try switchToWAL()
        case .rollback: return
        case .preserve:
            // A store just created takes WAL; an existing one keeps its mode.
            if try isNew || journalMode() == "wal" { try switchToWAL() }
        }
    }

    /// SQLite's `integrity_check` of every page and index; a file too damaged to finish it is one problem.
    package func integrityProblems() throws -> [String] {
        do {
            return try quickCheck(full: true)
        } catch let error as MoltError where error.code == .corruptStore {
            return ["SQLite's integrity_check stopped on a page it cannot read (database disk image is malformed)"]
        }
    }

    /// Copies the database to a new file with SQLite's online backup: a consistent copy even while another
    /// connection writes, in the source's journal mode. The copy is one file: its log, if any, is checkpointed
    /// into it before it is closed.
    package func backup(to destination: String) throws {
        try mapping(.file(destination)) {
            let target = try DatabaseQueue(path: destination)
            defer { try? target.close() }
            try queue.backup(to: target)
        }
    }

    /// SQLite's `PRAGMA quick_check` (or `integrity_check` when `full`), of the whole file or of some tables: the
    /// problems it finds, none when the file is sound.
    package func quickCheck(full: Bool = false, tables: [String]? = nil) throws -> [String] {
        try mapping(.file(path)) {
            try queue.read { db in try Self.check(db, full: full, tables: tables) }
        }
    }

    static func check(_ db: Database, full: Bool, tables: [String]?) throws -> [String] {
        let pragma = full ? "integrity_check" : "quick_check"
        var problems: [String] = []
        for table in tables.map({ $0.map(Optional.some) }) ?? [nil] {
            let sql = table.map { "PRAGMA \(pragma)(\(SQLiteDialect.shared.quote($0)))" } ?? "PRAGMA \(pragma)"
            let lines: [String]
            do {
                lines = try String.fetchAll(db, sql: sql)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
                problems.append(
                    "the check stopped on a page SQLite cannot read (\(error.message ?? "database disk image is malformed"))"
                )
                continue
            }
            guard lines != ["ok"] else { continue }
            // A row may hold several lines, the first naming the database: one problem per line, for one-line messages.
            problems += lines.flatMap { $0.split(whereSeparator: \.isNewline).map(String.init) }
                .filter { !$0.hasPrefix("*** in database") }
        }
        return problems
    }
}
