import Molt

/// Widening `Item.count` from int to double: Molt infers it and, on PostgreSQL, emits one
/// `ALTER TABLE "Item" ALTER COLUMN "count" TYPE double precision USING ("count")::double precision`, which
/// rewrites the table. The baseline is psql running that statement in one transaction on the same data:
/// Molt's whole `Store.open` must stay within 1.2x of it, at 100k and at 1M items. A round at 100k takes a
/// fifth of a second, where this machine's noise is proportionally largest: it gets the rounds of the other
/// sub-second measurements (``Runner/cheapRepetitions``), as `enumerate-objects` and `mapping-expression` do.
struct PostgresTypeChange: Scenario {
    let name = "pg-type-change"
    let summary =
        "PostgreSQL: widen int → double (ALTER COLUMN … TYPE … USING), 100k and 1M items, vs the same ALTER via psql"

    static let statement =
        #"ALTER TABLE {table} ALTER COLUMN "count" TYPE double precision USING ("count")::double precision"#

    func run(_ runner: Runner) throws -> [Comparison] {
        guard let server = PostgresStores.serverURL else {
            log("  \(PostgresStores.skipReason)")
            return []
        }
        let v2 = Fixture.v2 { attributes in
            let i = attributes.firstIndex { $0.name == "count" }!
            attributes[i] = Attribute("count", .double)
        }
        let stores = try PostgresStores.items(runner, server: server)
        var comparisons: [Comparison] = []
        for (count, repetitions) in [
            (stores.counts.small, runner.cheapRepetitions), (stores.counts.large, runner.repetitions),
        ] {
            let same = SameResult()
            let m = try stores.measure(
                [
                    stores.molt(count: count, to: v2, table: "Item", check: same),
                    stores.psqlJob(count: count, table: "Item", [Self.statement], check: same),
                ], repetitions: repetitions)
            comparisons.append(
                Comparison(
                    scenario: name, label: "int → double, \(Runner.label(count)) items",
                    baselineDescription: "psql: ALTER COLUMN TYPE … USING",
                    molt: m[0], baseline: m[1], target: .atMost(1.2)))
        }
        return comparisons
    }
}
