import Foundation
import GRDB
import Molt

/// Runs the timed operations of a scenario on fresh copies of template stores kept in a temporary folder.
final class Runner {
    /// Objects in the small store (the "1k" of "1M vs 1k").
    let smallCount: Int
    /// Objects in the large store.
    let largeCount: Int
    /// Repetitions on the large store (each needs a fresh copy of it); the small one gets more.
    let repetitions: Int
    /// The seconds after which a run of Molt that the current code makes catastrophically slow is stopped
    /// (a child process killed), its figure reported as "≥ cap" and not repeated; nil for no cap.
    let cap: Double?
    /// Whether this is a smoke run (`--quick`): small sizes, few rounds; its figures are not measurements.
    let quick: Bool
    /// The options a worker process needs to build a runner like this one.
    let workerArguments: [String]
    let folder: URL
    private var templates: [Int: URL] = [:]
    private var copies = 0

    init(
        smallCount: Int, largeCount: Int, repetitions: Int, cap: Double?, quick: Bool, workerArguments: [String]
    ) throws {
        self.smallCount = smallCount
        self.largeCount = largeCount
        self.repetitions = repetitions
        self.cap = cap
        self.quick = quick
        self.workerArguments = workerArguments
        folder = Runner.folder(of: ProcessInfo.processInfo.processIdentifier)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The scratch folder of the runner of process `pid`.
    static func folder(of pid: Int32) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("molt-benchmarks-\(pid)")
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Repetitions for operations that take milliseconds: more of them, since they are noisier.
    var cheapRepetitions: Int { quick ? repetitions * 2 : max(repetitions * 5, 15) }

    /// A human label for an object count: "1k", "1M".
    static func label(_ count: Int) -> String {
        if count >= 1_000_000, count % 1_000_000 == 0 { return "\(count / 1_000_000)M" }
        if count >= 1_000, count % 1_000 == 0 { return "\(count / 1_000)k" }
        return "\(count)"
    }

    /// A fresh store of `count` objects at version 1, copied from a template made once per run.
    func freshStore(count: Int) throws -> URL {
        let template: URL
        if let existing = templates[count] {
            template = existing
        } else {
            template = folder.appendingPathComponent("template-\(count).sqlite")
            let start = ContinuousClock.now
            try Fixture.create(rows: count, at: template)
            log(
                "  made template of \(Runner.label(count)) objects in \(format(seconds: (ContinuousClock.now - start).seconds))"
            )
            templates[count] = template
        }
        copies += 1
        let copy = folder.appendingPathComponent("store-\(copies).sqlite")
        try Fixture.copy(template, to: copy)
        return copy
    }

    /// One timed operation on a fresh store of `count` objects.
    struct Job {
        var count: Int
        var body: (URL, inout Stopwatch) throws -> Void
    }

    /// Runs the jobs in turn, `repetitions` rounds (A B C, A B C, …), each on a fresh copy of its store, so
    /// that a disturbance on the machine (another process, disk write-back) falls on all of them alike.
    func measure(_ jobs: [Job], repetitions: Int) throws -> [Measurement] {
        try measure(jobs, repetitions: repetitions, freshStore: freshStore(count:))
    }

    /// The same, with stores made by `freshStore` (a scenario's own fixture) instead of the runner's.
    ///
    /// A job that reached the time cap is not run again: its one sample (the cap) is a lower bound.
    ///
    /// Every round runs each job once, in the listed order on even rounds and the reverse on odd ones: a job
    /// runs right after another one's allocations and frees (the heap, the page cache), and alternating gives
    /// every job both positions, so that neither Molt nor its baseline always inherits the other's memory.
    func measure(_ jobs: [Job], repetitions: Int, freshStore: (Int) throws -> URL) throws -> [Measurement] {
        var results = jobs.map { _ in Measurement(samples: []) }
        for round in 0..<repetitions {
            let order = round.isMultiple(of: 2) ? Array(jobs.indices) : Array(jobs.indices.reversed())
            for i in order where !results[i].capped {
                let job = jobs[i]
                let url = try freshStore(job.count)
                var stopwatch = Stopwatch()
                try job.body(url, &stopwatch)
                Fixture.remove(url)
                results[i].samples.append(stopwatch.elapsed.seconds)
                if let peak = stopwatch.peakMemoryMiB { results[i].peakSamples.append(peak) }
                if stopwatch.capped {
                    results[i].capped = true
                    log("  a run reached the \(format(seconds: cap ?? 0)) cap and was stopped; it is not repeated")
                }
            }
        }
        return results
    }

    /// `Store.open` migrating a store of `count` objects to `schema`; closing the store is not timed.
    func molt(count: Int, to schema: Schema, options: Store.Options = Store.Options(), check: SameResult? = nil) -> Job
    {
        Job(count: count) { url, stopwatch in
            let store = try stopwatch.time { try Store.open(at: url, schema: schema, options: options) }
            try store.close()
            try check?.check(url)
        }
    }

    /// What an engineer would write by hand, on a store of `count` objects: open a GRDB queue with Molt's
    /// settings, then run `statements` in one immediate transaction. When `rebuilding` names tables, foreign
    /// keys are off around it and those tables' links are checked before commit, as SQLite's table-rebuild
    /// procedure says. Closing is not timed.
    func baseline(
        count: Int, statements: [String], rebuilding: [String] = [], fastSecureDelete: Bool = false,
        check: SameResult? = nil
    ) -> Job {
        Job(count: count) { url, stopwatch in
            let queue = try stopwatch.time { () throws -> DatabaseQueue in
                let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
                try queue.writeWithoutTransaction { db in
                    if !rebuilding.isEmpty { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
                    if fastSecureDelete { try db.execute(sql: "PRAGMA secure_delete = FAST") }
                    try db.inTransaction(.immediate) {
                        for statement in statements { try db.execute(sql: statement) }
                        for table in rebuilding
                        where try Row.fetchOne(db, sql: "PRAGMA foreign_key_check(\"\(table)\")") != nil {
                            throw BenchmarkError(description: "the hand-written rebuild broke a link of \(table)")
                        }
                        return .commit
                    }
                    if !rebuilding.isEmpty { try db.execute(sql: "PRAGMA foreign_keys = ON") }
                }
                return queue
            }
            try queue.close()
            try check?.check(url)
        }
    }
}

/// Progress goes to standard error, so that standard output holds only the report.
func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func format(seconds: Double) -> String {
    if seconds.isNaN { return "-" }
    if seconds < 0.000_01 { return String(format: "%.2f µs", seconds * 1e6) }
    if seconds < 0.001 { return String(format: "%.0f µs", seconds * 1e6) }
    if seconds < 1 { return String(format: "%.1f ms", seconds * 1e3) }
    return String(format: "%.2f s", seconds)
}
