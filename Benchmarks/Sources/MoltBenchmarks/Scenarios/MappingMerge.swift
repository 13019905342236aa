import Molt

/// A mapping that merges two attributes into one (`summary = title || ': ' || body`, then `title` and `body`
/// removed) must cost at most 1.15x the one-pass rebuild an engineer would write: the expression computed
/// inside the rebuild's `INSERT … SELECT` (issue 10).
///
/// Molt is `Store.open` with the mapping stage that `molt migrate --mapping` builds from the same JSON; the
/// baseline follows SQLite's table-rebuild procedure (foreign keys off, `CREATE`, `INSERT … SELECT`, `DROP`,
/// `RENAME`, `PRAGMA foreign_key_check(Item)`, commit) in one immediate transaction.
struct MappingMerge: Scenario {
    let name = "mapping-merge"
    let summary = "Mapping merging two attributes into one (1M) vs a hand-written one-pass rebuild"

    static let v2 = Fixture.v2 { attributes in
        attributes.removeAll { $0.name == "title" || $0.name == "body" }
        attributes.insert(Attribute("summary", .string), at: 0)
    }

    static let plan = try! MigrationPlan(
        schemas: [Fixture.v1, v2],
        stages: [
            .mapping(
                from: 1, to: 2, [EntityMapping(destination: "Item", attributes: ["summary": "title || ': ' || body"])])
        ])

    static let rebuild = [
        #"CREATE TABLE "Item_new" ("_id" INTEGER PRIMARY KEY, "summary" TEXT NOT NULL, "count" INTEGER NOT NULL, "score" REAL NOT NULL, "created" REAL NOT NULL, "legacy" TEXT, "folder" INTEGER REFERENCES "Folder"("_id") ON DELETE SET NULL)"#,
        #"INSERT INTO "Item_new" ("_id", "summary", "count", "score", "created", "legacy", "folder") SELECT "_id", "title" || ': ' || "body", "count", "score", "created", "legacy", "folder" FROM "Item""#,
        #"DROP TABLE "Item""#,
        #"ALTER TABLE "Item_new" RENAME TO "Item""#,
    ]

    func run(_ runner: Runner) throws -> [Comparison] {
        let count = runner.largeCount
        let same = SameResult(tables: ["Item"])
        let m = try runner.measure(
            [
                runner.molt(
                    count: count, to: Self.v2, options: Store.Options().migrating(with: Self.plan), check: same),
                runner.baseline(count: count, statements: Self.rebuild, rebuilding: ["Item"], check: same),
            ], repetitions: runner.repetitions)
        log("  \(Runner.label(count)): Molt \(perObject(m[0], count)), rebuild \(perObject(m[1], count)) per object")
        return [
            Comparison(
                scenario: name, label: "merge title + body, \(Runner.label(count))",
                baselineDescription: "one-pass INSERT … SELECT rebuild",
                molt: m[0], baseline: m[1], target: .atMost(1.15))
        ]
    }
}
