import Foundation

/// `molt export` of a store of 1M items, each with a to-one and a to-many link, must cost at most 3x
/// `sqlite3 -json` writing the same objects from the same file, with a peak resident memory of at most 64 MiB
/// (issue 10).
///
/// Both are child processes timed from spawn to exit, their standard output (or `.once` files) on disk;
/// `ru_maxrss` gives each one's peak. The baseline is one `sqlite3 -json` process with one query per entity,
/// each item's tags gathered by a subquery on the join table's primary key. After each round, `sqlite3`
/// sums every field of both outputs (untimed): the summaries must be equal.
struct Export: Scenario {
    let name = "export"
    let summary = "molt export of 1M items with a to-one and a to-many link vs sqlite3 -json; peak RSS ≤ 64 MiB"

    static let queries = [
        ("Folder", "SELECT _id, name FROM Folder ORDER BY _id"),
        ("Tag", "SELECT _id, name FROM Tag ORDER BY _id"),
        (
            "Item",
            """
            SELECT _id, title, body, count, score, created, legacy, folder,
                   (SELECT json_group_array(target) FROM (SELECT target FROM Item_tags WHERE owner = Item._id ORDER BY rowid)) AS tags
            FROM Item ORDER BY _id
            """
        ),
    ]

    func run(_ runner: Runner) throws -> [Comparison] {
        let count = runner.largeCount
        let stores = LinkedStore.stores(runner)
        let molt = try ChildProcess.moltBinary()
        let sqlite3 = try ChildProcess.sqlite3Binary()
        let same = SameResult(tables: [])
        let output = runner.folder.appendingPathComponent("export")
        let entities = Self.queries.map(\.0)

        let moltJob = Runner.Job(count: count) { url, stopwatch in
            let file = output.appendingPathExtension("molt.json")
            defer { try? FileManager.default.removeItem(at: file) }
            try stopwatch.timeProcess(molt, ["export", url.path], stdout: file, cap: runner.cap)
            guard !stopwatch.capped else { return }
            try same.compare(
                LinkedStore.jsonSummary(entities.map { ($0, file, "$.entities.\($0)") }, scratch: runner.folder))
        }
        let baselineJob = Runner.Job(count: count) { url, stopwatch in
            let files = entities.map { output.appendingPathExtension("\($0).json") }
            defer { for file in files { try? FileManager.default.removeItem(at: file) } }
            let commands = zip(Self.queries, files).flatMap { query, file in [".once \(file.path)", query.1] }
            try stopwatch.timeProcess(sqlite3, ["-json", url.path] + commands)
            try same.compare(
                LinkedStore.jsonSummary(zip(entities, files).map { ($0, $1, "$") }, scratch: runner.folder))
        }
        let m = try stores.measure([moltJob, baselineJob], repetitions: runner.repetitions)
        let label = Runner.label(count)
        log("  \(label): molt export \(perObject(m[0], count)), sqlite3 -json \(perObject(m[1], count)) per object")
        return [
            Comparison(
                scenario: name, label: "export \(label) items (to-one + to-many)",
                baselineDescription: "sqlite3 -json, one query per entity",
                molt: m[0], baseline: m[1], target: .atMost(3)),
            Comparison(
                scenario: name, label: "peak RSS, export \(label)", baselineDescription: "sqlite3 -json (peak RSS)",
                molt: m[0].peaks, baseline: m[1].peaks, target: .atMost(mebibytes: 64)),
        ]
    }
}
