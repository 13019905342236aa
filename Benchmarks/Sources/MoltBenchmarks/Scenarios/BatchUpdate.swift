import Foundation
import GRDB
import Molt

/// A batch update by predicate against the `UPDATE` an engineer would write by hand (issue 24): every one of
/// the 1M items of the fixture store gets a new score and legacy text, on identical copies of the store.
///
/// - **Molt**: `Store.open` (not timed), then `objects.updateAll("Item", where: .greaterOrEqual("count", 0),
///   set: ["score": 1.5, "legacy": "archived"])` in one `store.write` (its transaction and commit timed).
/// - **Baseline**: a GRDB queue with the settings Molt's open store runs with (WAL, `synchronous = NORMAL`,
///   foreign keys on), `UPDATE "Item" SET "score" = ?, "legacy" = ? WHERE "count" >= ?` in one write.
struct BatchUpdate: Scenario {
    let name = "batch-update"
    let summary = "updateAll on every one of 1M items vs the hand-written UPDATE"

    static func check(_ same: SameResult) -> (URL) throws -> Void {
        { url in try same.compare(try Fixture.fingerprint(of: ["Item"], at: url)) }
    }

    func molt(count: Int, check: @escaping (URL) throws -> Void) -> Runner.Job {
        Runner.Job(count: count) { url, stopwatch in
            let store = try Store.open(at: url, schema: Fixture.v1)
            let updated = try stopwatch.time {
                try store.write {
                    try $0.updateAll(
                        "Item", where: .greaterOrEqual("count", 0), set: ["score": 1.5, "legacy": "archived"])
                }
            }
            try store.close()
            guard updated == count else { throw BenchmarkError(description: "Molt updated \(updated) of \(count)") }
            try check(url)
        }
    }

    func handWritten(count: Int, check: @escaping (URL) throws -> Void) -> Runner.Job {
        Runner.Job(count: count) { url, stopwatch in
            var configuration = Fixture.configuration
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            try stopwatch.time {
                try queue.write { db in
                    try db.execute(
                        sql: #"UPDATE "Item" SET "score" = ?, "legacy" = ? WHERE "count" >= ?"#,
                        arguments: [1.5, "archived", 0])
                }
            }
            try queue.close()
            try check(url)
        }
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let n = runner.largeCount
        let same = SameResult(tables: ["Item"])
        let m = try runner.measure(
            [molt(count: n, check: Self.check(same)), handWritten(count: n, check: Self.check(same))],
            repetitions: runner.repetitions)
        return [
            Comparison(
                scenario: name, label: "update \(Runner.label(n)) objects by predicate",
                baselineDescription: "hand-written UPDATE … WHERE, GRDB",
                molt: m[0], baseline: m[1], target: .atMost(1.1))
        ]
    }
}
