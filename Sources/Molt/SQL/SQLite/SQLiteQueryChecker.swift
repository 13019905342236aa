import Foundation
import GRDBSQLite

/// Compiles an app's query against an empty in-memory database holding the old version's tables, with an
/// authorizer that allows reading those tables and calling functions without side effects, and nothing else.
///
/// The check never touches the store: a refused query cannot have written anything, and the store's own
/// connection keeps its authorizer (GRDB's) and its prepared statements.
final class SQLiteQueryChecker: SQLQueryChecker {
    /// The SQL functions a mapping may call: SQLite's core, date and JSON functions and math.
    static let functions: Set<String> = [
        "abs", "char", "coalesce", "concat", "concat_ws", "format", "glob", "hex", "ifnull", "iif", "instr", "length",
        "like", "likelihood", "likely", "lower", "ltrim", "max", "min", "nullif", "octet_length", "printf", "quote",
        "replace", "round", "rtrim", "sign", "soundex", "substr", "substring", "trim", "typeof", "unhex", "unicode",
        "unlikely", "upper", "zeroblob", "date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff",
        "avg", "count", "group_concat", "string_agg", "sum", "total", "row_number", "rank", "dense_rank",
        "json", "json_array", "json_array_length", "json_extract", "json_insert", "json_object", "json_patch",
        "json_quote", "json_remove", "json_replace", "json_set", "json_type", "json_valid", "jsonb",
        "acos", "asin", "atan", "atan2", "ceil", "ceiling", "cos", "degrees", "exp", "floor", "ln", "log", "log10",
        "log2", "mod", "pi", "pow", "power", "radians", "sin", "sqrt", "tan", "trunc",
        SQLiteFunctions.doubleText, SQLiteFunctions.dateText,
    ]

    private let connection: OpaquePointer
    private let tables: Set<String>
    /// What the authorizer refused during the last compilation.
    private var refusal: String?

    /// A scratch database with `schema`'s tables (empty).
    init(schema: Schema) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            let handle
        else {
            throw MoltError(.ioError, "SQLite could not open an in-memory database to check a mapping's SQL.")
        }
        connection = handle
        SQLiteFunctions.addDecimalCollation(to: handle)
        tables = Set(StoreLayout.tableNames(schema).map { $0.lowercased() })
        let ddl = SchemaDDL(dialect: SQLiteDialect.shared)
        for statement in ddl.createChanges(schema).map(ddl.sql(for:)) {
            guard sqlite3_exec(handle, statement, nil, nil, nil) == SQLITE_OK else {
                throw MoltError(
                    .ioError, "SQLite could not build the tables of version \(schema.version) to check a mapping's SQL."
                )
            }
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_set_authorizer(
            handle,
            { context, action, first, second, _, _ in
                let checker = Unmanaged<SQLiteQueryChecker>.fromOpaque(context!).takeUnretainedValue()
                return checker.authorize(action, first.map { String(cString: $0) }, second.map { String(cString: $0) })
            }, context)
    }

    deinit { sqlite3_close_v2(connection) }

    private func authorize(_ action: Int32, _ first: String?, _ second: String?) -> Int32 {
        switch action {
        case SQLITE_SELECT, SQLITE_RECURSIVE:
            return SQLITE_OK
        case SQLITE_READ:
            if let table = first, tables.contains(table.lowercased()) { return SQLITE_OK }
            refusal = "it reads '\(first ?? "?")', which is not a table of the old version's entities"
        case SQLITE_FUNCTION:
            if let name = second, Self.functions.contains(name.lowercased()) { return SQLITE_OK }
            refusal = "it calls \(second ?? "a function")(), which a mapping may not call"
        default:
            refusal = "it does more than read (SQLite action \(action))"
        }
        return SQLITE_DENY
    }

    func problem(in query: String) -> String? {
        refusal = nil
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let code = query.withCString { sqlite3_prepare_v2(connection, $0, -1, &statement, &tail) }
        defer { sqlite3_finalize(statement) }
        if let refusal { return refusal }
        guard code == SQLITE_OK, let statement else {
            return "SQLite cannot read it: \(String(cString: sqlite3_errmsg(connection)))"
        }
        if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy(\.isWhitespace) {
            return "it is more than one statement"
        }
        guard sqlite3_stmt_readonly(statement) != 0 else { return "it writes" }
        guard sqlite3_column_count(statement) == 1 else {
            return "it gives \(sqlite3_column_count(statement)) values, not one"
        }
        return nil
    }
}

extension SQLiteDialect {
    package func queryChecker(for schema: Schema) throws -> any SQLQueryChecker {
        try SQLiteQueryChecker(schema: schema)
    }
}
