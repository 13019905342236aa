import Foundation
import Logging
import Molt
import NIOCore
import NIOPosix
import PostgresNIO

/// One postgres-nio connection used synchronously: each statement is sent on the connection's event loop and
/// the calling thread waits for its result.
///
/// Only threads that are neither NIO event loops nor Swift's cooperative pool call it: the store's own threads
/// (``PostgresStoreDatabase``'s async reads and writes run on its `NIOThreadPool`), the thread `Store.open` runs
/// on, or the app's thread that called a synchronous API, as with SQLite. One link is one session of the store's
/// pool (``PostgresPool``), used by one transaction at a time.
final class PostgresLink: @unchecked Sendable {
    let connection: PostgresConnection
    let logger: Logger
    /// Called with the SQL of every statement, and whether it may change the database (its kind is not
    /// ``SQLStatementKind/read``), for dry runs.
    var observer: SQLStatementObserver?
    private var rewritten: [String: String] = [:]
    /// A custom stage's keyed updates, waiting to be sent as one statement (see ``PostgresUpdateQueue``).
    private var queue: PostgresUpdateQueue?
    /// The statements sent without waiting for their results (see ``sendWithoutWaiting(_:context:)`` and
    /// ``send(_:)-(PostgresInsertQueue)``), oldest first.
    private var unawaited: [Unawaited] = []
    /// An import's rows, waiting to be sent as one statement per table (see ``PostgresInsertQueue``), in the
    /// order their tables were first given.
    private var inserts: [PostgresInsertQueue] = []
    /// The `pg_temp` functions (``PostgresFunctions``) the current transaction created.
    private var functions: Set<PostgresFunctions.Function> = []
    /// The calls to them that this session's dialect rendered (``PostgresStoreConnection/dialect``).
    let functionUse = PostgresFunctionUse()
    /// How an import's rows are sent (``PostgresCopy``).
    private lazy var copy = PostgresCopy(eventLoop: connection.eventLoop)
    /// Whether the current transaction inserted rows into an application table (maybe with identifiers of their
    /// own, which the identity sequences must then pass: ``PostgresIdentities/synchronize(_:)``).
    private(set) var insertedRows = false
    /// Whether the transaction checks references at its commit (a migration's): they are deferred just before it
    /// first writes a row, and checked before an `ALTER` or `DROP` that follows writes (PostgreSQL refuses to alter
    /// a table with checks pending), then deferred again at the next write. A migration that writes no row (most
    /// inferred ones: DDL alone) sends none of it.
    var defersReferences = false
    /// Whether `SET CONSTRAINTS ALL DEFERRED` is in force in the current transaction.
    private var referencesDeferred = false
    /// Whether rows were written since references were deferred, so that checks may be pending.
    private var checksPending = false
    /// The largest identifier inserts of this transaction gave explicitly, by unquoted table, that the table's
    /// identity sequence may not have passed yet (see ``noteExplicitID(_:in:)``).
    private var explicitIDs: [String: Int64] = [:]
    /// How many statements that may change the catalog (of kind ``SQLStatementKind/create`` or
    /// ``SQLStatementKind/alter``) the session has sent: what was read from the catalog holds while it stays the
    /// same.
    private(set) var catalogChanges = 0

