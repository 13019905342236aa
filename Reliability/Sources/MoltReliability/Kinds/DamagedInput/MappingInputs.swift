import Foundation

/// Mapping files given to `migrate` and `plan --mapping`: SQL statements injected into an attribute expression, a
/// `filter` or a link's `sourceKey`, and malformed mappings.
///
/// Molt pastes these texts into its SQL. An injection (`'x'); DELETE FROM "Pet"; --`, a `COMMIT`, an `ATTACH`
/// that writes another file, a write to `_molt_metadata`, a `PRAGMA`, a subquery reading Molt's own tables) must
/// be refused with exit 3 before anything runs: the store byte for byte unchanged and no file created beside it.
enum MappingInputs {
    /// Where a text is pasted, and what closes the SQL around it.
    enum Slot: String, CaseIterable, Sendable {
        /// `UPDATE "Pet" SET "label" = (EXPRESSION)`: closed by `')`.
        case expression
        /// `UPDATE … WHERE FILTER`: closed by nothing.
        case filter
        /// `… JOIN temp.map AS mj ON mj._molt_src = (KEY)`: closed by `)`.
        case sourceKey

        var opening: String {
            switch self {
            case .expression: return "'x'); "
            case .filter: return "1; "
            case .sourceKey: return "_id); "
            }
        }

        var kind: MigrationKind { self == .sourceKey ? .split : .mapping }
    }

