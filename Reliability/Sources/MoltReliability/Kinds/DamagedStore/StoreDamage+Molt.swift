/// Damage to Molt's own tables and to the pragmas Molt sets: what someone with sqlite3, or a faulty tool, could do
/// to `_molt_metadata` and `_molt_history`.
extension StoreDamage {
    /// Values of the wrong kind for a text or integer column: NULL, a blob, numbers at the edges, text that is
    /// not what the column means.
    static let oddValues: [(name: String, literal: String)] = [
        ("null", "NULL"), ("blob", "X'00FF10'"), ("integer", "7"), ("int-max", "9223372036854775807"),
        ("int-min", "-9223372036854775808"), ("negative", "-1"), ("real", "1.5"), ("huge-real", "1e308"),
        ("empty-text", "''"), ("text", "'garbage'"), ("broken-json", "'{\"version\":'"), ("json-array", "'[]'"),
    ]

    /// `_molt_metadata` rows replaced, deleted, duplicated; the table dropped or given an extra column.
    static func metadata() -> [StoreDamage] {
        var damages: [StoreDamage] = []
        for key in ["formatVersion", "schemaVersion", "schemaHash", "schema"] {
            for value in oddValues {
                damages.append(
                    StoreDamage(family: "metadata", name: "metadata-\(key)-\(value.name)") { store, _ in
                        try sql(
                            store,
                            loosen("_molt_metadata", columns: metadataColumns)
                                + ["UPDATE _molt_metadata SET value = \(value.literal) WHERE key = '\(key)'"])
                    })
            }
            damages.append(
                StoreDamage(family: "metadata", name: "metadata-\(key)-deleted") { store, _ in
                    try sql(store, ["DELETE FROM _molt_metadata WHERE key = '\(key)'"])
                })
        }
        let deep = String(repeating: "[", count: 100_000)
        let schemaTexts: [(String, String)] = [
            ("negative-version", #"{"formatVersion":1,"version":-5,"entities":[]}"#),
            ("int-max-version", #"{"formatVersion":1,"version":9223372036854775807,"entities":[]}"#),
            ("version-overflow", #"{"formatVersion":1,"version":9223372036854775808,"entities":[]}"#),
            ("no-entities", #"{"formatVersion":1,"version":2}"#),
            ("newer-format", #"{"formatVersion":99,"version":2,"entities":[]}"#),
            ("deep-nesting", #"{"formatVersion":1,"version":2,"entities":"# + deep),
            (
                "ghost-entity",
                #"{"formatVersion":1,"version":2,"entities":[{"name":"Ghost","attributes":[{"name":"x","type":"int","optional":false}]}]}"#
            ),
            (
                "invalid-schema",
                #"{"formatVersion":1,"version":2,"entities":[{"name":"A","attributes":[]},{"name":"A","attributes":[]}]}"#
            ),
            (
                "ten-megabytes",
                #"{"formatVersion":1,"version":2,"entities":[],"padding":""# + String(repeating: "x", count: 10_000_000)
                    + #""}"#
            ),
        ]
        for (name, text) in schemaTexts {
            damages.append(
                StoreDamage(family: "metadata", name: "metadata-schema-\(name)") { store, _ in
                    try sql(
                        store, ["UPDATE _molt_metadata SET value = \(SQLiteValue.quote(text)) WHERE key = 'schema'"])
                })
        }
        for (name, version) in [("ahead", "3"), ("far-ahead", "99"), ("behind", "1")] {
            damages.append(
                StoreDamage(family: "metadata", name: "metadata-schemaVersion-\(name)-of-schema") { store, _ in
                    try sql(store, ["UPDATE _molt_metadata SET value = '\(version)' WHERE key = 'schemaVersion'"])
                })
        }
        for (name, version) in [("newer", "2"), ("zero", "0")] {
            damages.append(
                StoreDamage(family: "metadata", name: "metadata-formatVersion-\(name)") { store, _ in
                    try sql(store, ["UPDATE _molt_metadata SET value = '\(version)' WHERE key = 'formatVersion'"])
                })
        }
        damages += [
            StoreDamage(family: "metadata", name: "metadata-table-dropped") { store, _ in
                try sql(store, ["DROP TABLE _molt_metadata"])
            },
            StoreDamage(family: "metadata", name: "metadata-table-empty") { store, _ in
                try sql(store, ["DELETE FROM _molt_metadata"])
            },
            StoreDamage(family: "metadata", name: "metadata-key-in-other-case") { store, _ in
                try sql(store, ["UPDATE _molt_metadata SET key = 'SchemaVersion' WHERE key = 'schemaVersion'"])
            },
            StoreDamage(family: "metadata", name: "metadata-duplicate-key") { store, _ in
                try sql(
                    store,
                    loosen("_molt_metadata", columns: metadataColumns)
                        + ["INSERT INTO _molt_metadata VALUES ('schemaVersion', '7')"])
            },
            StoreDamage(family: "metadata", name: "metadata-extra-column") { store, _ in
                try sql(store, ["ALTER TABLE _molt_metadata ADD COLUMN extra"])
            },
            StoreDamage(family: "metadata", name: "metadata-is-a-view") { store, _ in
                try sql(
                    store,
                    [
                        "ALTER TABLE _molt_metadata RENAME TO _molt_metadata_data",
                        "CREATE VIEW _molt_metadata AS SELECT key, value FROM _molt_metadata_data",
                    ])
            },
        ]
        return damages
    }

    /// `_molt_history` columns given NULL, blobs, text and edge numbers; rows that make no sense; the table gone.
    static func history() -> [StoreDamage] {
        var damages: [StoreDamage] = []
        let values: [(String, String)] = [
            ("null", "NULL"), ("text", "'abc'"), ("blob", "X'00FF'"), ("real", "1.5"),
            ("int-max", "9223372036854775807"),
            ("int-min", "-9223372036854775808"), ("huge-real", "1e308"),
        ]
        for column in historyColumns.dropFirst() {
            for (name, literal) in values {
                damages.append(
                    StoreDamage(family: "history", name: "history-\(column)-\(name)") { store, _ in
                        try sql(
                            store,
                            loosen("_molt_history", columns: historyColumns)
                                + ["UPDATE _molt_history SET \(SQLiteValue.identifier(column)) = \(literal)"])
                    })
            }
        }
        damages += [
            StoreDamage(family: "history", name: "history-table-dropped") { store, _ in
                try sql(store, ["DROP TABLE _molt_history"])
            },
            StoreDamage(family: "history", name: "history-steps-column-missing") { store, _ in
                try sql(store, ["ALTER TABLE _molt_history DROP COLUMN steps"])
            },
            StoreDamage(family: "history", name: "history-backwards-row") { store, _ in
                try sql(
                    store,
                    [
                        "INSERT INTO _molt_history (fromVersion, toVersion, startedAt, duration, objectsTouched, steps) VALUES (9, 3, -1e300, -5, -7, '')"
                    ])
            },
            StoreDamage(family: "history", name: "history-10000-rows") { store, _ in
                try sql(
                    store,
                    [
                        """
                        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
                        INSERT INTO _molt_history (fromVersion, toVersion, startedAt, duration, objectsTouched, steps)
                        SELECT 1, 2, 1700000000 + i, 0.5, i, 'step ' || i FROM n
                        """
                    ])
            },
            StoreDamage(family: "history", name: "history-invalid-utf8-steps") { store, _ in
                try sql(store, ["UPDATE _molt_history SET steps = CAST(X'C328FF' AS TEXT)"])
            },
        ]
        return damages
    }

    /// `PRAGMA user_version` and `application_id` set to what Molt never writes.
    static func pragmas() -> [StoreDamage] {
        let settings: [(String, String)] = [
            ("user_version", "0"), ("user_version", "99"), ("user_version", "-1"), ("user_version", "2147483647"),
            ("application_id", "0"), ("application_id", "1"), ("application_id", "-1"),
        ]
        return settings.map { pragma, value in
            StoreDamage(family: "pragma", name: "pragma-\(pragma)-\(value)") { store, _ in
                try sql(store, ["PRAGMA \(pragma) = \(value)"])
            }
        }
    }

    /// The application's tables edited: gone, wrong values, broken links, a table Molt does not know.
    static func tables() -> [StoreDamage] {
        let edits: [(String, [String])] = [
            ("pet-table-dropped", ["PRAGMA foreign_keys = OFF", "DROP TABLE \"Pet\""]),
            ("join-table-dropped", ["DROP TABLE \"Owner_pets\""]),
            ("extra-column", ["ALTER TABLE \"Pet\" ADD COLUMN \"extra\" TEXT"]),
            ("column-dropped", ["ALTER TABLE \"Pet\" DROP COLUMN \"species\""]),
            ("text-in-int-column", ["UPDATE \"Pet\" SET \"weight\" = 'heavy' WHERE \"_id\" % 3 = 0"]),
            ("blob-in-text-column", ["UPDATE \"Pet\" SET \"name\" = X'FF00FF' WHERE \"_id\" % 5 = 0"]),
            ("invalid-utf8-text", ["UPDATE \"Pet\" SET \"name\" = CAST(X'C328FF' AS TEXT) WHERE \"_id\" % 7 = 0"]),
            ("broken-foreign-key", ["UPDATE \"Pet\" SET \"owner\" = 999999 WHERE \"_id\" % 4 = 0"]),
            ("join-row-to-nowhere", ["INSERT INTO \"Owner_pets\" (\"owner\", \"target\") VALUES (999999, 888888)"]),
            ("unknown-table", ["CREATE TABLE \"Intruder\" (x)", "INSERT INTO \"Intruder\" VALUES (1)"]),
            ("index-dropped", ["DROP INDEX \"Owner_pets_target\""]),
            ("ten-megabyte-text", ["UPDATE \"Pet\" SET \"name\" = hex(zeroblob(5000000)) WHERE \"_id\" = 3"]),
            ("trigger-added", ["CREATE TRIGGER \"Sneaky\" AFTER UPDATE ON \"Pet\" BEGIN DELETE FROM \"Owner\"; END"]),
        ]
        return edits.map { name, statements in
            StoreDamage(family: "tables", name: "tables-\(name)") { store, _ in try sql(store, statements) }
        }
    }
}