    private init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Connects and prepares the session: `search_path` to the store's namespace only, shortest exact
    /// doubles, UTC.
    static func connect(
        _ configuration: PostgresConnection.Configuration, namespace: String, context: PostgresErrors.Context
    ) throws -> PostgresLink {
        var logger = Logger(label: "molt.postgres")
        logger.logLevel = .critical
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1, logger: logger
            ).wait()
        } catch {
            throw PostgresErrors.map(error, context)
        }
        let link = PostgresLink(connection: connection, logger: logger)
        do {
            // One round trip: the session's settings, then the server's version. Version 12 made
            // `extra_float_digits = 1` the shortest exact text of a double, which Molt's conversions of doubles and
            // dates to text rely on; an older server would round them.
            let row = try link.run(
                """
                SELECT set_config('search_path', ?, false), set_config('extra_float_digits', '1', false),
                       set_config('TimeZone', 'UTC', false), current_setting('server_version_num')::bigint
                """, [.string(PostgresDialect.shared.quote(namespace))], kind: .read, context: context
            ).rows.first
            guard let row, case .int(let version) = PostgresValueCodec.stored(row.makeRandomAccess()[3]),
                version >= 120_000
            else {
                throw MoltError(
                    .unsupportedFormat,
                    "The PostgreSQL server is older than version 12, which Molt needs (older servers write some doubles and dates as rounded text). Upgrade the server; nothing was written."
                )
            }
        } catch {
            link.close()
            throw error
        }
        return link
    }

    /// The statement with `$n` placeholders, rewritten once per SQL text.
    func numbered(_ sql: String) -> String {
        if let done = rewritten[sql] { return done }
        let result = PostgresPlaceholders.rewrite(sql).sql
        if rewritten.count > 512 { rewritten.removeAll() }
        rewritten[sql] = result
        return result
    }

    /// Runs one statement of `kind` and returns its rows and the number of rows it changed; a dry run lists it
    /// with `lock` (by default, what ``PostgresLocks/note(for:)`` says of `kind`).
    @discardableResult
    func run(
        _ sql: String, _ arguments: [Value], kind: SQLStatementKind, lock: PostgresLocks.Note? = nil,
        context: PostgresErrors.Context = .objects
    ) throws -> (rows: [PostgresRow], count: Int) {
        try prepare(for: sql, kind: kind)
        observer?(PostgresLocks.annotate(sql, lock ?? PostgresLocks.note(for: kind)), kind != .read)
        return try send(sql, arguments, context: context)
    }

    /// Sends one statement as it is, after what ``prepare(for:kind:)`` or a transaction's bound did.
    @discardableResult
    private func send(
        _ sql: String, _ arguments: [Value], context: PostgresErrors.Context
    ) throws -> (rows: [PostgresRow], count: Int) {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments { try PostgresValueCodec.append(argument, to: &bindings) }
        if Self.traces { FileHandle.standardError.write(Data("molt.postgres: \(sql)\n".utf8)) }
        let query = PostgresQuery(unsafeSQL: numbered(sql), binds: bindings)
        let result: PostgresQueryResult
        do {
            result = try connection.query(query, logger: logger).wait()
        } catch {
            // A statement sent earlier without waiting failed first: its failure explains this one's.
            try settleUnawaited()
            throw PostgresErrors.map(error, context, sql: sql)
        }
        try settleUnawaited()
        return (result.rows, result.metadata.rows ?? 0)
    }

    /// Sends a statement of the session's own that returns nothing (a read-only transaction's `BEGIN` and
    /// `COMMIT`) without waiting for it: the connection runs its statements in order, so the next one waits for
    /// it, and its outcome is checked when the next statement's result is in (``settleUnawaited()``). A read by
    /// `_id` then wakes its thread once, for its `SELECT`, rather than three times.
    func sendWithoutWaiting(_ sql: String, context: PostgresErrors.Context) throws {
        observer?(sql, false)
        if Self.traces { FileHandle.standardError.write(Data("molt.postgres: \(sql)\n".utf8)) }
        let result = connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).map { _ in }
        unawaited.append(Unawaited(sql: sql, context: context, result: result))
    }

    /// Throws the first failure of the statements sent without waiting, which have completed by the time a later
    /// statement's result is in.
    private func settleUnawaited() throws {
        while !unawaited.isEmpty { try settleOldestUnawaited() }
    }

    /// Waits for the oldest statement sent without waiting, and throws its failure.
    private func settleOldestUnawaited() throws {
        let sent = unawaited.removeFirst()
        do {
            _ = try sent.result.wait()
        } catch {
            let mapped = PostgresErrors.map(error, sent.context, sql: sent.sql)
            unawaited.forEach { _ = try? $0.result.wait() }
            unawaited = []
            throw sent.importedInto.map { Self.importRefusal(mapped, table: $0) } ?? mapped
        }
    }

    /// `DO` with `body` (PL/pgSQL statements): several statements in one round trip (postgres-nio sends one
    /// statement per query), quoted with a tag the body does not contain.
    static func anonymousBlock(declaring variables: String = "", _ body: String) -> String {
        var tag = "$molt_block$"
        while body.contains(tag) || variables.contains(tag) { tag.insert("x", at: tag.index(before: tag.endIndex)) }
        return "DO \(tag)\n\(variables.isEmpty ? "" : "DECLARE \(variables)\n")BEGIN\n\(body)\nEND \(tag)"
    }

    /// Before `sql` (of `kind`) is sent: the queued updates go first, and the `pg_temp` functions the session's
    /// dialect rendered calls to since the last statement are created if this transaction has not created them yet
    /// (0.2–2 ms each). A transaction's end forgets them (a
    /// rollback drops them; a migration that needs them creates them again, which costs less than creating them
    /// in every migration that does not).
    private func prepare(for sql: String, kind: SQLStatementKind) throws {
        try sendInserts()
        try sendQueue(before: sql)
        try advanceIdentities(before: kind)
        if !insertedRows, case .insert = kind { insertedRows = true }
        if kind.changesCatalog { catalogChanges += 1 }
        try settleReferences(before: sql, kind: kind)
        let missing = PostgresFunctions.creationOrder(functionUse.take()).filter { !functions.contains($0) }
        guard !missing.isEmpty else { return }
        try send(Self.anonymousBlock(missing.map { $0.definition + ";" }.joined(separator: "\n")), for: sql)
        functions.formUnion(missing)
    }

    // MARK: - Transactions

    /// Opens a transaction with `statement` (`BEGIN …`): what the last one left is forgotten.
    func begin(_ statement: String = "BEGIN", context: PostgresErrors.Context = .objects) throws {
        queue = nil
        resetTransactionState()
        try send(statement, [], context: context)
    }

    /// Commits the transaction, after the queued updates and the identity sequences explicit identifiers left
    /// behind.
    func commit(context: PostgresErrors.Context = .objects) throws {
        try sendInserts()
        try sendQueue(before: "COMMIT")
        for table in explicitIDs.keys.sorted() {
            try PostgresIdentities.advance(PostgresDialect.shared.quote(table), past: explicitIDs[table]!, link: self)
        }
        resetTransactionState()
        try send("COMMIT", [], context: context)
    }

    /// Opens a read-only transaction with `statement` without waiting for it (``sendWithoutWaiting(_:context:)``):
    /// what the last transaction left is forgotten, as ``begin(_:context:)`` does.
    func beginReadOnly(_ statement: String, context: PostgresErrors.Context) throws {
        queue = nil
        resetTransactionState()
        try sendWithoutWaiting(statement, context: context)
    }

    /// Ends a read-only transaction without waiting for its `COMMIT`: it wrote nothing, so nothing is queued.
    func commitReadOnly(context: PostgresErrors.Context) throws {
        resetTransactionState()
        try sendWithoutWaiting("COMMIT", context: context)
    }

    /// Rolls the transaction back, dropping the queued updates.
    func rollback() throws {
        queue = nil
        unawaited.forEach { _ = try? $0.result.wait() }
        unawaited = []
        resetTransactionState()
        try send("ROLLBACK", [], context: .objects)
    }

    private func resetTransactionState() {
        explicitIDs = [:]
        functions = []
        insertedRows = false
        referencesDeferred = false
        checksPending = false
    }

    /// Notes that an insert gave `table` (unquoted) the identifier `id` itself (an import keeping identifiers).
    /// The identity sequence is moved past the largest such identifier once, before the next statement that may
    /// let the engine number a row of the table and before the commit, rather than after every such insert (a
    /// round trip each).
    func noteExplicitID(_ id: Int64, in table: String) {
        explicitIDs[table] = max(explicitIDs[table] ?? id, id)
    }

    /// Moves the identity sequence ``noteExplicitID(_:in:)`` left behind for a table before a statement of `kind`
    /// that lets the engine number its rows: an insert into it that does not give the identifier itself.
    private func advanceIdentities(before kind: SQLStatementKind) throws {
        guard !explicitIDs.isEmpty, case .insert(let table, explicitID: false) = kind,
            let id = explicitIDs.removeValue(forKey: table)
        else { return }
        try PostgresIdentities.advance(PostgresDialect.shared.quote(table), past: id, link: self)
    }

    /// Defers references before a statement that writes rows, and checks the pending ones before one that alters
    /// or drops a table (see ``defersReferences``).
    private func settleReferences(before sql: String, kind: SQLStatementKind) throws {
        guard defersReferences else { return }
        if !kind.writesRows {
            guard checksPending, kind == .alter else { return }
            try send("SET CONSTRAINTS ALL IMMEDIATE", for: sql)
            referencesDeferred = false
            checksPending = false
        } else {
            try willWriteRows(for: sql)
        }
    }

    /// Defers references before the transaction's first write (see ``defersReferences``): cheap enough to call
    /// for every update a stage queues.
    private func willWriteRows(for sql: String) throws {
        guard defersReferences else { return }
        if !referencesDeferred {
            try send("SET CONSTRAINTS ALL DEFERRED", for: sql)
            referencesDeferred = true
        }
        checksPending = true
    }

    /// Sends a statement of the session's own, not one of the run's, for `sql`: a failure is reported as `sql`'s.
    private func send(_ statement: String, for sql: String) throws {
        if Self.traces { FileHandle.standardError.write(Data("molt.postgres: \(statement)\n".utf8)) }
        do {
            _ = try connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).wait()
        } catch {
            throw PostgresErrors.map(error, .objects, sql: sql)
        }
    }

    /// `MOLT_POSTGRES_TRACE=1` prints every statement to the standard error, for debugging.
    static let traces = ProcessInfo.processInfo.environment["MOLT_POSTGRES_TRACE"] == "1"

    /// Queues a keyed update (`UPDATE "T" SET … WHERE "_id" = ?` of `shape`, run by a statement's `step()`,
    /// whose caller reads no result), to be sent with the others of its batch before the next statement; runs
    /// it at once when it cannot be queued.
    func queueUpdate(_ sql: String, _ shape: PostgresUpdateQueue.Shape, _ arguments: [Value]) throws {
        try sendInserts()
        guard arguments.count == shape.columns.count + 1, case .int(let id) = arguments.last else {
            try run(sql, arguments, kind: .update)
            return
        }
        if let queue, !queue.accepts(shape, id: id) { try sendQueue(before: sql) }
        try willWriteRows(for: sql)
        if queue == nil {
            guard let types = try columnTypes(shape) else {
                try run(sql, arguments, kind: .update)
                return
            }
            queue = PostgresUpdateQueue(shape: shape, types: types)
        }
        observer?(PostgresLocks.annotate(sql, .rows), true)
        try queue!.append(arguments, id: id)
    }

    /// Sends the queued updates as one statement before `sql` runs (``rollback()`` drops them instead).
    private func sendQueue(before sql: String) throws {
        guard let pending = queue else { return }
        queue = nil
        guard !pending.isEmpty else { return }
        let statement = pending.sql
        do {
            try sendArrays(statement, pending.arguments, traced: "\(pending.count) updates")
        } catch {
            throw PostgresErrors.map(error, .objects, sql: statement)
        }
    }

    /// The SQL type of each column `shape` assigns, or nil when one is not found.
    private func columnTypes(_ shape: PostgresUpdateQueue.Shape) throws -> [String]? {
        // Not one of the run's statements: a dry run does not list it.
        let observer = self.observer
        self.observer = nil
        defer { self.observer = observer }
        let rows = try run(
            """
            SELECT quote_ident(a.attname::text), format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
            WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped
            """, [.string(shape.table)], kind: .read
        ).rows
        var types: [String: String] = [:]
        for row in rows {
            let (name, type) = try row.decode((String, String).self)
            // quote_ident leaves lower-case names bare; Molt's SQL always quotes them.
            types[name.hasPrefix("\"") ? name : "\"\(name)\""] = type
        }
        let result = shape.columns.compactMap { types[$0] }
        return result.count == shape.columns.count ? result : nil
    }

    /// Queues a row of an import, sent with the others of its table before the session's next statement (see
    /// ``PostgresInsertQueue``); `values` in the order of `columns` (unquoted).
    func queueInsert(into table: String, columns: [String], _ values: [Value]) throws {
        // Queued updates first, in the order they were made (no statement of text here: nothing is rolled back).
        try sendQueue(before: "")
        if let index = inserts.firstIndex(where: { $0.table == table && $0.columns == columns }),
            !inserts[index].accepts(table: table, columns: columns)
        {
            try send(inserts.remove(at: index))
        }
        let index: Int
        if let existing = inserts.firstIndex(where: { $0.table == table && $0.columns == columns }) {
            index = existing
        } else {
            inserts.append(PostgresInsertQueue(table: table, columns: columns))
            index = inserts.count - 1
        }
        try inserts[index].append(values)
    }

    /// Sends every queued insert, table by table.
    private func sendInserts() throws {
        while !inserts.isEmpty { try send(inserts.removeFirst()) }
    }

    /// Drops the queued inserts and updates: the transaction is about to be rolled back.
    func dropQueued() {
        inserts = []
        queue = nil
    }

    /// Sends a queue's rows with `COPY … FROM STDIN` without waiting for the server (the statements of a session
    /// run in order; a failure is thrown by the next statement that waits, as ``importRefusal(_:table:)``): the
    /// importer reads the next rows while the server inserts these. At most ``maximumInsertsInFlight`` are in
    /// flight, so memory stays bounded.
    private func send(_ pending: PostgresInsertQueue) throws {
        guard pending.count > 0 else { return }
        let statement = "COPY \(PostgresDialect.shared.quote(pending.table)) FROM STDIN (\(pending.count) rows)"
        if Self.traces { FileHandle.standardError.write(Data("molt.postgres: \(statement)\n".utf8)) }
        let result = copy.send(pending, on: connection, logger: logger)
        unawaited.append(
            Unawaited(
                sql: statement, context: .objects, result: result,
                importedInto: PostgresDialect.shared.quote(pending.table)))
        insertedRows = true
        if let id = pending.largestID { noteExplicitID(id, in: pending.table) }
        while unawaited.count > Self.maximumInsertsInFlight { try settleOldestUnawaited() }
    }

    /// The most queued inserts sent and not yet done: two keep the server busy while the next one is read.
    static let maximumInsertsInFlight = 2

    /// Sends a queue's one statement with its column arrays bound as text (the statement casts them); `traced`
    /// says what it carries in `MOLT_POSTGRES_TRACE` lines. Errors are postgres-nio's, for the caller to map.
    private func sendArrays(_ statement: String, _ arrays: [String], traced: String) throws {
        var bindings = PostgresBindings(capacity: arrays.count)
        for array in arrays { try bindings.append(PostgresValueCodec.Bind.untyped(array)) }
        if Self.traces {
            FileHandle.standardError.write(Data("molt.postgres: \(statement.prefix(300))… (\(traced))\n".utf8))
        }
        _ = try connection.query(PostgresQuery(unsafeSQL: statement, binds: bindings), logger: logger).wait()
    }

    /// A queued row the server refused: which one is not known, so the message names the table and the key.
    private static func importRefusal(_ error: any Error, table: String) -> any Error {
        guard let error = error as? MoltError, error.code == .constraintViolation else { return error }
        return MoltError(
            .invalidValue,
            "An object or link imported into table \(table) is given twice, or collides with a unique value of another object (\(error.message)); each object needs its own `_id` and unique values, and each link is listed once.",
            sql: error.sql, cause: error)
    }

    /// The SQL types of `shape`'s columns, read once per table while the catalog stays the same.
    func close() {
        dropQueued()
        unawaited = []
        try? connection.close().wait()
    }

    var isClosed: Bool { connection.isClosed }
}

/// A statement sent without waiting for its result, settled by a later one (``PostgresLink``).
private struct Unawaited {
    var sql: String
    var context: PostgresErrors.Context
    var result: EventLoopFuture<Void>
    /// The table a queued import inserted into, whose failure names it (``PostgresInsertQueue``).
    var importedInto: String? = nil
}
