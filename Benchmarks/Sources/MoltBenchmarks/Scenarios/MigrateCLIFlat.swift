import Foundation
import Molt

/// `molt migrate` adding an optional attribute, the whole process timed from spawn to exit, on fresh copies of
/// the memo store. Two targets:
///
/// - **Flat in N** (issue 10): `molt migrate --skip-check` takes the same time (within noise: ≤ 1.2x) on 3M
///   objects as on 10k: `ALTER TABLE ADD COLUMN` rewrites no row, so nothing of the command's own work should
///   grow with the store.
/// - **Close to `sqlite3`** (issue 20): the default command, its check before writing included, ≤ 3x the
///   `sqlite3` tool running the same `ALTER TABLE` on the same 1M file. The check covers the tables the run
///   reads whole or rewrites (`Migrator.tablesReadWhole`); adding a column reads none, so what is left is the
///   command's fixed cost: process start-up, reading the snapshot and the store's metadata, planning,
///   validation, the history row, the commit. `molt check` still checks everything.
///
/// The binary is the one `ChildProcess.moltBinary()` finds; its build (runtime linked statically or not,
/// PostgreSQL in it or not) is in the first row's label, because start-up is most of what this command costs.
/// The README's install line for SQLite stores builds it with `--static-swift-stdlib --disable-default-traits`.
///
/// The default command at 3M is reported beside `sqlite3` at 3M for information. The `Item` table of every 1M
/// and 3M store must have the same shape after each round.
struct MigrateCLIFlat: Scenario {
    let name = "migrate-cli-flat"
    let summary = "molt migrate adding an attribute: 1M vs sqlite3 ALTER TABLE, 3M vs 10k objects (CLI, child process)"

    func run(_ runner: Runner) throws -> [Comparison] {
        let molt = try ChildProcess.moltBinary()
        let sqlite3 = try ChildProcess.sqlite3Binary()
        let snapshot = runner.folder.appendingPathComponent("migrate-cli-v2.json")
        try Fixture.v2 { $0.append(Attribute("note", .string, isOptional: true)) }.snapshotJSON().write(to: snapshot)
        let (small, medium, large) = (max(runner.largeCount / 100, 1), runner.largeCount, runner.largeCount * 3)
        let (sameMedium, sameLarge) = (SameResult(), SameResult())
        func migrate(_ count: Int, skippingCheck: Bool, check: SameResult?) -> Runner.Job {
            Runner.Job(count: count) { url, stopwatch in
                try stopwatch.timeProcess(
                    molt, ["migrate", url.path, "--to", snapshot.path] + (skippingCheck ? ["--skip-check"] : []))
                try check?.check(url)
            }
        }
        func alter(_ count: Int, check: SameResult) -> Runner.Job {
            Runner.Job(count: count) { url, stopwatch in
                try stopwatch.timeProcess(sqlite3, [url.path, #"ALTER TABLE "Item" ADD COLUMN "note" TEXT"#])
                try check.check(url)
            }
        }
        let m = try runner.measure(
            [
                migrate(medium, skippingCheck: false, check: sameMedium),
                alter(medium, check: sameMedium),
                migrate(small, skippingCheck: true, check: nil),
                migrate(large, skippingCheck: true, check: sameLarge),
                migrate(large, skippingCheck: false, check: sameLarge),
                alter(large, check: sameLarge),
            ], repetitions: runner.cheapRepetitions)
        let (s, mid, l) = (Runner.label(small), Runner.label(medium), Runner.label(large))
        let build = MoltBinary.describe(molt)
        return [
            Comparison(
                scenario: name, label: "molt migrate, \(mid) (\(build))",
                baselineDescription: "sqlite3 ALTER TABLE ADD COLUMN",
                molt: m[0], baseline: m[1], target: .atMost(3)),
            Comparison(
                scenario: name, label: "molt migrate --skip-check, \(l) vs \(s) objects",
                baselineDescription: "the same on \(s) objects",
                molt: m[3], baseline: m[2], target: .atMost(1.2)),
            Comparison(
                scenario: name, label: "molt migrate --skip-check, \(l)",
                baselineDescription: "sqlite3 ALTER TABLE ADD COLUMN",
                molt: m[3], baseline: m[5], target: nil),
            Comparison(
                scenario: name, label: "molt migrate, \(l)", baselineDescription: "sqlite3 ALTER TABLE ADD COLUMN",
                molt: m[4], baseline: m[5], target: nil),
        ]
    }
}
