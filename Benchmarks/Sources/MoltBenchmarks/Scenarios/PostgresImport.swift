import Foundation
import Molt

/// `molt import` into PostgreSQL (issue 21): 1M items and their 100 folders, from a `molt export` file,
/// creating the store, must cost at most 1.5× `psql` loading the same rows with `\copy` from CSV files into an
/// empty store Molt made at the same schema, in the same run.
///
/// Both files are written once per run, untimed, from the formulas that fill the PostgreSQL templates
/// (``PostgresStores/items(_:server:)``), so the rows are the same; both sides are timed from spawn to exit of
/// their program (the `molt` CLI; `psql --single-transaction` with two `\copy`s). After each round the `Item` table
/// must have the same columns, row count and object 7 on both sides.
struct PostgresImport: Scenario {
    let name = "pg-import"
    let summary = "PostgreSQL: molt import of 1M items creating the store vs psql \\copy of the same rows"

    func run(_ runner: Runner) throws -> [Comparison] {
        guard let server = PostgresStores.serverURL else {
            log("  \(PostgresStores.skipReason)")
            return []
        }
        let count = runner.largeCount
        let stores = try PostgresStores(runner, server: server, name: "import", schema: Fixture.v1) { _, _ in [] }
        let molt = try ChildProcess.moltBinary()
        let files = try Self.writeFiles(count: count, in: runner.folder)
        let same = SameResult(table: "Item")
        let m = try stores.measure(
            [
                Runner.Job(count: 0) { url, stopwatch in
                    // molt import creates the store: the empty one made for the round goes first, untimed.
                    _ = try stores.sql([
                        "DROP SCHEMA \(PostgresStores.quote(PostgresStores.namespace(of: url))) CASCADE"
                    ])
                    try stopwatch.timeProcess(
                        molt, ["import", url.absoluteString, "--schema", files.schema.path, files.data.path],
                        cap: runner.cap)
                    if !stopwatch.capped { try same.compare(try stores.shape(of: "Item", at: url)) }
                },
                Runner.Job(count: 0) { url, stopwatch in
                    let folder = PostgresStores.table("Folder", in: url)
                    let item = PostgresStores.table("Item", in: url)
                    try stopwatch.timeProcess(
                        stores.psql,
                        stores.psqlArguments(
                            [
                                #"\copy \#(folder) ("_id", "name") FROM '\#(files.folders.path)' CSV"#,
                                #"\copy \#(item) ("_id", "title", "body", "count", "score", "created", "legacy", "folder") FROM '\#(files.items.path)' CSV"#,
                                "SELECT setval(pg_get_serial_sequence('\(item)', '_id'), \(count))",
                                "SELECT setval(pg_get_serial_sequence('\(folder)', '_id'), 100)",
                            ], transaction: true))
                    try same.compare(try stores.shape(of: "Item", at: url))
                },
            ], repetitions: runner.repetitions)
        let label = Runner.label(count)
        log("  \(label): molt import \(perObject(m[0], count)), psql \\copy \(perObject(m[1], count)) per object")
        return [
            Comparison(
                scenario: name, label: "import \(label) items (to-one)",
                baselineDescription: "psql \\copy of the same rows (CSV)",
                molt: m[0], baseline: m[1], target: .atMost(1.5))
        ]
    }

    /// The export file, its schema snapshot, and the two CSV files of the same rows.
    static func writeFiles(count: Int, in folder: URL) throws -> (data: URL, schema: URL, folders: URL, items: URL) {
        let (data, schema) = (
            folder.appendingPathComponent("pg-import.json"), folder.appendingPathComponent("pg-import-schema.json")
        )
        let (folders, items) = (
            folder.appendingPathComponent("pg-folders.csv"), folder.appendingPathComponent("pg-items.csv")
        )
        try Fixture.v1.snapshotJSON().write(to: schema)
        var json = #"{"format":"molt-data","formatVersion":1,"schemaVersion":1,"entities":{"Folder":["#
        var csv = ""
        for x in 1...100 {
            let name = String(format: "Folder %03d", x)
            json += (x > 1 ? "," : "") + #"{"_id":\#(x),"name":"\#(name)"}"#
            csv += "\(x),\(name)\n"
        }
        json += #"],"Item":["#
        try Data(csv.utf8).write(to: folders)
        FileManager.default.createFile(atPath: items.path, contents: nil)
        FileManager.default.createFile(atPath: data.path, contents: nil)
        let (jsonHandle, csvHandle) = (try FileHandle(forWritingTo: data), try FileHandle(forWritingTo: items))
        defer { try? jsonHandle.close(); try? csvHandle.close() }
        csv = ""
        for x in 1...max(count, 1) where count > 0 {
            let n = String(format: "%08d", x)
            let (title, body, legacy) = (
                "Memo number \(n)", "Body of memo \(n), some words", String(format: "L%06d", x % 1_000_000)
            )
            let (score, created, folder) = (Double(x) * 0.5, 1_700_000_000.0 + Double(x), x % 100 + 1)
            json +=
                (x > 1 ? "," : "")
                + #"{"_id":\#(x),"title":"\#(title)","body":"\#(body)","count":\#(x % 1000),"score":\#(score),"created":\#(created),"legacy":"\#(legacy)","folder":\#(folder)}"#
            csv += "\(x),\(title),\"\(body)\",\(x % 1000),\(score),\(created),\(legacy),\(folder)\n"
            if json.utf8.count > 1 << 20 {
                jsonHandle.write(Data(json.utf8))
                csvHandle.write(Data(csv.utf8))
                (json, csv) = ("", "")
            }
        }
        json += "]}}\n"
        jsonHandle.write(Data(json.utf8))
        csvHandle.write(Data(csv.utf8))
        return (data, schema, folders, items)
    }
}
