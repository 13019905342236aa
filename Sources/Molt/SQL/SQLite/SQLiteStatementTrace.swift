import GRDB
import GRDBSQLite

/// Reports the statements SQLite runs to a connection's ``SQLConnection/statementObserver``, each with whether it
/// may change the database: SQLite itself says which statements only read (`sqlite3_stmt_readonly`: queries,
/// and `BEGIN`/`COMMIT`/`SAVEPOINT`), so no statement's text is read to tell.
/// The text reported is the statement with its arguments expanded (`sqlite3_expanded_sql`).
final class SQLiteStatementTrace {
    private let observer: SQLStatementObserver
    private let connection: OpaquePointer
    /// Whether the callback is still installed: SQLite holds a pointer to `self` until ``remove()``.
    private var installed = true

    /// Installs the trace on `connection` (replacing any other trace callback) until ``remove()``.
    init(_ observer: @escaping SQLStatementObserver, on connection: OpaquePointer) {
        self.observer = observer
        self.connection = connection
        sqlite3_trace_v2(
            connection, UInt32(SQLITE_TRACE_STMT),
            { _, context, statement, _ in
                guard let context, let statement else { return 0 }
                let prepared = OpaquePointer(statement)
                guard let text = sqlite3_expanded_sql(prepared) else { return 0 }
                defer { sqlite3_free(text) }
                let trace = Unmanaged<SQLiteStatementTrace>.fromOpaque(context).takeUnretainedValue()
                trace.observer(String(cString: text), sqlite3_stmt_readonly(prepared) == 0)
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Removes the trace; the connection reports nothing afterwards. Once only: a later trace on the same
    /// connection is not this one's to remove.
    func remove() {
        guard installed else { return }
        installed = false
        sqlite3_trace_v2(connection, 0, nil, nil)
    }

    /// A trace released without ``remove()`` (its connection wrapper dropped while observed) removes itself, so
    /// that SQLite never calls back into freed memory.
    deinit { remove() }
}
