import Foundation
import Molt
import PostgresNIO

/// A PostgreSQL session seen through ``SQLConnection``, valid for one transaction of ``PostgresStoreDatabase``.
///
/// Unqualified names resolve in the store's namespace (`search_path`); temporary tables live in `pg_temp`.
final class PostgresStoreConnection: SQLConnection {
    let link: PostgresLink
    /// The store's namespace (PostgreSQL schema).
    let namespace: String
    private var cache: [String: PostgresStatement] = [:]
    /// References to tables not created yet (see ``PostgresForwardReferences``).
    private var forward = PostgresForwardReferences()
    /// The tables ``lockForChange(_:)`` locked in this transaction.
    private var locked: Set<String> = []
    /// The namespace's tables and references as last read, with the link's ``PostgresLink/catalogChanges`` then.
    private var knownContents: (catalogChanges: Int, contents: PostgresCatalog.Contents)?

    /// The database that announces this transaction's commit (``PostgresCommitNotices``); nil for a read.
    let sender: String?

    init(link: PostgresLink, namespace: String, sender: String? = nil) {
        self.link = link
        self.namespace = namespace
        self.sender = sender
    }

    /// The session's dialect: its conversions to text note the helper functions they call, which the link
    /// creates before the next statement (``PostgresFunctionUse``).
    var dialect: any SQLDialect { PostgresDialect(functionUse: link.functionUse) }

    @discardableResult
    func execute(_ kind: SQLStatementKind, _ sql: String, _ arguments: [Value]) throws -> Int {
        try link.run(sql, arguments, kind: kind).count
    }

    /// Renders `change` as ``SchemaDDL`` does, with two differences: a link to a table not created yet waits
    /// for it (``PostgresForwardReferences``), and `DROP TABLE` drops the links other tables hold to it too
    /// (`CASCADE`), as SQLite lets a migration do: those tables are dropped or changed in the same
    /// transaction, and validation checks the result.
    func change(_ change: SQLSchemaChange) throws {
        let ddl = SchemaDDL(dialect: dialect)
        switch change {
        case .createTable(let table):
            let withheld = try forward.withhold(table.columns, of: table.name, exists: tableExists)
            try link.run(ddl.sql(for: table, withholding: withheld), [], kind: .create)
        case .addColumn(let column, let table):
            let withheld = try forward.withhold([column], of: table, exists: tableExists)
            let definition = ddl.sql(for: column, withLink: withheld.isEmpty)
            try link.run("ALTER TABLE \(dialect.quote(table)) ADD COLUMN \(definition)", [], kind: .alter)
        case .renameTable(let from, let to):
            try link.run(ddl.sql(for: change), [], kind: .alter)
            forward.follow(renaming: from, to: to)
        case .dropTable:
            try link.run(ddl.sql(for: change) + " CASCADE", [], kind: .alter, lock: .drop)
            return
        case .createIndex:
            try link.run(ddl.sql(for: change), [], kind: .create, lock: .index)
            return
        }
        for statement in try forward.ready(exists: tableExists) { try link.run(statement, [], kind: .alter) }
    }

    func deferReferenceChecks() throws { try link.run("SET CONSTRAINTS ALL DEFERRED", [], kind: .read) }

    /// `LOCK TABLE … IN ACCESS EXCLUSIVE MODE`, the lock every change of a table takes, once per transaction:
    /// held to the commit, it keeps live traffic from writing rows between the migration's count and its change.
    func lockForChange(_ table: String) throws {
        guard locked.insert(table).inserted else { return }
        try link.run("LOCK TABLE \(dialect.quote(table)) IN ACCESS EXCLUSIVE MODE", [], kind: .read, lock: .held)
    }

    package func tableExists(_ name: String) throws -> Bool {
        // The namespace by its name as it is (to_regnamespace would read it as an identifier, folding case).
        try fetchInt(
            "SELECT COUNT(*) FROM pg_class WHERE relname = ? AND relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())",
            [.string(name)]) == 1
    }

