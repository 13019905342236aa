/// A connection to a store's database inside one transaction: the only way objects, stages, mappings and the
/// migrator reach the storage engine.
///
/// Everything above this seam is engine-neutral; everything below it speaks one engine (SQLite through GRDB in
/// this module; PostgreSQL in `MoltPostgres`). What crosses it says what is meant, so that no engine reads SQL
/// back to find out: tables change through ``change(_:)`` (an ``SQLSchemaChange``: columns with their links,
/// drops, renames), every statement comes with its ``SQLStatementKind`` (a read, an update, an insert with or
/// without explicit identifiers, Molt's own bookkeeping, DDL), and what an engine does differently is a
/// capability here (``pageProblems(in:)``, ``stampSchemaVersion(_:)``…) rather than a downcast. Row statements
/// use `?` placeholders and the engine's ``SQLDialect`` for what differs: types, literals, conversions.
///
/// Errors thrown are ``MoltError``s mapped by the engine's one error map, with the failing SQL attached.
package protocol SQLConnection: AnyObject {
    /// The engine's SQL.
    var dialect: any SQLDialect { get }

    /// Runs one statement that returns no rows; `kind` says what it does, so that the engine never reads the
    /// SQL to find out.
    ///
    /// - Returns: The number of rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ kind: SQLStatementKind, _ sql: String, _ arguments: [Value]) throws -> Int

    /// A prepared statement of `kind` kept for the connection's life, found by its SQL text: for statements run
    /// again and again (inserts, updates, lookups). Not for a query whose rows are read while the same SQL runs
    /// again.
    func cachedStatement(_ kind: SQLStatementKind, _ sql: String) throws -> any SQLStatement

    /// A prepared statement of `kind` of its own, for a query read row by row while other statements run.
    func makeStatement(_ kind: SQLStatementKind, _ sql: String) throws -> any SQLStatement

    /// Changes the store's tables as `change` means, in the engine's DDL.
    func change(_ change: SQLSchemaChange) throws

    /// Inserts a row of `table` (its name unquoted, as ``SQLStatementKind/insert(into:explicitID:)`` names it)
    /// whose `columns` (unquoted, every one the row needs) take `values`, maybe later:
    /// an engine may hold the rows of a table and send them together before the connection's next statement,
    /// throwing a refused row's error from there. Returns false when the engine inserts no row this way (SQLite,
    /// where a cached statement per row costs as little): the caller then inserts the row itself.
    ///
    /// ```swift
    /// if try !db.insertBatched(into: "Item", columns: ["_id", "title"], values: [.int(7), "Seven"]) {
    ///     let insert = #"INSERT INTO "Item" ("_id", "title") VALUES (?, ?)"#
    ///     try db.cachedStatement(.insert(into: "Item", explicitID: true), insert).execute([.int(7), "Seven"])
    /// }
    /// ```
    func insertBatched(into table: String, columns: [String], values: [Value]) throws -> Bool

    /// Calls `observer` with the SQL of every statement the connection runs, and whether it may change the
    /// database, until set to nil: dry runs list the statements that change it. The engine says which (SQLite's
    /// own flag of a prepared statement, PostgreSQL's ``SQLStatementKind``); no statement's text is read to tell.
    var statementObserver: SQLStatementObserver? { get set }

    // MARK: - Introspection

    /// The names of the tables of the store's namespace (Molt's own included, the engine's internal ones not).
    func tableNames() throws -> [String]

    /// Whether the store's namespace has a table of this name (as the engine compares names).
    func tableExists(_ table: String) throws -> Bool

    /// Defers the checks of references to the end of the current transaction, so that rows may point to rows
    /// inserted later in it (an import in file order).
    func deferReferenceChecks() throws

    /// The columns of a table, in order.
    func columnNames(in table: String) throws -> [String]

    /// The indexes of a table, as the engine reports them.
    func indexes(on table: String) throws -> [SQLIndexInfo]

    /// The names of every index of the store's namespace (index names are unique across tables).
    func indexNames() throws -> [String]

    // MARK: - Engine strategies

    /// Takes, before a migration counts or checks the rows of `table`, the lock its change will take, so that
    /// what was counted and checked is what the change finds: no other session writes there until the commit.
    /// PostgreSQL, where live traffic goes on during a migration, locks the table (`ACCESS EXCLUSIVE`); SQLite's
    /// migration transaction keeps every other writer out already.
    func lockForChange(_ table: String) throws

    /// Brings one table to its new shape: cheap `ALTER`s where the engine can, a rebuild otherwise; the
    /// indexes are then synchronised with ``syncIndexes(of:table:version:)``.
    ///
    /// Before it writes, the engine refuses a widening of ``SQLTableChange/exactDoubles`` that would round a
    /// stored integer.
    ///
    /// - Parameter progress: Called with the rows copied so far and the rows to copy, while a rebuild copies
    ///   them in chunks; what it throws (a cancellation) stops the work.
    func apply(
        _ change: SQLTableChange, progress: (_ copied: Int, _ total: Int) throws -> Void
    ) throws -> SQLTableChangeResult

    /// Whether applying `change` rewrites every row of the table (a rebuild), so that computing a column in it
    /// costs no extra pass.
    func rewritesRows(_ change: SQLTableChange) -> Bool

    /// The shape of every table that belongs to the application's schema (not the engine's nor Molt's own).
    func tableShapes() throws -> [String: SQLTableShape]

    /// The shapes a store of `schema` has when created fresh by this engine, for validation.
    func expectedShapes(of schema: Schema) throws -> [String: SQLTableShape]

    /// The links (foreign keys) that point to a missing row: in every table when `tables` is nil, otherwise in
    /// `tables` and in the tables that hold a reference to one of them (names compared as the engine compares
    /// them).
    func brokenLinks(around tables: Set<String>?) throws -> [SQLBrokenLink]

    /// Makes sure no table of the store hands an object's identifier out again, inside the caller's write
    /// transaction, before a migration or the first write: SQLite gives the tables of a store created before
    /// Molt numbered with AUTOINCREMENT that guarantee in place (a schema change, no row copied); PostgreSQL's
    /// identities never go back, so it has nothing to do.
    func keepIdentifiersIncreasing() throws

    /// The largest identifier `table` (unquoted) ever handed out, deleted objects included, when the engine
    /// records it (nil otherwise): what an export carries so that an import keeps every identifier unused.
    func identifierMark(of table: String) throws -> Int64?

    /// Makes `table` (unquoted) hand out identifiers past `mark` from now on (never lowers its mark).
    func raiseIdentifierMark(of table: String, to mark: Int64) throws

    // MARK: - Engine capabilities

    /// The problems the engine's own check of its storage finds in the pages of `tables` (every table when nil):
    /// SQLite's `quick_check`; a server checks its own storage, so PostgreSQL finds none.
    func pageProblems(in tables: [String]?) throws -> [String]

    /// The check ``pageProblems(in:)`` runs, for messages: "SQLite's quick_check".
    var pageCheckName: String { get }

    /// Records in the engine's own header that the database is a store of this application (SQLite's
    /// `application_id`, which `file` reads); engines without such a header do nothing.
    func stampApplicationID(_ id: Int32) throws

    /// Records in the engine's own header the version of the store's schema (SQLite's `user_version`); engines
    /// without such a header do nothing.
    func stampSchemaVersion(_ version: Int) throws

    /// Whether stores of this engine may have been created by an earlier Molt, whose own tables lack a column
    /// added since (SQLite files); every PostgreSQL store was created with them.
    var mayPredateCurrentFormat: Bool { get }

    /// Announces, inside a write transaction about to commit, the tables (unquoted) it wrote, to the other
    /// connections that listen (``SQLDatabase/announcesCommits``); engines that announce nothing do nothing.
    func announceCommit(of tables: Set<String>) throws

    /// Writes a bulk copy (``RowCopy``) from the source attached as ``RowCopy/sourceSchema`` into the entities of
    /// `layout`, proves it, and keeps it only when it is ``RowCopy/Outcome/copied(_:)``; `finishing` runs after the
    /// last insert, before the proof, with the relationships the copy gave for at least one object. nil for an
    /// engine without one (PostgreSQL: its callers copy object by object).
    func copyRows(
        _ copy: RowCopy, layout: StoreLayout, schema: Schema,
        finishing: ([(entity: String, relationship: String)]) throws -> Void
    ) throws -> RowCopy.Outcome?
}

