import Molt

/// Reads a namespace's tables, columns, references and indexes from PostgreSQL's catalog, in the normalized
/// form validation compares (``SQLTableShape``).
struct PostgresCatalog {
    let connection: PostgresStoreConnection
    let namespace: String

    /// A foreign key: `table.column → parent(parentColumn)`.
    struct Reference {
        var table: String
        var column: String
        var parent: String
        var parentColumn: String
        /// Whether `table` has an `_id` column (an entity's table; a join table has none), to name a row by.
        var tableHasID: Bool
    }

    /// The oid of the namespace named by the next argument. Catalog queries name their relations by oid with
    /// scalar subqueries rather than joining `pg_namespace`, `pg_class` and `pg_attribute`: PostgreSQL plans such
    /// a join of catalog tables in ~2 ms and these in 0.2–0.7 ms, and validation runs a dozen per migration. (A
    /// set-returning function with no row estimate, such as `generate_series` over a column, makes the plan look
    /// costly enough for JIT compilation, ~30 ms: `unnest` is estimated.)
    static let namespaceOID = "(SELECT oid FROM pg_namespace WHERE nspname = ?)"
    /// The oid of the table named by the next two arguments (namespace, table), or null when there is none.
    static let tableOID = "to_regclass(format('%I.%I', ?::text, ?::text))"

    /// Every single-column foreign key of the namespace, its tables named by scalar subqueries: what
    /// ``contents()`` falls back to when a reference leaves the namespace.
    func references() throws -> [Reference] {
        let rows = try connection.rows(
            """
            SELECT (SELECT relname FROM pg_class WHERE oid = k.conrelid),
                   (SELECT attname FROM pg_attribute WHERE attrelid = k.conrelid AND attnum = k.conkey[1]),
                   (SELECT relname FROM pg_class WHERE oid = k.confrelid),
                   (SELECT attname FROM pg_attribute WHERE attrelid = k.confrelid AND attnum = k.confkey[1]),
                   EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = k.conrelid AND attname = ? AND NOT attisdropped)
            FROM pg_constraint k
            WHERE k.contype = 'f' AND k.connamespace = \(Self.namespaceOID)
            ORDER BY 1, 2
            """, [.string(StoreLayout.idColumn), .string(namespace)],
            types: [.string, .string, .string, .string, .bool])
        return rows.map {
            Reference(
                table: $0[0].string!, column: $0[1].string!, parent: $0[2].string!, parentColumn: $0[3].string!,
                tableHasID: $0[4] == .bool(true))
        }
    }

    /// The indexes of a table, in order of name, each one's columns in order; those that back a constraint
    /// (primary key, uniqueness) are not explicit.
    func indexes(on table: String) throws -> [SQLIndexInfo] {
        let rows = try connection.rows(
            """
            SELECT i.relname, x.indisunique, NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.oid),
                   (SELECT attname FROM pg_attribute WHERE attrelid = t.oid AND attnum = k.attnum)
            FROM pg_class t JOIN pg_index x ON x.indrelid = t.oid JOIN pg_class i ON i.oid = x.indexrelid
            CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, position)
            WHERE t.relnamespace = \(Self.namespaceOID) AND t.relname = ? AND k.attnum <> 0
            ORDER BY i.relname, k.position
            """, [.string(namespace), .string(table)], types: [.string, .bool, .bool, .string])
        var result: [SQLIndexInfo] = []
        for row in rows {
            let (name, column) = (row[0].string!, row[3].string!)
            if result.last?.name == name {
                result[result.count - 1].columns.append(column)
            } else {
                result.append(
                    SQLIndexInfo(
                        name: name, columns: [column], isUnique: row[1] == .bool(true),
                        isExplicit: row[2] == .bool(true)))
            }
        }
        return result
    }
}
