import Foundation
import GRDB
import Molt

/// Typed models against GRDB on the same rows: inserting N values in one transaction, and fetching them all
/// back. The targets are against GRDB's fast idioms, which an engineer who cares writes: a cached statement
/// with its arguments set per row for the insert, and a `FetchableRecord` whose `init(row:)` reads columns by
/// index for the fetch. GRDB's Codable records (`FetchableRecord & PersistableRecord`, a dictionary per
/// record) are reported for information: they are its slowest idiom (issue 10).
///
/// The Molt model conforms to `PersistentModel` by hand, exactly as `@Model` expands it, so the benchmark
/// package does not build swift-syntax. Both stores use WAL with `synchronous = NORMAL` and store dates as
/// seconds since 1970.
///
/// **The baselines' table is `INTEGER PRIMARY KEY AUTOINCREMENT`**, as Molt's is since identifiers are never
/// handed out again (issue 20): SQLite then reads and writes `sqlite_sequence` in every `INSERT` statement,
/// which a plain `INTEGER PRIMARY KEY` does not. That is the same work and the same guarantee, and the idiom
/// GRDB itself offers for it (`t.autoIncrementedPrimaryKey("id")`), so the targets are judged against it. The
/// cached insert into a plain `INTEGER PRIMARY KEY` table (ids of deleted rows may come back) is reported for
/// information: the price of the guarantee in SQLite itself, which no library on top of it can avoid.
struct TypedRecords: Scenario {
    let name = "typed-records"
    let summary = "Typed insert and fetch of 1M objects vs GRDB's cached statement and init(row:) (and Codable records)"

    /// What `@Model struct TypedItem { var title: String; var body: String; var count: Int; var score: Double;
    /// var created: Date; var legacy: String? }` expands to.
    struct TypedItem: PersistentModel, Equatable {
        var title: String
        var body: String
        var count: Int
        var score: Double
        var created: Date
        var legacy: String?
        var persistentID: Int64? = nil

        init(title: String, body: String, count: Int, score: Double, created: Date, legacy: String?) {
            (self.title, self.body, self.count, self.score, self.created, self.legacy) = (
                title, body, count, score, created, legacy
            )
        }

        static let entity = Entity(
            "TypedItem",
            attributes: [
                Attribute("title", .string), Attribute("body", .string), Attribute("count", .int),
                Attribute("score", .double), Attribute("created", .date),
                Attribute("legacy", .string, isOptional: true),
            ])

        init(row: ModelRow) throws {
            persistentID = row.id
            title = try row.value(at: 0)
            body = try row.value(at: 1)
            count = try row.value(at: 2)
            score = try row.value(at: 3)
            created = try row.value(at: 4)
            legacy = try row.value(at: 5)
        }

        func encode(to columns: inout ModelColumns) {
            columns.append(title)
            columns.append(body)
            columns.append(count)
            columns.append(score)
            columns.append(created)
            columns.append(legacy)
        }

        static func propertyName(for keyPath: PartialKeyPath<TypedItem>) -> String? {
            if keyPath == \TypedItem.title { return "title" }
            if keyPath == \TypedItem.count { return "count" }
            return nil
        }
    }

    /// The same row as a GRDB Codable record.
    struct GRDBItem: Codable, FetchableRecord, PersistableRecord, Equatable {
        static let databaseTableName = "GRDBItem"
        static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.timeIntervalSince1970
        static let databaseDateDecodingStrategy = DatabaseDateDecodingStrategy.timeIntervalSince1970
        var id: Int64?
        var title: String
        var body: String
        var count: Int
        var score: Double
        var created: Date
        var legacy: String?
    }

    /// The same row read by column index, GRDB's fastest way to fetch records.
    struct GRDBRowItem: FetchableRecord, Equatable {
        var id: Int64
        var title: String
        var body: String
        var count: Int
        var score: Double
        var created: Date
        var legacy: String?

        init(row: Row) throws {
            id = row[0]
            title = row[1]
            body = row[2]
            count = row[3]
            score = row[4]
            created = Date(timeIntervalSince1970: row[5])
            legacy = row[6]
        }
    }

    static let insertSQL =
        #"INSERT INTO "GRDBItem" ("title", "body", "count", "score", "created", "legacy") VALUES (?, ?, ?, ?, ?, ?)"#

    /// Inserts the records through one cached statement, arguments set without GRDB's per-call validation.
    static func insertCached(_ records: [GRDBItem], _ db: Database) throws {
        let statement = try db.cachedStatement(sql: insertSQL)
        for r in records {
            statement.setUncheckedArguments([
                r.title, r.body, r.count, r.score, r.created.timeIntervalSince1970, r.legacy,
            ])
            try statement.execute()
        }
    }