    /// Throws when a reference is still waiting for its table at the end of the transaction.
    func checkForwardReferences() throws {
        guard let first = forward.pending.first else { return }
        throw MoltError(
            .validationFailed,
            "Column '\(first.table).\(first.column)' points to table '\(first.link.table)', which was never created; nothing was committed."
        )
    }

    func cachedStatement(_ kind: SQLStatementKind, _ sql: String) throws -> any SQLStatement {
        if let statement = cache[sql] { return statement }
        let statement = PostgresStatement(sql: sql, kind: kind, link: link)
        cache[sql] = statement
        return statement
    }

    func makeStatement(_ kind: SQLStatementKind, _ sql: String) throws -> any SQLStatement {
        PostgresStatement(sql: sql, kind: kind, link: link)
    }

    /// Queues the row with the others of its table, sent as one statement before the session's next one
    /// (``PostgresInsertQueue``).
    func insertBatched(into table: String, columns: [String], values: [Value]) throws -> Bool {
        try link.queueInsert(into: table, columns: columns, values)
        return true
    }

    var statementObserver: SQLStatementObserver? {
        get { link.observer }
        set {
            guard let observer = newValue else {
                link.observer = nil
                return
            }
            link.observer = observer
        }
    }

    /// Runs a query and returns its rows as values decoded as `types` (nil: as stored).
    func rows(_ sql: String, _ arguments: [Value] = [], types: [AttributeType?]) throws -> [[Value]] {
        try fetchRows(sql, arguments, types: types)
    }

    /// The first column of every row, as text.
    func strings(_ sql: String, _ arguments: [Value] = []) throws -> [String] {
        try rows(sql, arguments, types: [.string]).compactMap { $0.first?.string }
    }

    // MARK: - Introspection

    func tableNames() throws -> [String] {
        try strings(
            "SELECT relname FROM pg_class WHERE relnamespace = \(PostgresCatalog.namespaceOID) AND relkind IN ('r', 'p') ORDER BY relname",
            [.string(namespace)])
    }

    func indexNames() throws -> [String] {
        try strings(
            "SELECT relname FROM pg_class WHERE relnamespace = \(PostgresCatalog.namespaceOID) AND relkind = 'i'",
            [.string(namespace)])
    }

    func columnNames(in table: String) throws -> [String] {
        try rows(
            """
            SELECT attname FROM pg_attribute
            WHERE attrelid = \(PostgresCatalog.tableOID) AND attnum > 0 AND NOT attisdropped ORDER BY attnum
            """, [.string(namespace), .string(table)], types: [.string]
        ).compactMap { $0.first?.string }
    }

    func indexes(on table: String) throws -> [SQLIndexInfo] {
        try PostgresCatalog(connection: self, namespace: namespace).indexes(on: table)
    }

    func tableShapes() throws -> [String: SQLTableShape] { try contents().shapes }

    /// The namespace's tables and references, read from the catalog once until a statement may have changed
    /// them: validation needs the shapes, then the references again for the links to check.
    private func contents() throws -> PostgresCatalog.Contents {
        if let knownContents, knownContents.catalogChanges == link.catalogChanges { return knownContents.contents }
        let contents = try PostgresCatalog(connection: self, namespace: namespace).contents()
        knownContents = (link.catalogChanges, contents)
        return contents
    }

    /// The shapes the catalog would show for `schema`'s tables (``PostgresExpectedShapes``), without creating them.
    func expectedShapes(of schema: Schema) throws -> [String: SQLTableShape] {
        PostgresExpectedShapes.shapes(of: schema)
    }

