import Molt

/// Keeps the identity sequences of `_id` columns ahead of the identifiers rows were given explicitly (an
/// import keeps identifiers; a mapping numbers the objects it creates itself), so that the next object the
/// engine numbers never collides with one.
enum PostgresIdentities {
    /// Moves the identity sequence of `table` (quoted) past `id` when it is behind.
    static func advance(_ table: String, past id: Int64, link: PostgresLink) throws {
        // The sequence is compared by its regclass: pg_sequences spells mixed-case names unquoted, while
        // pg_get_serial_sequence quotes them.
        try link.run(
            """
            SELECT setval(s, ?) FROM (SELECT pg_get_serial_sequence(?, '_id') AS s) AS q
            WHERE s IS NOT NULL AND COALESCE(pg_sequence_last_value(s::regclass), 0) < ?
            """, [.int(id), .string(table), .int(id)], kind: .read)
    }

    /// Moves every identity sequence of the namespace past its table's largest `_id` (never back): run before a
    /// creation or migration that inserted rows commits (a change of tables alone leaves the sequences right).
    /// One round trip whatever the number of tables: the server walks them.
    static func synchronize(_ connection: PostgresStoreConnection) throws {
        let namespace = PostgresDialect.shared.literal(.string(connection.namespace))
        try connection.link.run(
            PostgresLink.anonymousBlock(
                declaring: "r record; top bigint;",
                """
                FOR r IN
                    SELECT c.oid::regclass AS t, pg_get_serial_sequence(c.oid::regclass::text, '_id') AS s
                    FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
                    WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = \(namespace)) AND c.relkind = 'r'
                      AND a.attname = '_id' AND NOT a.attisdropped
                LOOP
                    CONTINUE WHEN r.s IS NULL;
                    EXECUTE format('SELECT max(%I) FROM %s', '_id', r.t) INTO top;
                    IF top IS NOT NULL AND COALESCE(pg_sequence_last_value(r.s::regclass), 0) < top THEN
                        PERFORM setval(r.s, top);
                    END IF;
                END LOOP;
                """), [], kind: .read)
    }
}