    static func items(_ count: Int) -> [TypedItem] {
        (0..<count).map { i in
            TypedItem(
                title: "Item \(i)", body: "Body of item number \(i), some text", count: i, score: Double(i) / 7,
                created: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)),
                legacy: i % 3 == 0 ? nil : "legacy \(i)")
        }
    }

    /// A GRDB store with the `GRDBItem` table, its key `AUTOINCREMENT` (never handing an id out again, as
    /// Molt's) unless `autoIncrement` is false.
    static func grdbQueue(at url: URL, autoIncrement: Bool = true) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS "GRDBItem" ("id" INTEGER PRIMARY KEY\(autoIncrement ? " AUTOINCREMENT" : ""), "title" TEXT NOT NULL, "body" TEXT NOT NULL,
                    "count" INTEGER NOT NULL, "score" REAL NOT NULL, "created" REAL NOT NULL, "legacy" TEXT)
                    """)
        }
        return queue
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let n = runner.largeCount
        let typed = Self.items(n)
        let records = typed.map {
            GRDBItem(
                id: nil, title: $0.title, body: $0.body, count: $0.count, score: $0.score, created: $0.created,
                legacy: $0.legacy)
        }
        let schema = Schema(version: 1, entities: [TypedItem.entity])
        func file(_ url: URL, _ name: String) -> URL {
            url.deletingLastPathComponent().appendingPathComponent("\(name)-\(UUID().uuidString).sqlite")
        }
        func remove(_ url: URL) {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }

        let moltInsert = Runner.Job(count: runner.smallCount) { scratch, stopwatch in
            let url = file(scratch, "typed")
            defer { remove(url) }
            let store = try Store.open(at: url, schema: schema)
            try stopwatch.time { try store.write { objects in for item in typed { try objects.insert(item) } } }
            guard try store.read({ try $0.count(TypedItem.self) }) == n else {
                throw BenchmarkError(description: "Molt inserted the wrong count")
            }
            try store.close()
        }
        let grdbInsert = Runner.Job(count: runner.smallCount) { scratch, stopwatch in
            let url = file(scratch, "grdb")
            defer { remove(url) }
            let queue = try Self.grdbQueue(at: url)
            try stopwatch.time { try queue.write { db in for record in records { try record.insert(db) } } }
            guard try queue.read({ try GRDBItem.fetchCount($0) }) == n else {
                throw BenchmarkError(description: "GRDB inserted the wrong count")
            }
            try queue.close()
        }
        func grdbCachedInsert(autoIncrement: Bool) -> Runner.Job {
            Runner.Job(count: runner.smallCount) { scratch, stopwatch in
                let url = file(scratch, "grdb")
                defer { remove(url) }
                let queue = try Self.grdbQueue(at: url, autoIncrement: autoIncrement)
                try stopwatch.time { try queue.write { db in try Self.insertCached(records, db) } }
                guard try queue.read({ try GRDBItem.fetchCount($0) }) == n else {
                    throw BenchmarkError(description: "GRDB inserted the wrong count")
                }
                try queue.close()
            }
        }
        let moltFetch = Runner.Job(count: runner.smallCount) { scratch, stopwatch in
            let url = file(scratch, "typed")
            defer { remove(url) }
            let store = try Store.open(at: url, schema: schema)
            try store.write { objects in for item in typed { try objects.insert(item) } }
            let fetched = try stopwatch.time { try store.read { try $0.fetch(TypedItem.self) } }
            guard fetched.count == n,
                fetched.last.map({
                    var t = typed[n - 1]; t.persistentID = Int64(n); return $0 == t
                }) ?? true
            else {
                throw BenchmarkError(description: "Molt fetched other values")
            }
            try store.close()
        }
        let grdbFetch = Runner.Job(count: runner.smallCount) { scratch, stopwatch in
            let url = file(scratch, "grdb")
            defer { remove(url) }
            let queue = try Self.grdbQueue(at: url)
            try queue.write { db in try Self.insertCached(records, db) }  // setup: the fastest way
            let fetched = try stopwatch.time { try queue.read { try GRDBItem.fetchAll($0) } }
            guard fetched.count == n,
                fetched.last.map({
                    var r = records[n - 1]; r.id = Int64(n); return $0 == r
                }) ?? true
            else {
                throw BenchmarkError(description: "GRDB fetched other values")
            }
            try queue.close()
        }
        let grdbRowFetch = Runner.Job(count: runner.smallCount) { scratch, stopwatch in
            let url = file(scratch, "grdb")
            defer { remove(url) }
            let queue = try Self.grdbQueue(at: url)
            try queue.write { db in try Self.insertCached(records, db) }
            let fetched = try stopwatch.time {
                try queue.read { try GRDBRowItem.fetchAll($0, sql: #"SELECT * FROM "GRDBItem""#) }
            }
            let last = records[n - 1]
            guard fetched.count == n,
                fetched.last.map({ [$0.title, $0.legacy] == [last.title, last.legacy] && $0.created == last.created })
                    ?? true
            else {
                throw BenchmarkError(description: "GRDB fetched other values")
            }
            try queue.close()
        }
        let m = try runner.measure(
            [
                moltInsert, grdbCachedInsert(autoIncrement: true), grdbInsert, moltFetch, grdbRowFetch, grdbFetch,
                grdbCachedInsert(autoIncrement: false),
            ],
            repetitions: runner.repetitions)
        let label = Runner.label(n)
        return [
            Comparison(
                scenario: name, label: "insert \(label) typed objects",
                baselineDescription: "GRDB cached statement, unchecked arguments",
                molt: m[0], baseline: m[1], target: .atMost(1.3)),
            Comparison(
                scenario: name, label: "insert \(label) typed objects",
                baselineDescription: "the same, plain INTEGER PRIMARY KEY",
                molt: m[0], baseline: m[6], target: nil),
            Comparison(
                scenario: name, label: "insert \(label) typed objects",
                baselineDescription: "GRDB Codable records, insert(db)",
                molt: m[0], baseline: m[2], target: nil),
            Comparison(
                scenario: name, label: "fetch \(label) typed objects",
                baselineDescription: "GRDB init(row:) by column index, fetchAll",
                molt: m[3], baseline: m[4], target: .atMost(1.3)),
            Comparison(
                scenario: name, label: "fetch \(label) typed objects",
                baselineDescription: "GRDB Codable records, fetchAll(db)",
                molt: m[3], baseline: m[5], target: nil),
        ]
    }
}