    /// Statements to inject, given the folder the run happens in (for files an injection could create there).
    static let injections: [(String, @Sendable (URL) -> String)] = [
        ("delete-all-pets", { _ in #"DELETE FROM "Pet"; --"# }),
        ("delete-all-pets-and-links", { _ in #"DELETE FROM "Owner_pets"; DELETE FROM "Pet"; --"# }),
        ("commit", { _ in "COMMIT; --" }),
        ("rollback", { _ in "ROLLBACK; --" }),
        (
            "attach-and-write",
            { folder in
                "ATTACH DATABASE '\(folder.appendingPathComponent("evil.sqlite").path)' AS evil; CREATE TABLE evil.loot (x); --"
            }
        ),
        ("vacuum-into", { folder in "VACUUM INTO '\(folder.appendingPathComponent("copy.sqlite").path)'; --" }),
        ("write-molt-metadata", { _ in "UPDATE _molt_metadata SET value = '99' WHERE key = 'schemaVersion'; --" }),
        ("delete-molt-history", { _ in "DELETE FROM _molt_history; --" }),
        ("pragma-user-version", { _ in "PRAGMA user_version = 99; --" }),
        ("pragma-journal-off", { _ in "PRAGMA journal_mode = OFF; --" }),
        ("drop-table", { _ in #"DROP TABLE "Owner"; --"# }),
        (
            "insert-owner",
            { _ in #"INSERT INTO "Owner" ("name", "street", "city", "joined") VALUES ('evil', 's', 'c', 0); --"# }
        ),
    ]

    /// Texts that are one expression, but read what no mapping should: Molt's tables, SQLite's, the file system.
    static func subqueries(_ slot: Slot) -> [(String, @Sendable (URL) -> String)] {
        let texts: [(String, @Sendable (URL) -> String)] = [
            ("subquery-molt-metadata", { _ in "(SELECT value FROM _molt_metadata WHERE key = 'schema')" }),
            ("subquery-molt-history", { _ in "(SELECT count(*) FROM _molt_history)" }),
            ("subquery-sqlite-master", { _ in "(SELECT group_concat(sql) FROM sqlite_master)" }),
            ("load-extension", { folder in "load_extension('\(folder.appendingPathComponent("evil").path)')" }),
        ]
        return texts.map { name, text in
            (name, { folder in slot == .filter ? "\(text(folder)) IS NOT NULL" : text(folder) })
        }
    }

    /// The mapping file with `text` in `slot`.
    static func mapping(_ slot: Slot, _ text: String) -> JSON {
        switch slot {
        case .expression:
            return ["mappings": [["destination": "Pet", "attributes": ["label": .string(text)]]]]
        case .filter:
            return ["mappings": [["destination": "Pet", "filter": .string(text), "attributes": ["label": "name"]]]]
        case .sourceKey:
            return [
                "mappings": [
                    ["destination": "Address", "source": "Owner", "attributes": ["street": "street", "city": "city"]],
                    [
                        "destination": "Owner",
                        "links": [["relationship": "address", "to": "Address", "sourceKey": .string(text)]],
                    ],
                ]
            ]
        }
    }

    /// Malformed mapping files (kind, name, content, allowed statuses): all bad input, but one whose expression
    /// yields NULL for a required attribute, which may also be a failed migration (exit 1).
    static func malformed() -> [(MigrationKind, String, Data, Set<Int32>)] {
        let pet: (JSON) -> Data = { JSON.object(["mappings": .array([$0])]).data() }
        let split: ([JSON]) -> Data = { JSON.object(["mappings": .array($0)]).data() }
        let address: JSON = [
            "destination": "Address", "source": "Owner", "attributes": ["street": "street", "city": "city"],
        ]
        return [
            (.mapping, "not-json", Data("{".utf8), [3]),
            (.mapping, "empty-file", Data(), [3]),
            (.mapping, "mappings-not-a-list", Data(#"{"mappings":{}}"#.utf8), [3]),
            (.mapping, "destination-missing", pet(["attributes": ["label": "name"]]), [3]),
            (.mapping, "destination-unknown", pet(["destination": "Nope", "attributes": ["label": "name"]]), [3]),
            (
                .mapping, "destination-molt-table",
                pet(["destination": "_molt_metadata", "attributes": ["value": "'x'"]]), [3]
            ),
            (
                .mapping, "attribute-unknown",
                pet(["destination": "Pet", "attributes": ["label": "name", "nope": "1"]]), [3]
            ),
            (.mapping, "attribute-not-text", pet(["destination": "Pet", "attributes": ["label": 5]]), [3]),
            (.mapping, "expression-empty", pet(["destination": "Pet", "attributes": ["label": ""]]), [3]),
            (
                .mapping, "expression-syntax-error", pet(["destination": "Pet", "attributes": ["label": "name ||"]]),
                [3]
            ),
            (
                .mapping, "expression-unknown-column", pet(["destination": "Pet", "attributes": ["label": "nosuch"]]),
                [3]
            ),
            (
                .mapping, "filter-syntax-error",
                pet(["destination": "Pet", "filter": "AND", "attributes": ["label": "name"]]), [3]
            ),
            (
                .mapping, "expression-null-for-required", pet(["destination": "Pet", "attributes": ["label": "NULL"]]),
                [1, 3]
            ),
            (
                .split, "source-unknown",
                split([
                    ["destination": "Address", "source": "Nope", "attributes": ["street": "street", "city": "city"]]
                ]), [3]
            ),
            (
                .split, "source-molt-table",
                split([
                    [
                        "destination": "Address", "source": "_molt_metadata",
                        "attributes": ["street": "key", "city": "value"],
                    ]
                ]), [3]
            ),
            (
                .split, "link-unknown-relationship",
                split([address, ["destination": "Owner", "links": [["relationship": "nope", "to": "Address"]]]]), [3]
            ),
            (
                .split, "link-unknown-target",
                split([address, ["destination": "Owner", "links": [["relationship": "address", "to": "Nope"]]]]), [3]
            ),
        ]
    }

    /// Random mutations of the valid mapping files.
    static func randomMutations(
        count: Int, random: inout SeededGenerator
    ) -> [(MigrationKind, String, Data, Set<Int32>)] {
        (0..<count).map { index in
            let kind: MigrationKind = index % 2 == 0 ? .mapping : .split
            var mapping = kind.mapping!
            let path = JSONMutation.mutate(&mapping, random: &random)
            return (kind, "random-\(index)-\(kind.name)-\(path)", mapping.data(), Expectations.exitsForFileProblems)
        }
    }

    /// Every case: each injection and subquery in each slot, the malformed files, the random ones, and the valid
    /// mappings (which must migrate: exit 0), each with `migrate` and `plan`.
    static func cases(fixtures: Fixtures, randomCount: Int, random: inout SeededGenerator) throws -> [InputCase] {
        var cases: [InputCase] = []
        for slot in Slot.allCases {
            for (name, statement) in injections + subqueries(slot) {
                let isStatement = injections.contains { $0.0 == name }
                let content: @Sendable (URL) -> Data = { folder in
                    mapping(slot, isStatement ? slot.opening + statement(folder) : statement(folder)).data()
                }
                cases.append(
                    try inputCase(
                        "\(slot.rawValue)-\(name)", kind: slot.kind, content: content, allowed: InputRun.refused,
                        expected: InputRun.refusedText, fixtures: fixtures))
            }
        }
        for (kind, name, data, allowed) in malformed() + randomMutations(count: randomCount, random: &random) {
            let expected =
                allowed == InputRun.refused
                ? InputRun.refusedText : "one of \(allowed.sorted()) (no crash, no change on refusal)"
            cases.append(
                try inputCase(
                    name, kind: kind, content: { _ in data }, allowed: allowed, expected: expected, fixtures: fixtures))
        }
        for kind in [MigrationKind.mapping, .split] {
            let data = kind.mapping!.data()
            cases.append(
                try inputCase(
                    "valid-\(kind.name)", kind: kind, content: { _ in data }, allowed: [0],
                    expected: "exit 0: a valid mapping", fixtures: fixtures))
        }
        let keyed = mapping(.sourceKey, "_id").data()
        cases.append(
            try inputCase(
                "valid-split-with-source-key", kind: .split, content: { _ in keyed }, allowed: [0],
                expected: "exit 0: a valid mapping", fixtures: fixtures))
        return cases
    }

    private static func inputCase(
        _ name: String, kind: MigrationKind, content: @escaping @Sendable (URL) -> Data, allowed: Set<Int32>,
        expected: String,
        fixtures: Fixtures
    ) throws -> InputCase {
        let target = try fixtures.files(for: kind).snapshot
        func arguments(_ command: String) -> @Sendable (URL) -> [String] {
            { folder in
                [
                    command, folder.appendingPathComponent("store.sqlite").path, "--to", target.path, "--mapping",
                    folder.appendingPathComponent("mapping.json").path,
                ]
            }
        }
        return InputCase(
            family: "mapping", name: name, files: { ["mapping.json": content($0)] },
            runs: [
                InputRun(
                    command: "migrate", arguments: arguments("migrate"), readsOnly: false, allowed: allowed,
                    expected: expected),
                InputRun(
                    command: "plan", arguments: arguments("plan"), readsOnly: true, allowed: allowed, expected: expected
                ),
            ])
    }
}
