import Foundation
import GRDB
import Molt

/// `molt import` of 1M items with a to-one and a to-many link into a new store must cost at most 3x a
/// hand-written GRDB import on cached statements, with a peak resident memory of at most 64 MiB (issue 10).
///
/// The input is a `molt export` file of the linked store (written once per run, untimed). Molt is the CLI as
/// a child process, timed from spawn to exit, creating the store. The baseline, in this process, opens an
/// empty store that Molt made at the same schema (a copy: creating it takes milliseconds) with Molt's settings
/// and runs ``ImportByHand``: the file read once by a streaming scanner, every object and link inserted
/// through one cached statement per table, in one immediate transaction. After each round both stores must
/// have the same fingerprint (every table's columns, row count and sums over every value).
struct Import: Scenario {
    let name = "import"
    let summary =
        "molt import of 1M items with a to-one and a to-many link vs a GRDB cached-statement import; peak RSS ≤ 64 MiB"

    func run(_ runner: Runner) throws -> [Comparison] {
        let count = runner.largeCount
        let stores = LinkedStore.stores(runner)
        let molt = try ChildProcess.moltBinary()
        let data = runner.folder.appendingPathComponent("import-data.json")
        let schema = runner.folder.appendingPathComponent("import-schema.json")
        try LinkedStore.writeDataFile(from: try stores.template(count: count), to: data)
        try LinkedStore.schema.snapshotJSON().write(to: schema)
        let same = SameResult(tables: LinkedStore.tables)

        let moltJob = Runner.Job(count: 0) { url, stopwatch in
            Fixture.remove(url)  // molt import creates the store
            try stopwatch.timeProcess(molt, ["import", url.path, "--schema", schema.path, data.path], cap: runner.cap)
            if !stopwatch.capped { try same.check(url) }
        }
        let baselineJob = Runner.Job(count: 0) { url, stopwatch in
            let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
            try stopwatch.time { try ImportByHand.run(data, schema: LinkedStore.schema, into: queue) }
            try queue.close()
            try same.check(url)
        }
        let m = try stores.measure([moltJob, baselineJob], repetitions: runner.repetitions)
        let label = Runner.label(count)
        log("  \(label): molt import \(perObject(m[0], count)), GRDB \(perObject(m[1], count)) per object")
        return [
            Comparison(
                scenario: name, label: "import \(label) items (to-one + to-many)",
                baselineDescription: "GRDB cached statements, streaming scan",
                molt: m[0], baseline: m[1], target: .atMost(3)),
            Comparison(
                scenario: name, label: "peak RSS, import \(label)", baselineDescription: "GRDB import (peak RSS)",
                molt: m[0].peaks, baseline: m[1].peaks, target: .atMost(mebibytes: 64)),
        ]
    }
}
