import Foundation
import GRDB
import Molt

/// An `enumerateObjects` stage over rows of 1 MiB must stay within 64 MiB of peak resident memory, at 200 rows
/// and at 2,000 (issue 10): batches bounded by rows alone hold a thousand megabyte rows at once.
///
/// The store holds `Blob(name, payload)` with a 1 MiB `payload` per object (2,000 rows make a 2 GiB file);
/// version 2 adds an optional `size` that the stage sets to the payload's length, reading each payload in
/// Swift. The baseline is the loop an engineer would write with GRDB: `ALTER TABLE ADD COLUMN`, a row cursor
/// over `_id, payload`, an `UPDATE` by `_id` per row, in one immediate transaction. Each run is in a worker
/// process of its own (peak `VmHWM` over the timed part); every `size` is checked after each round.
struct EnumerateBigRows: WorkerJobs {
    let name = "enumerate-big-rows"
    let summary = "Peak memory of enumerateObjects over 1 MiB rows, 200 and 2,000 rows, vs a GRDB cursor loop; ≤ 64 MiB"

    static let payloadBytes = 1 << 20

    static let v1 = Schema(version: 1) {
        Entity("Blob") {
            Attribute("name", .string)
            Attribute("payload", .data)
        }
    }

    static let v2 = Schema(version: 2) {
        Entity("Blob") {
            Attribute("name", .string)
            Attribute("payload", .data)
            Attribute("size", .int, isOptional: true)
        }
    }

    static let plan = try! MigrationPlan(
        schemas: [v1, v2],
        stages: [
            .custom(from: 1, to: 2) { migration in
                try migration.enumerateObjects(ofType: "Blob") { old, new in
                    new["size"] = .int(Int64(old["payload"].data?.count ?? -1))
                }
            }
        ])

    static func create(rows: Int, at url: URL) throws {
        try Store.open(at: url, schema: v1).close()
        let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)
                    INSERT INTO Blob (_id, name, payload) SELECT x, printf('blob %05d', x), zeroblob(?) FROM n
                    """, arguments: [rows, payloadBytes])
        }
        try queue.close()
    }

    /// Every `size` must be its payload's length; then the table must match Molt's.
    static func check(_ same: SameResult) -> (URL) throws -> Void {
        { url in
            let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
            let wrong = try queue.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Blob WHERE size IS NOT length(payload)") ?? -1
            }
            try queue.close()
            guard wrong == 0 else {
                throw BenchmarkError(description: "\(wrong) blobs have a wrong size at \(url.lastPathComponent)")
            }
            try same.check(url)
        }
    }

    func job(_ name: String, count: Int, runner: Runner) throws -> Runner.Job {
        switch name {
        case "molt":
            return Runner.Job(count: count) { url, stopwatch in
                let store = try stopwatch.time {
                    try Store.open(at: url, schema: Self.v2, options: Store.Options().migrating(with: Self.plan))
                }
                try store.close()
            }
        case "grdb":
            return Runner.Job(count: count) { url, stopwatch in
                let queue = try stopwatch.time { () throws -> DatabaseQueue in
                    let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
                    try queue.writeWithoutTransaction { db in
                        try db.inTransaction(.immediate) {
                            try db.execute(sql: #"ALTER TABLE "Blob" ADD COLUMN "size" INTEGER"#)
                            let update = try db.makeStatement(sql: #"UPDATE "Blob" SET "size" = ? WHERE "_id" = ?"#)
                            let rows = try Row.fetchCursor(db, sql: #"SELECT "_id", "payload" FROM "Blob""#)
                            while let row = try rows.next() {
                                let id: Int64 = row[0]
                                let payload: Data = row[1]
                                try update.execute(arguments: [payload.count, id])
                            }
                            return .commit
                        }
                    }
                    return queue
                }
                try queue.close()
            }
        default:
            throw BenchmarkError(description: "no job \(name) in \(self.name)")
        }
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let stores = TemplateStores(runner, name: "blobs") { try Self.create(rows: $0, at: $1) }
        var comparisons: [Comparison] = []
        for rows in runner.quick ? [10, 40] : [200, 2_000] {
            let same = SameResult(tables: ["Blob"])
            let m = try stores.measure(
                [
                    runner.inWorker(self, "molt", count: rows, capped: false, check: Self.check(same)),
                    runner.inWorker(self, "grdb", count: rows, capped: false, check: Self.check(same)),
                ], repetitions: runner.repetitions)
            let label = "\(rows) rows of 1 MiB"
            comparisons += [
                Comparison(
                    scenario: name, label: "peak RSS, \(label)", baselineDescription: "GRDB row cursor, UPDATE by _id",
                    molt: m[0].peaks, baseline: m[1].peaks, target: .atMost(mebibytes: 64)),
                Comparison(
                    scenario: name, label: "time, \(label)", baselineDescription: "GRDB row cursor, UPDATE by _id",
                    molt: m[0], baseline: m[1], target: nil),
            ]
        }
        return comparisons
    }
}
