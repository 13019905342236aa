import Dispatch
import Foundation
import Molt
import PostgresNIO

/// A store's namespace in a PostgreSQL database, through one session used by one transaction at a time.
///
/// Transactions: reads are `REPEATABLE READ READ ONLY` (one consistent state), writes `READ COMMITTED`, and the
/// exclusive transaction of a creation or migration first takes a transaction-scoped advisory lock on the
/// store's namespace (``PostgresStoreOptions/migrationWaitTimeout``): many servers opening one store at once
/// migrate it once, the others wait and then find it current. Its DDL then waits at most
/// ``PostgresStoreOptions/lockTimeout`` for the locks live traffic holds, and gives up (rolled back, nothing
/// written) rather than stall every query queued behind it; references are deferred until the commit check.
package final class PostgresStoreDatabase: SQLDatabase, @unchecked Sendable {
    let link: PostgresLink
    let namespace: String
    let options: PostgresStoreOptions
    package let location: String
    package var dialect: any SQLDialect { PostgresDialect.shared }
    /// One transaction at a time on the one session.
    private let lock = NSRecursiveLock()
    /// The queue the async overloads run on: never a thread of Swift's cooperative pool, never an event loop.
    private let queue: DispatchQueue
    private var closed = false

    init(link: PostgresLink, namespace: String, location: String, options: PostgresStoreOptions) {
        self.link = link
        self.namespace = namespace
        self.location = location
        self.options = options
        self.queue = DispatchQueue(label: "molt.postgres \(location)")
    }

    /// Connects to the database of `configuration` for the store in `namespace`.
    static func open(
        _ configuration: PostgresConnection.Configuration, namespace: String, location: String, options: PostgresStoreOptions
    ) throws -> PostgresStoreDatabase {
        let link = try PostgresLink.connect(configuration, namespace: namespace, context: .location(location))
        return PostgresStoreDatabase(link: link, namespace: namespace, location: location, options: options)
    }

    private func transaction<T>(_ begin: String, _ context: PostgresErrors.Context, _ body: (PostgresStoreConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else {
            throw MoltError(.ioError, "The store at \(location) is closed; open it again to use it.")
        }
        try link.begin(begin, context: context)
        let connection = PostgresStoreConnection(link: link, namespace: namespace)
        do {
            let result = try body(connection)
            try link.commit(context: context)
            return result
        } catch {
            rollback()
            throw error
        }
    }

    private func rollback() {
        do {
            try link.rollback()
        } catch {
            // A session whose rollback failed is unusable; the server rolls back when it goes away.
            link.close()
        }
    }

    package func inspect<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", .location(location), body)
    }

    package func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", .objects, body)
    }

    package func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try transaction("BEGIN", .objects, body)
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await onQueue { try self.read(body) }
    }

    package func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await onQueue { try self.write(body) }
    }

    private func onQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    package func exclusive(_ body: (any SQLConnection) throws -> Bool) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw MoltError(.ioError, "The store at \(location) is closed; open it again to use it.") }
        let context = PostgresErrors.Context.location(location)
        let connection = PostgresStoreConnection(link: link, namespace: namespace)
        do {
            try link.begin(context: context)
            try setUpMigration(context)
            link.defersReferences = true
            defer { link.defersReferences = false }
            if try body(connection) {
                try connection.checkForwardReferences()
                if link.insertedRows { try PostgresIdentities.synchronize(connection) }
                // Deferred references are checked by the commit.
                try link.commit(context: context)
            } else {
                rollback()
            }
        } catch {
            rollback()
            throw error
        }
    }

    /// Takes `pg_advisory_xact_lock` on the namespace, waiting at most the migration wait, and sets the lock
    /// timeout of the DDL to come, in one statement (the select list is evaluated in order); creates the namespace
    /// if it is new. No PL/pgSQL: loading it costs a session ~1.5 ms, more than the statement itself.
    private func setUpMigration(_ context: PostgresErrors.Context) throws {
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
        if !exists { try link.run("CREATE SCHEMA IF NOT EXISTS \(dialect.quote(namespace))", [], kind: .create, context: context) }
    }

    /// The first key of Molt's advisory locks: "MOLT" as an integer, the second being the namespace's hash.
    static let lockClass: Int32 = 0x4D4F_4C54

    static func milliseconds(_ seconds: Double) -> String { "'\(max(1, Int((seconds * 1000).rounded())))ms'" }

    /// Nothing to finish: a server keeps its own journal.
    package func finishOpening(journal: SQLJournal, isNew: Bool) throws {}

    package func backup(to destination: String) throws {
        throw MoltError(
            .ioError,
            "Only a store in an SQLite file can be backed up with `backup(to:)`; back a PostgreSQL store up with the server's own tools (pg_dump --schema of its namespace).")
    }

    /// The server checks its own storage.
    package func integrityProblems() throws -> [String] { [] }

    package func compact() throws {
        lock.lock()
        defer { lock.unlock() }
        let tables = try transaction("BEGIN", .objects) { try $0.tableNames() }
        for table in tables { try link.run("VACUUM \(dialect.quote(table))", [], kind: .read) }
    }

    package func close() throws {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        closed = true
        link.close()
    }

    deinit { if !closed { link.close() } }
}
