import Dispatch
import Foundation
import GRDB
import Molt

/// Observed queries against GRDB's `ValueObservation`, on the same table in WAL files (issue 24):
///
/// - **latency**: 200 commits of one object each, each followed by a wait until the observed `COUNT(*)` is
///   delivered with the new count: the time from commit to delivered result, summed. GRDB observes the same
///   count with `ValueObservation.tracking`, delivered on a dispatch queue (`.async(onQueue:)`), as Molt does.
/// - **throughput**: 1,000 commits of one object each with 10 observations of the table active (5 counts and 5
///   fetches of the 10 newest objects), until every observation has delivered the last count, against the same
///   commits with none.
struct Observations: Scenario {
    let name = "observations"
    let summary =
        "Commit-to-result latency of an observed count vs GRDB ValueObservation; commits with 10 observations vs none"

    static let schema = Schema(version: 1, entities: [Entity("Item", attributes: [Attribute("title", .string)])])

    /// The last value delivered, and a wait for a given one.
    final class Delivered: @unchecked Sendable {
        private let condition = NSCondition()
        private var value = -1

        func set(_ new: Int) {
            condition.lock()
            value = max(value, new)
            condition.broadcast()
            condition.unlock()
        }

        func wait(for target: Int) throws {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date().addingTimeInterval(60)
            while value < target {
                guard condition.wait(until: deadline) else {
                    throw BenchmarkError(description: "no result \(target) within 60 s (last: \(value))")
                }
            }
        }
    }

    static func moltStore(_ url: URL) throws -> Store {
        var options = Store.Options()
        options.journalMode = .wal
        return try Store.open(at: url, schema: schema, options: options)
    }

    static func grdbQueue(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: #"CREATE TABLE "Item" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "title" TEXT NOT NULL)"#)
        }
        return queue
    }

    /// Molt: `commits` one-object commits, each waited for until `observers` observations delivered it.
    func molt(commits: Int, observers: Int, waitEach: Bool) -> Runner.Job {
        Runner.Job(count: 0) { url, stopwatch in
            let store = try Self.moltStore(url)
            let delivered = (0..<observers).map { _ in Delivered() }
            let tokens = delivered.enumerated().map { index, box in
                index % 2 == 0
                    ? store.observe { try $0.count("Item") }.start { box.set($0) }
                    : store.observe { objects in
                        try objects.fetch("Item", orderBy: [.descending("_id")], limit: 10).first?.id.map(Int.init) ?? 0
                    }.start { box.set($0) }
            }
            for box in delivered { try box.wait(for: 0) }
            try stopwatch.time {
                for i in 1...commits {
                    try store.write { _ = try $0.insert("Item", ["title": "item"]) }
                    if waitEach { for box in delivered { try box.wait(for: i) } }
                }
                for box in delivered { try box.wait(for: commits) }
            }
            withExtendedLifetime(tokens) {}
            try store.close()
        }
    }

    /// GRDB: the same with `ValueObservation`s of the same reads.
    func grdb(commits: Int, observers: Int, waitEach: Bool) -> Runner.Job {
        Runner.Job(count: 0) { url, stopwatch in
            let queue = try Self.grdbQueue(url)
            let delivered = (0..<observers).map { _ in Delivered() }
            let cancellables = delivered.enumerated().map { index, box in
                let sql =
                    index % 2 == 0
                    ? #"SELECT COUNT(*) FROM "Item""# : #"SELECT "id" FROM "Item" ORDER BY "id" DESC LIMIT 10"#
                return ValueObservation.tracking { try Int.fetchOne($0, sql: sql) ?? 0 }
                    .start(
                        in: queue, scheduling: .async(onQueue: DispatchQueue(label: "grdb.observation")),
                        onError: { _ in }, onChange: { box.set($0) })
            }
            for box in delivered { try box.wait(for: 0) }
            try stopwatch.time {
                for i in 1...commits {
                    try queue.write { try $0.execute(sql: #"INSERT INTO "Item" ("title") VALUES ('item')"#) }
                    if waitEach { for box in delivered { try box.wait(for: i) } }
                }
                for box in delivered { try box.wait(for: commits) }
            }
            withExtendedLifetime(cancellables) {}
            try queue.close()
        }
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let (latencyCommits, throughputCommits) = runner.quick ? (50, 200) : (200, 1_000)
        let jobs = [
            molt(commits: latencyCommits, observers: 1, waitEach: true),
            grdb(commits: latencyCommits, observers: 1, waitEach: true),
            molt(commits: throughputCommits, observers: 10, waitEach: false),
            molt(commits: throughputCommits, observers: 0, waitEach: false),
            grdb(commits: throughputCommits, observers: 10, waitEach: false),
            molt(commits: latencyCommits, observers: 0, waitEach: true),
            grdb(commits: latencyCommits, observers: 0, waitEach: true),
        ]
        let m = try runner.measure(jobs, repetitions: runner.cheapRepetitions) { _ in
            runner.folder.appendingPathComponent("observations-\(UUID().uuidString).sqlite")
        }
        return [
            Comparison(
                scenario: name, label: "\(latencyCommits) commits, each until its count is delivered",
                baselineDescription: "GRDB ValueObservation, delivered on a dispatch queue",
                molt: m[0], baseline: m[1], target: .atMost(1.2)),
            Comparison(
                scenario: name, label: "\(throughputCommits) one-object commits, 10 observations",
                baselineDescription: "the same commits with no observation",
                molt: m[2], baseline: m[3], target: .atMost(1.3)),
            Comparison(
                scenario: name, label: "\(throughputCommits) one-object commits, 10 observations",
                baselineDescription: "GRDB, 10 ValueObservations of the same reads",
                molt: m[2], baseline: m[4], target: nil),
            // The commits alone, without observation: what the latency rows spend writing rather than observing.
            Comparison(
                scenario: name, label: "\(latencyCommits) one-object commits, no observation",
                baselineDescription: "GRDB, raw INSERT", molt: m[5], baseline: m[6], target: nil),
        ]
    }
}
