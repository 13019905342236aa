import Foundation
import Molt

/// `molt migrate` adding an optional attribute must take the same time (within noise: ≤ 1.2x) on 3M objects
/// as on 10k (issue 10): `ALTER TABLE ADD COLUMN` rewrites no row, so nothing of the command should grow
/// with the store (today it counts every entity's objects before and after).
///
/// The release `molt` is timed as a child process from spawn to exit, on fresh copies of the memo store; for
/// information, the `sqlite3` tool running the same `ALTER TABLE` on the 3M store. The `Item` table of both
/// 3M stores must have the same shape after each round.
struct MigrateCLIFlat: Scenario {
    let name = "migrate-cli-flat"
    let summary = "molt migrate adding an attribute: 3M vs 10k objects (CLI, child process), and vs sqlite3 ALTER TABLE"

    func run(_ runner: Runner) throws -> [Comparison] {
        let molt = try ChildProcess.moltBinary()
        let sqlite3 = try ChildProcess.sqlite3Binary()
        let snapshot = runner.folder.appendingPathComponent("migrate-cli-v2.json")
        try Fixture.v2 { $0.append(Attribute("note", .string, isOptional: true)) }.snapshotJSON().write(to: snapshot)
        let (small, large) = (max(runner.largeCount / 100, 1), runner.largeCount * 3)
        let same = SameResult()
        func migrate(_ count: Int, check: SameResult?) -> Runner.Job {
            Runner.Job(count: count) { url, stopwatch in
                try stopwatch.timeProcess(molt, ["migrate", url.path, "--to", snapshot.path])
                try check?.check(url)
            }
        }
        let m = try runner.measure([
            migrate(small, check: nil),
            migrate(large, check: same),
            Runner.Job(count: large) { url, stopwatch in
                try stopwatch.timeProcess(sqlite3, [url.path, #"ALTER TABLE "Item" ADD COLUMN "note" TEXT"#])
                try same.check(url)
            },
        ], repetitions: runner.cheapRepetitions)
        let (s, l) = (Runner.label(small), Runner.label(large))
        return [
            Comparison(scenario: name, label: "molt migrate, \(l) vs \(s) objects", baselineDescription: "molt migrate on \(s) objects",
                       molt: m[1], baseline: m[0], target: .atMost(1.2)),
            Comparison(scenario: name, label: "molt migrate, \(l)", baselineDescription: "sqlite3 ALTER TABLE ADD COLUMN",
                       molt: m[1], baseline: m[2], target: nil),
        ]
    }
}
