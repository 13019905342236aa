import Foundation
import GRDB
import Molt

/// Typed upserts against the hand-written `INSERT … ON CONFLICT DO UPDATE` on a cached statement (issue 24):
/// 100k codes upserted into a store that holds the first half of them already, so half the statements update
/// and half insert, in one transaction, on identical copies of the store.
///
/// - **Molt**: `objects.upsert(item, uniqueBy: \.code)` per item (the model conforms to `PersistentModel` by
///   hand, as `@Model` expands it), which also reads back the identifier (`RETURNING "_id"`).
/// - **Baseline**: one GRDB cached statement, `INSERT INTO "Item" (…) VALUES (?, ?, ?, ?) ON CONFLICT ("code")
///   DO UPDATE SET … = excluded.…`, arguments set unchecked, executed per item, no identifier read back; and,
///   for information, the same with `RETURNING "_id"` read back as Molt does.
struct Upsert: Scenario {
    let name = "upsert"
    let summary = "Typed upsert of 100k objects (half new) vs a hand-written INSERT … ON CONFLICT DO UPDATE"

    /// What `@Model struct Item { @Attribute(.unique) var code: String; var title: String; var count: Int;
    /// var score: Double }` expands to.
    struct Item: PersistentModel {
        var code: String
        var title: String
        var count: Int
        var score: Double
        var persistentID: Int64? = nil

        init(code: String, title: String, count: Int, score: Double) {
            (self.code, self.title, self.count, self.score) = (code, title, count, score)
        }

        static let entity = Entity(
            "Item",
            attributes: [
                Attribute("code", .string), Attribute("title", .string), Attribute("count", .int),
                Attribute("score", .double),
            ], indexes: [Index(["code"], unique: true)])

        init(row: ModelRow) throws {
            persistentID = row.id
            code = try row.value(at: 0)
            title = try row.value(at: 1)
            count = try row.value(at: 2)
            score = try row.value(at: 3)
        }

        func encode(to columns: inout ModelColumns) {
            columns.append(code)
            columns.append(title)
            columns.append(count)
            columns.append(score)
        }

        static func propertyName(for keyPath: PartialKeyPath<Item>) -> String? {
            keyPath == \Item.code ? "code" : keyPath == \Item.title ? "title" : nil
        }
    }

    static let schema = Schema(version: 1, entities: [Item.entity])
    static let sql = """
        INSERT INTO "Item" ("code", "title", "count", "score") VALUES (?, ?, ?, ?) \
        ON CONFLICT ("code") DO UPDATE SET "title" = excluded."title", "count" = excluded."count", \
        "score" = excluded."score"
        """

    static func items(_ n: Int) -> [Item] {
        (0..<n).map { Item(code: "C\($0)", title: "Upserted item \($0)", count: $0 * 2, score: Double($0) / 3) }
    }

    /// A store made by Molt holding the first `n / 2` codes, with other titles, counts and scores.
    static func makeTemplate(_ n: Int, at url: URL) throws {
        Fixture.remove(url)
        var options = Store.Options()
        options.journalMode = .wal
        try Store.open(at: url, schema: schema, options: options).close()
        let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x + 1 < ?)
                    INSERT INTO "Item" ("code", "title", "count", "score") SELECT 'C' || x, 'Old ' || x, x, 0.5 FROM n
                    """, arguments: [n / 2])
        }
        try queue.close()
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let n = runner.quick ? 10_000 : 100_000
        let items = Self.items(n)
        let template = runner.folder.appendingPathComponent("upsert-template.sqlite")
        try Self.makeTemplate(n, at: template)
        let same = SameResult(tables: ["Item"])
        let molt = Runner.Job(count: n) { url, stopwatch in
            var options = Store.Options()
            options.journalMode = .wal
            let store = try Store.open(at: url, schema: Self.schema, options: options)
            let last = try stopwatch.time {
                try store.write { objects in
                    var last: Item?
                    for item in items { last = try objects.upsert(item, uniqueBy: \.code) }
                    return last
                }
            }
            let stored = try store.read {
                try $0.fetch(Item.self, where: .dynamic(.equal("code", .string("C\(n - 1)"))))
            }
            try store.close()
            guard let id = last?.persistentID, stored.map(\.persistentID) == [id] else {
                throw BenchmarkError(description: "Molt's last upsert returned another identifier than it stored")
            }
            try same.check(url)
        }
        func handWritten(returning: Bool) -> Runner.Job {
            Runner.Job(count: n) { url, stopwatch in
                var configuration = Fixture.configuration
                configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
                let queue = try DatabaseQueue(path: url.path, configuration: configuration)
                try stopwatch.time {
                    try queue.write { db in
                        if returning {
                            let statement = try db.cachedStatement(sql: Self.sql + #" RETURNING "_id""#)
                            for item in items {
                                statement.setUncheckedArguments([item.code, item.title, item.count, item.score])
                                guard try Int64.fetchOne(statement) != nil else {
                                    throw BenchmarkError(description: "RETURNING gave no identifier")
                                }
                            }
                        } else {
                            let statement = try db.cachedStatement(sql: Self.sql)
                            for item in items {
                                statement.setUncheckedArguments([item.code, item.title, item.count, item.score])
                                try statement.execute()
                            }
                        }
                    }
                }
                try queue.close()
                try same.check(url)
            }
        }
        var copies = 0
        let m = try runner.measure(
            [molt, handWritten(returning: false), handWritten(returning: true)], repetitions: runner.cheapRepetitions
        ) { _ in
            copies += 1
            let copy = runner.folder.appendingPathComponent("upsert-\(copies).sqlite")
            try Fixture.copy(template, to: copy)
            return copy
        }
        return [
            Comparison(
                scenario: name, label: "upsert \(Runner.label(n)) typed objects, half new",
                baselineDescription: "GRDB cached INSERT … ON CONFLICT DO UPDATE",
                molt: m[0], baseline: m[1], target: .atMost(1.3)),
            Comparison(
                scenario: name, label: "upsert \(Runner.label(n)) typed objects, half new",
                baselineDescription: "the same, RETURNING \"_id\" read back",
                molt: m[0], baseline: m[2], target: nil),
        ]
    }
}
