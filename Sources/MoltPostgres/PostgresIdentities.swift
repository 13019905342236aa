import Molt

/// Keeps the identity sequences of `_id` columns ahead of the identifiers rows were given explicitly (an
/// import keeps identifiers; a mapping numbers the objects it creates itself), so that the next object the
/// engine numbers never collides with one.
enum PostgresIdentities {
    /// Moves the identity sequence of `table` (quoted) past `id` when it is behind.
    static func advance(_ table: String, past id: Int64, link: PostgresLink) throws {
        // The sequence is compared by its regclass: pg_sequences spells mixed-case names unquoted, while
        // pg_get_serial_sequence quotes them.
        try link.run("""
            SELECT setval(s, ?) FROM (SELECT pg_get_serial_sequence(?, '_id') AS s) AS q
            WHERE s IS NOT NULL AND COALESCE(pg_sequence_last_value(s::regclass), 0) < ?
            """, [.int(id), .string(table), .int(id)])
    }

    /// Moves every identity sequence of the namespace past its table's largest `_id`: run before a creation
    /// or migration commits.
    static func synchronize(_ connection: PostgresStoreConnection) throws {
        let q = PostgresDialect.shared.quote
        for table in try PostgresCatalog(connection: connection, namespace: connection.namespace).tablesWithColumn(StoreLayout.idColumn) {
            try connection.link.run(
                "SELECT setval(pg_get_serial_sequence(?, '_id'), max(\(q(StoreLayout.idColumn)))) FROM \(q(table)) HAVING max(\(q(StoreLayout.idColumn))) IS NOT NULL",
                [.string(q(table))])
        }
    }
}
