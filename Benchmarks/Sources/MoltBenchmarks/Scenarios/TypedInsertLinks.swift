import Foundation
import GRDB
import Molt

/// Inserting 1M typed items, each with a to-one `folder` whose inverse is the folder's to-many `items`, must
/// cost at most 1.3x GRDB's cached-statement insert of the same rows and links (issue 10).
///
/// Both sides write, in one transaction on a copy of an empty store that Molt made at the schema, 100 folders
/// then the items: Molt with `objects.insert(_:)` of models conforming to `PersistentModel` by hand (as
/// `@Model` expands them, so that swift-syntax stays out of this package), which fills the `folder` column and
/// the inverse's join table `Folder_items`; the baseline with three cached statements (folder, item with its
/// `folder` column, join-table row), arguments set without GRDB's per-call validation. Both connections run
/// as Molt opens a store (WAL, `synchronous = NORMAL`, foreign keys on). Molt runs in a worker process so that
/// the cap can stop it (each insert re-prepares the statements of the inverse today); after each round both
/// stores must have the same fingerprint. Reported at 20k (the issue's size, for information) and 1M.
struct TypedInsertLinks: WorkerJobs {
    let name = "typed-insert-links"
    let summary =
        "Typed insert of 1M items with a to-one + inverse vs GRDB's cached-statement insert of the same rows and links"

    /// What `@Model struct Folder { var name: String; @Relationship(inverse: "folder") var items: ToMany<Item> }`
    /// expands to.
    struct Folder: PersistentModel {
        var name: String
        var items: ToMany<Item> = []
        var persistentID: Int64? = nil

        init(name: String) { self.name = name }

        static let entity = Entity(
            "Folder", attributes: [Attribute("name", .string)],
            relationships: [Relationship("items", toMany: "Item", inverse: "folder")])

        init(row: ModelRow) throws {
            persistentID = row.id
            name = try row.value(at: 0)
            items = .init(ownerID: row.id)
        }

        func encode(to columns: inout ModelColumns) { columns.append(name) }

        static func propertyName(for keyPath: PartialKeyPath<Folder>) -> String? {
            if keyPath == \Folder.name { return "name" }
            if keyPath == \Folder.items { return "items" }
            return nil
        }
    }

    /// What `@Model struct Item { …; @Relationship(inverse: "items") var folder: ToOne<Folder> }` expands to, with
    /// typed-records' item as its attributes.
    struct Item: PersistentModel {
        var values: TypedRecords.TypedItem
        var folder: ToOne<Folder>
        var persistentID: Int64? = nil

        init(values: TypedRecords.TypedItem, folder: ToOne<Folder>) { (self.values, self.folder) = (values, folder) }

        static let entity = Entity(
            "Item", attributes: TypedRecords.TypedItem.entity.attributes,
            relationships: [Relationship("folder", to: "Folder", inverse: "items")])

        init(row: ModelRow) throws {
            persistentID = row.id
            values = try TypedRecords.TypedItem(row: row)
            folder = try .read(from: row, at: Self.entity.attributes.count)
        }

        func encode(to columns: inout ModelColumns) {
            values.encode(to: &columns)
            folder.write(to: &columns)
        }

        static func propertyName(for keyPath: PartialKeyPath<Item>) -> String? {
            if keyPath == \Item.folder { return "folder" }
            return nil
        }
    }

    static let schema = Schema(version: 1, entities: [Folder.entity, Item.entity])
    static let folders = 100

    /// The items, folder `i % 100 + 1` for item `i` (folders get identifiers 1…100, inserted first).
    static func items(_ count: Int) -> [Item] {
        TypedRecords.items(count).enumerated().map { i, values in
            Item(values: values, folder: ToOne(id: Int64(i % folders + 1)))
        }
    }

    func job(_ name: String, count: Int, runner: Runner) throws -> Runner.Job {
        guard name == "molt" else { throw BenchmarkError(description: "no job \(name) in \(self.name)") }
        return Runner.Job(count: count) { url, stopwatch in
            let items = Self.items(count)
            let store = try Store.open(at: url, schema: Self.schema)
            try stopwatch.time {
                try store.write { objects in
                    for i in 1...Self.folders { try objects.insert(Folder(name: "Folder \(i)")) }
                    for item in items { try objects.insert(item) }
                }
            }
            try store.close()
        }
    }

    /// GRDB's fastest insert of the same rows and links, on a connection set up as Molt's.
    static func grdb(count: Int) -> Runner.Job {
        Runner.Job(count: count) { url, stopwatch in
            let items = Self.items(count)
            var configuration = Fixture.configuration
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            try stopwatch.time {
                try queue.write { db in
                    let folder = try db.cachedStatement(sql: #"INSERT INTO "Folder" ("name") VALUES (?)"#)
                    for i in 1...Self.folders {
                        folder.setUncheckedArguments(["Folder \(i)"])
                        try folder.execute()
                    }
                    let item = try db.cachedStatement(
                        sql:
                            #"INSERT INTO "Item" ("title", "body", "count", "score", "created", "legacy", "folder") VALUES (?, ?, ?, ?, ?, ?, ?)"#
                    )
                    let link = try db.cachedStatement(
                        sql: #"INSERT INTO "Folder_items" ("owner", "target") VALUES (?, ?)"#)
                    for i in items {
                        let v = i.values
                        item.setUncheckedArguments([
                            v.title, v.body, v.count, v.score, v.created.timeIntervalSince1970, v.legacy, i.folder.id,
                        ])
                        try item.execute()
                        link.setUncheckedArguments([i.folder.id, db.lastInsertedRowID])
                        try link.execute()
                    }
                }
            }
            try queue.close()
        }
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let stores = TemplateStores(runner, name: "typed-links") { _, url in
            try Store.open(at: url, schema: Self.schema).close()
        }
        var comparisons: [Comparison] = []
        for count in [max(runner.largeCount / 50, 1), runner.largeCount] {
            let same = SameResult(tables: ["Folder", "Item", "Folder_items"])
            let m = try runner.measure(
                [
                    runner.inWorker(self, "molt", count: count, check: same.check),
                    Runner.Job(count: count) { url, stopwatch in
                        try Self.grdb(count: count).body(url, &stopwatch)
                        try same.check(url)
                    },
                ], repetitions: runner.repetitions, freshStore: { _ in try stores.freshStore(count: 0) })
            let label = Runner.label(count)
            log("  \(label): Molt \(perObject(m[0], count)), GRDB \(perObject(m[1], count)) per object")
            comparisons.append(
                Comparison(
                    scenario: name, label: "insert \(label) items with to-one + inverse",
                    baselineDescription: "GRDB cached statements, same rows and links",
                    molt: m[0], baseline: m[1], target: count == runner.largeCount ? .atMost(1.3) : nil))
        }
        return comparisons
    }
}
