import Molt

/// Adding an optional attribute and renaming one are catalog-only on PostgreSQL (`ADD COLUMN` without a
/// default, `RENAME COLUMN`): Molt's migration must take the same time on 1M items as on 100k, within noise
/// (< 2x, as on SQLite). For information, psql running the same `ALTER TABLE` in one transaction on the same
/// data, at both sizes, timed from spawn to exit as Molt's `Store.open` is timed from its connection on.
struct PostgresCatalogChange: Scenario {
    let name: String
    let summary: String
    /// Version 2 of the memo store.
    let v2: Schema
    /// The hand-written statement; `{table}` stands for the store's `"namespace"."Item"`.
    let statement: String
    let baselineDescription: String

    static let addAttribute = PostgresCatalogChange(
        name: "pg-add-attribute",
        summary:
            "PostgreSQL: add an optional attribute, 1M vs 100k items (flat in N), and vs psql ALTER TABLE ADD COLUMN",
        v2: Fixture.v2 { $0.append(Attribute("note", .string, isOptional: true)) },
        statement: #"ALTER TABLE {table} ADD COLUMN "note" text COLLATE "C""#,
        baselineDescription: "psql: ALTER TABLE ADD COLUMN")

    static let renameAttribute = PostgresCatalogChange(
        name: "pg-rename-attribute",
        summary:
            "PostgreSQL: rename an attribute (originalName), 1M vs 100k items (flat in N), and vs psql RENAME COLUMN",
        v2: Fixture.v2 { attributes in
            let i = attributes.firstIndex { $0.name == "title" }!
            attributes[i] = Attribute("heading", .string, originalName: "title")
        },
        statement: #"ALTER TABLE {table} RENAME COLUMN "title" TO "heading""#,
        baselineDescription: "psql: ALTER TABLE RENAME COLUMN")

    func run(_ runner: Runner) throws -> [Comparison] {
        guard let server = PostgresStores.serverURL else {
            log("  \(PostgresStores.skipReason)")
            return []
        }
        let stores = try PostgresStores.items(runner, server: server)
        let (s, l) = stores.counts
        let (sameSmall, sameLarge) = (SameResult(), SameResult())
        let m = try stores.measure(
            [
                stores.molt(count: s, to: v2, table: "Item", check: sameSmall),
                stores.molt(count: l, to: v2, table: "Item", check: sameLarge),
                stores.psqlJob(count: s, table: "Item", [statement], check: sameSmall),
                stores.psqlJob(count: l, table: "Item", [statement], check: sameLarge),
            ], repetitions: runner.repetitions)
        let (small, large) = (Runner.label(s), Runner.label(l))
        return [
            Comparison(
                scenario: name, label: "\(large) vs \(small) items", baselineDescription: "Molt on \(small) items",
                molt: m[1], baseline: m[0], target: .below(2)),
            Comparison(
                scenario: name, label: "vs psql, \(small)", baselineDescription: baselineDescription,
                molt: m[0], baseline: m[2], target: nil),
            Comparison(
                scenario: name, label: "vs psql, \(large)", baselineDescription: baselineDescription,
                molt: m[1], baseline: m[3], target: nil),
        ]
    }
}