    /// Creates the schema in a scratch namespace inside the transaction, reads its shapes from the catalog, and
    /// drops it: what ``PostgresExpectedShapes`` must always agree with (its tests compare the two).
    package func catalogShapes(creating schema: Schema) throws -> [String: SQLTableShape] {
        let scratch = "_molt_expected_\(UUID().uuidString.prefix(8).lowercased())"
        let q = dialect.quote
        // Validation's own statements are not the migration's: a dry run does not list them.
        let observer = link.observer
        link.observer = nil
        defer { link.observer = observer }
        try link.run("CREATE SCHEMA \(q(scratch))", [], kind: .create)
        try link.run("SET LOCAL search_path TO \(q(scratch))", [], kind: .read)
        defer {
            _ = try? link.run("SET LOCAL search_path TO \(q(namespace))", [], kind: .read)
            _ = try? link.run("DROP SCHEMA \(q(scratch)) CASCADE", [], kind: .alter)
        }
        for change in SchemaDDL(dialect: dialect).createChanges(schema) { try self.change(change) }
        return try PostgresCatalog(connection: self, namespace: scratch).contents().shapes
    }

    /// Identity columns never hand a value out again (their sequences only move forward, and Molt only moves
    /// them past identifiers given explicitly): nothing to do.
    func keepIdentifiersIncreasing() throws {}

    func identifierMark(of table: String) throws -> Int64? {
        try fetchInt(
            "SELECT pg_sequence_last_value(s::regclass) FROM (SELECT pg_get_serial_sequence(?, '_id') AS s) AS q WHERE s IS NOT NULL",
            [.string(dialect.quote(table))])
    }

    func raiseIdentifierMark(of table: String, to mark: Int64) throws {
        try PostgresIdentities.advance(dialect.quote(table), past: mark, link: link)
    }

    /// One catalog read names the references to check and whether each table has an `_id` to report.
    func brokenLinks(around tables: Set<String>?) throws -> [SQLBrokenLink] {
        let q = dialect.quote
        let references = try contents().references
        let checked = tables.map { tables in
            tables.union(references.filter { tables.contains($0.parent) }.map(\.table))
        }
        var broken: [SQLBrokenLink] = []
        for reference in references where checked?.contains(reference.table) ?? true {
            let child = q(reference.table)
            let column = "\(child).\(q(reference.column))"
            let id = reference.tableHasID ? "\(child).\(q(StoreLayout.idColumn))" : "NULL::bigint"
            let sql = """
                SELECT \(id) FROM \(child) WHERE \(column) IS NOT NULL AND NOT EXISTS (
                    SELECT 1 FROM \(q(reference.parent)) p WHERE p.\(q(reference.parentColumn)) = \(column))
                """
            for row in try rows(sql, types: [.int]) {
                broken.append(SQLBrokenLink(table: reference.table, parent: reference.parent, rowID: row[0].int))
            }
        }
        return broken
    }

    func apply(
        _ change: SQLTableChange, progress: (_ copied: Int, _ total: Int) throws -> Void
    ) throws -> SQLTableChangeResult {
        // A catalog-only change reads no row; any other does (a type change rewrites them, SET NOT NULL scans them):
        // progress counts those rows, counted once (here, unless the run counted them already).
        let total =
            change.visitsRows(in: dialect)
            ? try change.rowCount ?? Int(try fetchInt("SELECT COUNT(*) FROM \(dialect.quote(change.table))") ?? 0) : 0
        if total > 0 { try progress(0, total) }
        let result = try PostgresTableChange(change: change, connection: self, rowCount: total).apply()
        if total > 0 { try progress(total, total) }
        return result
    }

    /// A server checks its own storage: no page check here.
    func pageProblems(in tables: [String]?) throws -> [String] { [] }

    var pageCheckName: String { "none" }

    /// PostgreSQL has no file header to stamp.
    func stampApplicationID(_ id: Int32) throws {}

    func stampSchemaVersion(_ version: Int) throws {}

    /// Every PostgreSQL store was created with Molt's own tables as they are now.
    var mayPredateCurrentFormat: Bool { false }

    /// Never: PostgreSQL alters a table in place, so a mapping is not folded into a rebuild; it runs as its own
    /// `UPDATE` (the statements are the same work as a computed column's).
    func rewritesRows(_ change: SQLTableChange) -> Bool { false }
}