extension SQLConnection {
    /// Runs one statement that returns no rows, without arguments.
    @discardableResult
    package func execute(_ kind: SQLStatementKind, _ sql: String) throws -> Int { try execute(kind, sql, []) }

    package func insertBatched(into table: String, columns: [String], values: [Value]) throws -> Bool { false }

    package func announceCommit(of tables: Set<String>) throws {}

    package func copyRows(
        _ copy: RowCopy, layout: StoreLayout, schema: Schema,
        finishing: ([(entity: String, relationship: String)]) throws -> Void
    ) throws -> RowCopy.Outcome? { nil }

    /// The first column of the first row of a query, as an integer (a count, a maximum), or nil.
    package func fetchInt(_ sql: String, _ arguments: [Value] = []) throws -> Int64? {
        let statement = try makeStatement(.read, sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int64(0)
    }

    /// The first column of every row of a query, as integers (identifiers).
    package func fetchInts(_ sql: String, _ arguments: [Value] = []) throws -> [Int64] {
        let statement = try makeStatement(.read, sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        var result: [Int64] = []
        while try statement.step() { result.append(statement.int64(0)) }
        return result
    }

    /// The rows of a query, each column decoded as the given type (nil: as stored).
    package func fetchRows(_ sql: String, _ arguments: [Value] = [], types: [AttributeType?]) throws -> [[Value]] {
        let statement = try makeStatement(.read, sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        var rows: [[Value]] = []
        while try statement.step() {
            rows.append(
                types.indices.map { column in
                    types[column].flatMap { statement.value(column, as: $0) } ?? statement.rawValue(column)
                })
        }
        return rows
    }
}

/// A prepared statement: bind arguments, step through rows, read columns through the engine's value codec.
///
/// Columns and parameters are numbered from 0.
package protocol SQLStatement {
    /// The statement's SQL.
    var sql: String { get }
    /// Resets the statement and binds `arguments` in order.
    func bind(_ arguments: [Value]) throws
    /// Binds one argument (0-based), without resetting.
    func bind(_ value: Value, at index: Int) throws
    /// Advances to the next row: true when there is one, false when the statement is done.
    func step() throws -> Bool
    /// Resets the statement so that it can run again; bindings are kept.
    func reset()
    /// Runs the statement to its end with `arguments` and returns the rows it changed.
    @discardableResult
    func execute(_ arguments: [Value]) throws -> Int
    /// Runs an `INSERT` with `arguments` and returns the identifier (`_id`) of the inserted row.
    func insert(_ arguments: [Value]) throws -> Int64
    /// Runs an `INSERT … ON CONFLICT … DO UPDATE` (written without `RETURNING`) with the values bound, and
    /// returns the identifier of the row written when the engine tells it without another statement: always on
    /// PostgreSQL (`RETURNING`), only for an inserted row on SQLite, where `RETURNING` doubles the cost of the
    /// statement. Nil: the statement updated a row, which the caller finds by its unique key.
    func insertOrUpdate() throws -> Int64?

    // MARK: Reading the current row (the codec)

    /// Whether the column holds null.
    func isNull(_ column: Int) -> Bool
    /// The column as an integer.
    func int64(_ column: Int) -> Int64
    /// The column as a double.
    func double(_ column: Int) -> Double
    /// The column as text, every byte kept.
    func text(_ column: Int) -> String
    /// The column as bytes.
    func data(_ column: Int) -> Data
    /// The column as a value of `type`, or nil when what is stored is not a value of that type (a store
    /// edited outside Molt): callers refuse it with ``SQLStoredValue/mismatch(table:column:objectID:found:expected:)``.
    func value(_ column: Int, as type: AttributeType) -> Value?
    /// The column as the engine stores it: `.int`, `.double`, `.string`, `.data` or `.null`.
    func rawValue(_ column: Int) -> Value
    /// A short description of what the column holds (`text 'abc'`, `null`), for messages.
    func describe(_ column: Int) -> String

    /// The reader of the statement's current row for typed reads, made once per query and shared by its rows.
    func rowReader() -> SQLRowReader
}

/// The base reader reads through the statement's codec, with no fast path (PostgreSQL's).
extension SQLStatement {
    package func rowReader() -> SQLRowReader { SQLRowReader(self) }
}

/// The current row of a query, read column by column by typed reads (``ModelRow``).
///
/// A class made once per query, so that the rows of a fetch share one reference and reading a column is one
/// call, with no copy of the statement (an existential, boxed) per row or per column. This base reads through
/// the statement's codec and has no fast path; an engine's subclass (SQLite's) reads its columns straight
/// from its own statement.
package class SQLRowReader {
    /// The statement whose current row is read.
    package let statement: any SQLStatement

    // Internal, not `package`: only this module makes readers, and a `package` designated init that an internal
    // subclass does not override makes Swift 6.3 warn of an infinite recursion in the subclass's synthesized one.
    init(_ statement: any SQLStatement) {
        self.statement = statement
    }

    /// The integer in column 0: the object's identifier in the queries of typed reads.
    package func id() -> Int64 { statement.int64(0) }

    /// Whether the column holds null.
    package func isNull(_ column: Int) -> Bool { statement.isNull(column) }

    /// The column's integer, or nil when it holds something else (null, a real, text): the caller then reads it
    /// through ``SQLStatement/value(_:as:)``, which converts or refuses.
    package func storedInt64(_ column: Int) -> Int64? { nil }

    /// The column's real number, or nil when it holds something else.
    package func storedDouble(_ column: Int) -> Double? { nil }

    /// The column's text, or nil when it holds something else.
    package func storedText(_ column: Int) -> String? { nil }
}

/// The cause of a ``MoltError`` when the engine refused a statement itself (a syntax error, an unknown name,
/// a violated constraint, a wrong type), as opposed to a failure of the file, the disk, the network or a lock.
package struct SQLStatementRefusal: Error {
    /// The engine's message.
    package var message: String
    /// The engine's own error.
    package var cause: (any Error)?

    package init(message: String, cause: (any Error)?) {
        self.message = message
        self.cause = cause
    }
}

/// The refusal of a stored value that is not of its attribute's type: a store edited outside Molt, or damaged.
package enum SQLStoredValue {
    /// The error for a value of `table.column` (for the object with `objectID`) that holds `found` where the
    /// schema says `expected`.
    package static func mismatch(
        entity: String, attribute: String, objectID: Int64?, found: String, expected: AttributeType
    ) -> MoltError {
        let object = objectID.map { " of the object with _id \($0)" } ?? ""
        return MoltError(
            .corruptStore,
            "Attribute '\(entity).\(attribute)'\(object) holds \(found), which is not a \(expected.rawValue) value: the store was edited outside Molt or is damaged. Fix or delete that value with SQL (or restore a backup); Molt does not guess what it meant.",
            entity: entity, property: attribute)
    }
}

import Foundation

/// What ``SQLConnection/statementObserver`` is called with: a statement's SQL, and whether it may change the
/// database (false for queries and transaction control).
package typealias SQLStatementObserver = @Sendable (_ sql: String, _ changesDatabase: Bool) -> Void
