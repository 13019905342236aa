import Dispatch
import Foundation
import Molt
import NIOCore
import NIOPosix
import PostgresNIO

/// A store's namespace in a PostgreSQL database, through a pool of sessions (``PostgresStoreOptions/poolSize``).
///
/// Transactions: reads are `REPEATABLE READ READ ONLY` (one consistent state) and run concurrently, each on a
/// session of its own; writes are `READ COMMITTED`, one at a time in this process (a write that reads and then
/// writes sees no other write of the store's in between, as on SQLite), each holding one session for its whole
/// transaction. The exclusive transaction of a creation or migration first takes a transaction-scoped advisory
/// lock on the store's namespace (``PostgresStoreOptions/migrationWaitTimeout``): many servers opening one store
/// at once migrate it once, the others wait and then find it current. Its DDL then waits at most
/// ``PostgresStoreOptions/lockTimeout`` for the locks live traffic holds, and gives up (rolled back, nothing
/// written) rather than stall every query queued behind it; references are deferred until the commit check.
///
/// The async overloads never wait on the caller's thread: the task suspends until a session (and, for a write,
/// the writer's turn) is free, then the body runs on one of the store's own threads (a `NIOThreadPool` of
/// ``PostgresStoreOptions/poolSize`` threads, never an event loop nor Swift's cooperative pool).
package final class PostgresStoreDatabase: SQLDatabase, @unchecked Sendable {
    let namespace: String
    let options: PostgresStoreOptions
    package let location: String
    package var dialect: any SQLDialect { PostgresDialect.shared }
    /// The store's sessions.
    private let sessions: PostgresPool<PostgresLink>
    /// The writer's turn: one write (or creation, migration, compaction) at a time.
    private let writer: PostgresPool<Void>
    /// The threads the async overloads run their bodies on.
    private let threads: NIOThreadPool
    private let state = NSLock()
    private var closed = false
    /// Opens a session of the store's own (the pool's, and the listener's).
    private let connect: () throws -> PostgresLink
    /// Who this database is in the notices of its commits (``PostgresCommitNotices``).
    let sender = UUID().uuidString

    init(
        namespace: String, location: String, options: PostgresStoreOptions, connect: @escaping () throws -> PostgresLink
    ) {
        self.namespace = namespace
        self.location = location
        self.options = options
        self.connect = connect
        let closedError: @Sendable () -> MoltError = {
            MoltError(.ioError, "The store at \(location) is closed; open it again to use it.")
        }
        sessions = PostgresPool(size: options.poolSize, closedError: closedError, make: connect)
        writer = PostgresPool(size: 1, closedError: closedError) { () }
        threads = NIOThreadPool(numberOfThreads: max(1, options.poolSize))
        threads.start()
    }

    /// Connects to the database of `configuration` for the store in `namespace`: its first session, which tells
    /// at once whether the server can be reached; the others are opened as concurrent work needs them.
    static func open(
        _ configuration: PostgresConnection.Configuration, namespace: String, location: String,
        options: PostgresStoreOptions
    ) throws -> PostgresStoreDatabase {
        guard options.poolSize >= 1 else {
            throw MoltError(
                .invalidValue,
                "PostgresStoreOptions.poolSize is \(options.poolSize); a store needs at least one session. Set it to 1 or more (default 8), e.g. `PostgresStoreOptions().pooling(16)`."
            )
        }
        let connect = { try PostgresLink.connect(configuration, namespace: namespace, context: .location(location)) }
        let database = PostgresStoreDatabase(
            namespace: namespace, location: location, options: options, connect: connect)
        do {
            try database.sessions.giveBack(database.sessions.borrow())
        } catch {
            try? database.close()
            throw error
        }
        return database
    }

    // MARK: - Sessions

    /// Runs `body` with a session of the pool, waiting on the calling thread for one.
    private func withSession<T>(_ body: (PostgresLink) throws -> T) throws -> T {
        let link = try sessions.borrow()
        defer { giveBack(link) }
        return try body(link)
    }

    /// Runs `body` with a session of the pool on one of the store's threads; the task suspends meanwhile.
    private func onThreads<T: Sendable>(
        writing: Bool, _ body: @escaping @Sendable (PostgresLink) throws -> T
    ) async throws -> T {
        if writing { try await writer.borrow() }
        defer { if writing { writer.giveBack(()) } }
        let link = try await sessions.borrow()
        defer { giveBack(link) }
        return try await threads.runIfActive { try body(link) }
    }

    /// Returns a session to the pool, or closes it when it went away or the store was closed.
    private func giveBack(_ link: PostgresLink) {
        if link.isClosed {
            sessions.drop()
            return
        }
        sessions.giveBack(link)
        if isClosed { for link in sessions.leftovers() { link.close() } }
    }

    private var isClosed: Bool {
        state.lock()
        defer { state.unlock() }
        return closed
    }

    // MARK: - Transactions

    /// Runs `body` in a transaction on `link`. A read-only transaction's `BEGIN` and `COMMIT` are sent without
    /// waiting for them (``PostgresLink/sendWithoutWaiting(_:context:)``): the body's first statement waits for
    /// the `BEGIN` on the connection, and the next transaction on the session for the `COMMIT`.
    private func transaction<T>(
        on link: PostgresLink, readOnly: Bool, _ context: PostgresErrors.Context,
        _ body: (PostgresStoreConnection) throws -> T
    ) throws -> T {
        if readOnly {
            try link.beginReadOnly(Self.readOnlyBegin, context: context)
        } else {
            try link.begin(context: context)
        }
        let connection = PostgresStoreConnection(link: link, namespace: namespace, sender: readOnly ? nil : sender)
        do {
            let result = try body(connection)
            if readOnly { try link.commitReadOnly(context: context) } else { try link.commit(context: context) }
            return result
        } catch {
            Self.rollback(link)
            throw error
        }
    }

    private static func rollback(_ link: PostgresLink) {
        link.dropQueued()
        do {
            try link.rollback()
        } catch {
            // A session whose rollback failed is unusable; the server rolls back when it goes away.
            link.close()
        }
    }

    private static let readOnlyBegin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    package func inspect<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withSession { try transaction(on: $0, readOnly: true, .location(location), body) }
    }

    package func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withSession { try transaction(on: $0, readOnly: true, .objects, body) }
    }

    package func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try writer.borrow()
        defer { writer.giveBack(()) }
        return try withSession { try transaction(on: $0, readOnly: false, .objects, body) }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await onThreads(writing: false) { try self.transaction(on: $0, readOnly: true, .objects, body) }
    }

    /// A single statement needs no transaction: PostgreSQL runs it on one snapshot, so the body's one `SELECT`
    /// is sent alone, without `BEGIN` and `COMMIT` (two more statements, which cost a read by `_id` 30 % of its
    /// throughput with 16 concurrent readers).
    package func readOneStatement<T: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws -> T {
        try await onThreads(writing: false) { link in
            try body(PostgresStoreConnection(link: link, namespace: self.namespace))
        }
    }

    package func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await onThreads(writing: true) { try self.transaction(on: $0, readOnly: false, .objects, body) }
    }

    package func exclusive(_ body: (any SQLConnection) throws -> Bool) throws {
        try writer.borrow()
        defer { writer.giveBack(()) }
        try withSession { link in
            let context = PostgresErrors.Context.location(location)
            let connection = PostgresStoreConnection(link: link, namespace: namespace)
            do {
                try link.begin(context: context)
                try setUpMigration(on: link, context)
                link.defersReferences = true
                defer { link.defersReferences = false }
                if try body(connection) {
                    try connection.checkForwardReferences()
                    // Observations of the store on other servers re-read, and find a migration.
                    try connection.notify(sender: sender, tables: nil)
                    if link.insertedRows { try PostgresIdentities.synchronize(connection) }
                    // Deferred references are checked by the commit.
                    try link.commit(context: context)
                } else {
                    Self.rollback(link)
                }
            } catch {
                Self.rollback(link)
                throw error
            }
        }
    }

    /// Takes `pg_advisory_xact_lock` on the namespace, waiting at most the migration wait, and sets the lock
    /// timeout of the DDL to come, in one statement (the select list is evaluated in order); creates the namespace
    /// if it is new. No PL/pgSQL: loading it costs a session ~1.5 ms, more than the statement itself.
    private func setUpMigration(on link: PostgresLink, _ context: PostgresErrors.Context) throws {
        let literal = PostgresDialect.shared.literal
        let name = literal(.string(namespace))
        let sql = """
            SELECT set_config('lock_timeout', \(Self.milliseconds(options.migrationWaitTimeout)), true),
                   pg_advisory_xact_lock(\(Self.lockClass), hashtext(\(name))),
                   set_config('lock_timeout', \(Self.milliseconds(options.lockTimeout)), true),
                   EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = \(name))
            """
        let exists: Bool
        do {
            let row = try link.run(sql, [], kind: .read, context: context).rows.first?.makeRandomAccess()
            exists = (try? row?[3].decode(Bool.self)) ?? false
        } catch let error as MoltError where error.code == .locked {
            throw MoltError(
                .locked,
                "The store at \(location) stayed locked by another migrating session for \(Int(options.migrationWaitTimeout)) s; nothing was written. Open it again later, or raise `PostgresStoreOptions.migrationWaitTimeout`.",
                cause: error)
        }
        if !exists {
            try link.run("CREATE SCHEMA IF NOT EXISTS \(dialect.quote(namespace))", [], kind: .create, context: context)
        }
    }

    /// The first key of Molt's advisory locks: "MOLT" as an integer, the second being the namespace's hash.
    static let lockClass: Int32 = 0x4D4F_4C54

    static func milliseconds(_ seconds: Double) -> String { "'\(max(1, Int((seconds * 1000).rounded())))ms'" }

    /// Nothing to finish: a server keeps its own journal.
    package func finishOpening(journal: SQLJournal, isNew: Bool) throws {}

    package func backup(to destination: String) throws {
        throw MoltError(
            .ioError,
            "Only a store in an SQLite file can be backed up with `backup(to:)`; back a PostgreSQL store up with the server's own tools (pg_dump --schema of its namespace)."
        )
    }

    /// The server checks its own storage.
    package func integrityProblems() throws -> [String] { [] }

    package func compact() throws {
        try writer.borrow()
        defer { writer.giveBack(()) }
        try withSession { link in
            let tables = try transaction(on: link, readOnly: false, .objects) { try $0.tableNames() }
            for table in tables { try link.run("VACUUM \(dialect.quote(table))", [], kind: .read) }
        }
    }

    /// Closes the idle sessions and the store's threads; a transaction still running closes its session when it
    /// ends.
    // MARK: - Commits of other servers

    package var announcesCommits: Bool { true }

    /// `LISTEN` on the store's channel, on a session of its own opened for it and closed by what this returns;
    /// notices are handled on the session's event loop (never on Swift's cooperative pool).
    package func listenForCommits(
        _ changed: @escaping @Sendable (Set<String>?) -> Void
    ) throws -> (@Sendable () -> Void)? {
        let link = try connect()
        let sender = self.sender
        let listener = link.connection.addListener(channel: PostgresCommitNotices.channel(namespace)) { _, notice in
            if let tables = PostgresCommitNotices.tables(in: notice.payload, ignoring: sender) { changed(tables) }
        }
        do {
            // postgres-nio sends the LISTEN before the next statement: once this returns, no commit is missed.
            _ = try link.run("SELECT 1", [], kind: .read)
        } catch {
            listener.stop()
            link.close()
            throw error
        }
        return {
            listener.stop()
            link.close()
        }
    }

    package func close() throws {
        state.lock()
        let wasClosed = closed
        closed = true
        state.unlock()
        guard !wasClosed else { return }
        writer.close()
        for link in sessions.close() { link.close() }
        threads.shutdownGracefully { _ in }
    }

    deinit {
        guard !closed else { return }
        for link in sessions.close() { link.close() }
        threads.shutdownGracefully { _ in }
    }
}
