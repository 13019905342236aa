/// A store's database as an engine opens it: transactions for reads, writes and the one exclusive transaction
/// in which a store is created or migrated.
///
/// ``Store`` holds one and never speaks to the engine otherwise. SQLite's is ``SQLiteDatabase``; PostgreSQL's
/// lives in `MoltPostgres`.
package protocol SQLDatabase: AnyObject, Sendable {
    /// The engine's SQL.
    var dialect: any SQLDialect { get }
    /// Where the store is (a file path, a database URL without its password), for messages.
    var location: String { get }

    /// Runs `body` in a read-only transaction, for the first look at a store that may not be one (or be
    /// damaged, or newer): nothing is written, and errors name the store's location.
    func inspect<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Runs `body` in a read-only transaction that sees one consistent state.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Runs `body` in a write transaction, committed when it returns, rolled back when it throws.
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// ``read(_:)`` off the caller's thread, without blocking a thread of Swift's cooperative pool.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// ``read(_:)`` of a body that sends exactly one statement (a lookup by `_id`), which an engine may run
    /// without a transaction of its own when one statement alone sees one state.
    func readOneStatement<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// ``write(_:)`` off the caller's thread, without blocking a thread of Swift's cooperative pool.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// ``read(_:)`` for an observation: on a connection of its own where the engine lets it read beside the
    /// writer (SQLite in WAL mode), so that observed reads neither wait for the store's writes nor make them
    /// wait; ``read(_:)`` where it cannot. Returns what `body` returned, and a token of the state the read saw
    /// where the engine gives one: two reads with the same token saw the same commits (SQLite's reader in WAL
    /// mode: its `PRAGMA data_version`), nil elsewhere.
    func observationRead<T>(_ body: (any SQLConnection) throws -> T) throws -> (value: T, state: Int64?)
    /// Whether observed reads run one at a time whatever their threads (SQLite: they share one connection), so
    /// that observations had better take turns on one queue than block one another; false for an engine that
    /// reads them concurrently (PostgreSQL's pool).
    var observedReadsTakeTurns: Bool { get }

    /// Runs `body` in the exclusive transaction of a creation or a migration: other openers (threads,
    /// processes, servers) wait for it, and reference checks are deferred until ``SQLConnection/brokenLinks(around:)``
    /// is asked. Committed when `body` returns true, rolled back when it returns false or throws.
    func exclusive(_ body: (any SQLConnection) throws -> Bool) throws

    /// Reclaims the space freed by migrations and deletions.
    func compact() throws

    /// Runs `body` with the database file at `path` attached to the connection under the schema name `name`, for
    /// statements that read it while writing the store: `body` runs ``exclusive(_:)`` (SQLite refuses to attach
    /// inside a transaction). Detached afterwards, so that nothing done later (the journal mode set by
    /// ``finishOpening(journal:isNew:)``) reaches the attached file.
    ///
    /// - Throws: ``MoltError/Code/invalidPlan`` for an engine that cannot read a file beside its store (a server);
    ///   what `body` throws.
    func attaching(_ path: String, as name: String, _ body: () throws -> Void) throws

    // MARK: - Engine capabilities

    /// What an opening does once the store is at its schema: SQLite upgrades a store created before Molt
    /// numbered objects with AUTOINCREMENT and sets the journal `journal` asks for; a server has nothing to do.
    func finishOpening(journal: SQLJournal, isNew: Bool) throws

    /// Copies the store to a new file at `destination`, a consistent copy of the last committed state.
    ///
    /// - Throws: ``MoltError/Code/ioError`` for an engine whose stores are not files (PostgreSQL), saying which
    ///   tools to use instead.
    func backup(to destination: String) throws

    /// The problems the engine's full check of its storage finds (SQLite's `integrity_check` of every page and
    /// index); none for an engine that checks its own storage (a server).
    func integrityProblems() throws -> [String]

    /// Closes the database; using it afterwards throws.
    func close() throws

    /// A number that changes when another connection (another opening of the store, another process) commits,
    /// and only then, read on the store's own connection (SQLite's `PRAGMA data_version`); nil for an engine or
    /// a database no other connection can write (SQLite in memory), or that tells of commits otherwise.
    func externalChangeCounter() throws -> Int64?

    /// Whether the commits made through this database are announced to the other connections that listen
    /// (PostgreSQL's `NOTIFY`, sent by ``SQLConnection/announceCommit(of:)`` in the transaction, so delivered
    /// only if it commits): the store then records the tables every write transaction writes.
    var announcesCommits: Bool { get }

    /// Starts listening to the commits other connections announce (PostgreSQL's `LISTEN`, on a connection of
    /// its own): `changed` gets the tables each one wrote (nil: any table, a migration). The database's own
    /// commits are not heard. Returns what stops listening, or nil for an engine that announces nothing.
    func listenForCommits(_ changed: @escaping @Sendable (Set<String>?) -> Void) throws -> (@Sendable () -> Void)?
}

extension SQLDatabase {
    package func observationRead<T>(_ body: (any SQLConnection) throws -> T) throws -> (value: T, state: Int64?) {
        (try read(body), nil)
    }

    package func externalChangeCounter() throws -> Int64? { nil }

    package func attaching(_ path: String, as name: String, _ body: () throws -> Void) throws {
        throw MoltError(
            .invalidPlan, "The store at \(location) cannot read the file \(path) in its transaction: only SQLite can.")
    }

    package var announcesCommits: Bool { false }

    package var observedReadsTakeTurns: Bool { false }

    package func listenForCommits(
        _ changed: @escaping @Sendable (Set<String>?) -> Void
    ) throws -> (@Sendable () -> Void)? {
        nil
    }

    package func readOneStatement<T: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws -> T {
        try await read(body)
    }
}
