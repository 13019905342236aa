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
    let folder: URL
    private var templates: [Int: URL] = [:]
    private var copies = 0

    init(smallCount: Int, largeCount: Int, repetitions: Int) throws {
        self.smallCount = smallCount
        self.largeCount = largeCount
        self.repetitions = repetitions
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("molt-benchmarks-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Repetitions for a store of `count` objects: cheap small runs are repeated more.
    func repetitions(for count: Int) -> Int { count <= smallCount ? max(repetitions, 9) : repetitions }

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
            log("  made template of \(Runner.label(count)) objects in \(format(seconds: (ContinuousClock.now - start).seconds))")
            templates[count] = template
        }
        copies += 1
        let copy = folder.appendingPathComponent("store-\(copies).sqlite")
        try Fixture.copy(template, to: copy)
        return copy
    }

    /// Times `Store.open` migrating a fresh store of `count` objects to `schema`; closing is not timed.
    func measureMolt(count: Int, to schema: Schema, options: Store.Options = Store.Options(), check: ((URL) throws -> Void)? = nil) throws -> Measurement {
        try Stopwatch.measure(repetitions: repetitions(for: count), prepare: { try freshStore(count: count) }) { url, stopwatch in
            let store = try stopwatch.time { try Store.open(at: url, schema: schema, options: options) }
            try store.close()
            try check?(url)
            Fixture.remove(url)
        }
    }

    /// Times what an engineer would write by hand on a fresh store of `count` objects: open a GRDB queue with
    /// Molt's settings, then run `statements` in one immediate transaction (with foreign keys off around it
    /// when `foreignKeysOff`, as SQLite's table-rebuild procedure says); closing is not timed.
    func measureBaseline(
        count: Int, statements: [String], foreignKeysOff: Bool = false, fastSecureDelete: Bool = false,
        check: ((URL) throws -> Void)? = nil
    ) throws -> Measurement {
        try Stopwatch.measure(repetitions: repetitions(for: count), prepare: { try freshStore(count: count) }) { url, stopwatch in
            let queue = try stopwatch.time { () throws -> DatabaseQueue in
                let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
                try queue.writeWithoutTransaction { db in
                    if foreignKeysOff { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
                    if fastSecureDelete { try db.execute(sql: "PRAGMA secure_delete = FAST") }
                    try db.inTransaction(.immediate) {
                        for statement in statements { try db.execute(sql: statement) }
                        if foreignKeysOff {
                            // Step 10 of SQLite's procedure: check what the change could have broken.
                            if try Row.fetchOne(db, sql: "PRAGMA foreign_key_check(Item)") != nil {
                                throw DatabaseError(message: "broken foreign key")
                            }
                        }
                        return .commit
                    }
                    if foreignKeysOff { try db.execute(sql: "PRAGMA foreign_keys = ON") }
                }
                return queue
            }
            try queue.close()
            try check?(url)
            Fixture.remove(url)
        }
    }
}

/// Progress goes to standard error, so that standard output holds only the report.
func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func format(seconds: Double) -> String {
    if seconds.isNaN { return "-" }
    if seconds < 0.001 { return String(format: "%.0f µs", seconds * 1e6) }
    if seconds < 1 { return String(format: "%.1f ms", seconds * 1e3) }
    return String(format: "%.2f s", seconds)
}
