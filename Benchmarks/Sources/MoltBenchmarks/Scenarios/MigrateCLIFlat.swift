import Foundation
import Molt

/// `molt migrate` adding an optional attribute must take the same time (within noise: ≤ 1.2x) on 3M objects
/// as on 10k (issue 10): `ALTER TABLE ADD COLUMN` rewrites no row, so nothing of the command's own work should
/// grow with the store.
///
/// By default `molt migrate` first checks the whole store (issue 11: detect damage before the first write):
/// SQLite's `quick_check`, which reads every page, and every link (`foreign_key_check`), a cost that grows with
/// the file by design and that `--skip-check` skips. So the target is judged on `molt migrate --skip-check`;
/// the default command is reported for information, beside `sqlite3 STORE "PRAGMA quick_check" "PRAGMA
/// foreign_key_check"` on the same 3M file (the check's own cost) and the `sqlite3` tool running the same
/// `ALTER TABLE`.
///
/// The release `molt` is timed as a child process from spawn to exit, on fresh copies of the memo store. The
/// `Item` table of every 3M store must have the same shape after each round.
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
        func migrate(_ count: Int, skippingCheck: Bool, check: SameResult?) -> Runner.Job {
            Runner.Job(count: count) { url, stopwatch in
                try stopwatch.timeProcess(molt, ["migrate", url.path, "--to", snapshot.path] + (skippingCheck ? ["--skip-check"] : []))
                try check?.check(url)
            }
        }
        let m = try runner.measure([
            migrate(small, skippingCheck: true, check: nil),
            migrate(large, skippingCheck: true, check: same),
            migrate(large, skippingCheck: false, check: same),
            Runner.Job(count: large) { url, stopwatch in
                try stopwatch.timeProcess(sqlite3, [url.path, "PRAGMA quick_check", "PRAGMA foreign_key_check"])
            },
            Runner.Job(count: large) { url, stopwatch in
                try stopwatch.timeProcess(sqlite3, [url.path, #"ALTER TABLE "Item" ADD COLUMN "note" TEXT"#])
                try same.check(url)
            },
        ], repetitions: runner.cheapRepetitions)
        let (s, l) = (Runner.label(small), Runner.label(large))
        return [
            Comparison(scenario: name, label: "molt migrate --skip-check, \(l) vs \(s) objects", baselineDescription: "the same on \(s) objects",
                       molt: m[1], baseline: m[0], target: .atMost(1.2)),
            Comparison(scenario: name, label: "molt migrate --skip-check, \(l)", baselineDescription: "sqlite3 ALTER TABLE ADD COLUMN",
                       molt: m[1], baseline: m[4], target: nil),
            Comparison(scenario: name, label: "molt migrate (store checked first), \(l)", baselineDescription: "sqlite3 quick_check, foreign_key_check",
                       molt: m[2], baseline: m[3], target: nil),
        ]
    }
}
