import Foundation
import Molt

/// The custom stage of `enumerate-objects` on PostgreSQL: `enumerateObjects(ofType: "Person") { old, new in
/// new["fullName"] = … }` adding a computed `fullName` to 100k and 1M people. Molt's whole `Store.open` must
/// stay within 1.5x of the hand-written loop over postgres-nio (``PostgresCursorLoop``: a server-side cursor,
/// one `UPDATE … FROM unnest(…)` per batch of 1,024) on the same data, in the same run.
struct PostgresEnumerateObjects: Scenario {
    let name = "pg-enumerate-objects"
    let summary = "PostgreSQL: enumerateObjects computing fullName, 100k and 1M people, vs a postgres-nio cursor loop"

    func run(_ runner: Runner) throws -> [Comparison] {
        guard let server = PostgresStores.serverURL else {
            log("  \(PostgresStores.skipReason)")
            return []
        }
        let stores = try PostgresStores.people(runner, server: server)
        let options = Store.Options().migrating(with: People.enumeratePlan)
        var comparisons: [Comparison] = []
        for count in [stores.counts.small, stores.counts.large] {
            let same = SameResult(table: "Person")
            func check(_ url: URL) throws {
                let wrong = try stores.sql([
                    #"SELECT count(*) FROM \#(PostgresStores.table("Person", in: url)) WHERE "fullName" IS DISTINCT FROM "firstName" || ' ' || "lastName""#
                ])
                guard wrong == "0" else {
                    throw BenchmarkError(description: "\(wrong) people have a wrong fullName in \(url)")
                }
                try same.compare(try stores.shape(of: "Person", at: url))
            }
            let m = try stores.measure(
                [
                    Runner.Job(count: count) { url, stopwatch in
                        let store = try stopwatch.time {
                            try Store.open(at: .postgres(url), schema: People.v2, options: options)
                        }
                        try store.close()
                        try check(url)
                    },
                    Runner.Job(count: count) { url, stopwatch in
                        let namespace = PostgresStores.namespace(of: url)
                        try stopwatch.time {
                            try blocking { try await PostgresCursorLoop.run(server: server, namespace: namespace) }
                        }
                        try check(url)
                    },
                ], repetitions: runner.repetitions)
            comparisons.append(
                Comparison(
                    scenario: name, label: "enumerateObjects, \(Runner.label(count))",
                    baselineDescription: "postgres-nio cursor, UPDATE … FROM unnest per 1,024", molt: m[0],
                    baseline: m[1], target: .atMost(1.5)))
            log(
                "  \(Runner.label(count)): Molt \(perObject(m[0], count)), postgres-nio loop \(perObject(m[1], count)) per object"
            )
        }
        return comparisons
    }
}
