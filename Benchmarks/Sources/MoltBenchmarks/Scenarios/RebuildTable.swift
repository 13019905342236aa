import Molt

/// Widening an integer attribute to a double needs the table rebuilt (SQLite cannot change a column's type).
/// The baseline is SQLite's documented rebuild procedure, written by hand: foreign keys off, one transaction,
/// `CREATE` the new table, `INSERT … SELECT` with the cast, `DROP` the old one, `RENAME` the new one, check the
/// rebuilt table's foreign keys, commit.
///
/// Both run twice: with `secure_delete` at the SQLite build's default (on here, so the dropped table's pages
/// are zeroed), and with `secure_delete = FAST` (Molt's `options.secureDelete = .fast`).
struct RebuildTable: Scenario {
    let name = "rebuild-table"
    let summary = "Widen int → double (a table rebuild): Molt vs a hand-written INSERT … SELECT rebuild"

    static let rebuild = [
        #"CREATE TABLE "Item_new" ("_id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "body" TEXT NOT NULL, "count" REAL NOT NULL, "score" REAL NOT NULL, "created" REAL NOT NULL, "legacy" TEXT, "folder" INTEGER REFERENCES "Folder"("_id") ON DELETE SET NULL)"#,
        #"INSERT INTO "Item_new" ("_id", "title", "body", "count", "score", "created", "legacy", "folder") SELECT "_id", "title", "body", CAST("count" AS REAL), "score", "created", "legacy", "folder" FROM "Item""#,
        #"DROP TABLE "Item""#,
        #"ALTER TABLE "Item_new" RENAME TO "Item""#,
    ]

    func run(_ runner: Runner) throws -> [Comparison] {
        let v2 = Fixture.v2 { attributes in
            let i = attributes.firstIndex { $0.name == "count" }!
            attributes[i] = Attribute("count", .double)
        }
        let count = runner.largeCount
        var fast = Store.Options()
        fast.secureDelete = .fast
        var result: [Comparison] = []
        for (label, options, isFast) in [
            ("secure_delete default", Store.Options(), false), ("secure_delete FAST", fast, true),
        ] {
            let same = SameResult()
            let m = try runner.measure(
                [
                    runner.molt(count: count, to: v2, options: options, check: same),
                    runner.baseline(
                        count: count, statements: Self.rebuild, rebuilding: ["Item"], fastSecureDelete: isFast,
                        check: same),
                ], repetitions: runner.repetitions)
            result.append(
                Comparison(
                    scenario: name, label: "\(Runner.label(count)), \(label)",
                    baselineDescription: "hand-written INSERT … SELECT rebuild",
                    molt: m[0], baseline: m[1], target: .atMost(1.3)))
        }
        return result
    }
}
