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

    /// Every single-column foreign key of the namespace.
    func references() throws -> [Reference] {
        let rows = try connection.rows("""
            SELECT (SELECT relname FROM pg_class WHERE oid = k.conrelid),
                   (SELECT attname FROM pg_attribute WHERE attrelid = k.conrelid AND attnum = k.conkey[1]),
                   (SELECT relname FROM pg_class WHERE oid = k.confrelid),
                   (SELECT attname FROM pg_attribute WHERE attrelid = k.confrelid AND attnum = k.confkey[1]),
                   EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = k.conrelid AND attname = ? AND NOT attisdropped)
            FROM pg_constraint k
            WHERE k.contype = 'f' AND k.connamespace = \(Self.namespaceOID)
            ORDER BY 1, 2
            """, [.string(StoreLayout.idColumn), .string(namespace)], types: [.string, .string, .string, .string, .bool])
        return rows.map {
            Reference(
                table: $0[0].string!, column: $0[1].string!, parent: $0[2].string!, parentColumn: $0[3].string!,
                tableHasID: $0[4] == .bool(true))
        }
    }

    /// The indexes of a table; those that back a constraint (primary key, uniqueness) are not explicit.
    func indexes(on table: String) throws -> [SQLIndexInfo] {
        try indexes(table: table)[table] ?? []
    }

    /// The indexes of every table of the namespace (or of `table` only), by table, in one query: validation
    /// reads them all, and each catalog query costs a few milliseconds of planning.
    private func indexes(table: String? = nil) throws -> [String: [SQLIndexInfo]] {
        let rows = try connection.rows("""
            SELECT t.relname, i.relname, x.indisunique, NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.oid),
                   (SELECT attname FROM pg_attribute WHERE attrelid = t.oid AND attnum = k.attnum)
            FROM pg_class t JOIN pg_index x ON x.indrelid = t.oid JOIN pg_class i ON i.oid = x.indexrelid
            CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, position)
            WHERE t.relnamespace = \(Self.namespaceOID)\(table == nil ? "" : " AND t.relname = ?") AND k.attnum <> 0
            ORDER BY t.relname, i.relname, k.position
            """, [.string(namespace)] + (table.map { [.string($0)] } ?? []), types: [.string, .string, .bool, .bool, .string])
        var result: [String: [SQLIndexInfo]] = [:]
        for row in rows {
            let (table, name, column) = (row[0].string!, row[1].string!, row[4].string!)
            if result[table]?.last?.name == name {
                result[table]![result[table]!.count - 1].columns.append(column)
            } else {
                result[table, default: []].append(
                    SQLIndexInfo(name: name, columns: [column], isUnique: row[2] == .bool(true), isExplicit: row[3] == .bool(true)))
            }
        }
        return result
    }

    /// The shapes of the application's tables: each column's type (with a collation other than the type's
    /// default, `NOT NULL`, identity), its references (`references`, when the caller read them already), its
    /// indexes other than the primary key.
    func shapes(references known: [Reference]? = nil) throws -> [String: SQLTableShape] {
        let columnRows = try connection.rows("""
            SELECT c.relname, a.attname,
                   format_type(a.atttypid, a.atttypmod)
                   || CASE WHEN a.attcollation <> (SELECT typcollation FROM pg_type WHERE oid = a.atttypid)
                           THEN ' COLLATE ' || quote_ident((SELECT collname FROM pg_collation WHERE oid = a.attcollation)) ELSE '' END
                   || CASE WHEN a.attidentity <> '' THEN ' IDENTITY' ELSE '' END
                   || CASE WHEN EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p' AND k.conkey = ARRAY[a.attnum])
                           THEN ' PRIMARY KEY' WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
            FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
            WHERE c.relnamespace = \(Self.namespaceOID) AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
              AND c.relname NOT LIKE '\\_molt\\_%'
            ORDER BY c.relname, a.attnum
            """, [.string(namespace)], types: [.string, .string, .string])
        var result: [String: SQLTableShape] = [:]
        for row in columnRows {
            let (table, column, type) = (row[0].string!, row[1].string!, row[2].string!)
            result[table, default: SQLTableShape(columns: [:], references: [], indexes: [], order: [])].append(column, type)
        }
        for reference in try known ?? references() where result[reference.table] != nil {
            result[reference.table]!.references.insert("\(reference.column) → \(reference.parent)(\(reference.parentColumn))")
        }
        for (table, indexes) in try indexes() where result[table] != nil {
            let shown = indexes.filter { !($0.columns == [StoreLayout.idColumn] && $0.isUnique && !$0.isExplicit) }
            result[table]!.indexes = Set(shown.map { "\($0.isUnique ? "unique" : "index")(\($0.columns.joined(separator: ", ")))" })
        }
        return result
    }
}
