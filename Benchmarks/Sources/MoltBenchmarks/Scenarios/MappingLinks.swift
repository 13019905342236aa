import Foundation
import GRDB
import Molt

/// Mappings that create objects and link them must grow linearly: the per-object cost at 1M (and 100k) at most
/// 1.5x the per-object cost at 10k (issue 10), for a split and for a merge of four entities into one.
///
/// - **split**: `Person(firstName, lastName, street, city)` becomes `Person(firstName, lastName, address)` and
///   `Address(street, city)`: one mapping makes an `Address` per person, another links each person to it.
/// - **merge**: `WineNote`, `BookNote`, `FilmNote` and `PlaceNote` (each `title`, `body` and a to-one `folder`)
///   become one `Note` with a `kind`: four mappings, each linking its notes to their folder through the old
///   `folder` column (`sourceKey`), and an in-place mapping of `Folder` for the links to point to.
///
/// Molt is `Store.open` with the mapping stage, run in a worker process so that the time cap can stop it (the
/// current link phase is quadratic). Each baseline is the one pass an engineer would write in SQL: new tables
/// filled by `INSERT … SELECT` that carries the links directly (the split rebuilds `Person` with foreign keys
/// off and checks its links, as SQLite's procedure says). Every size is reported per object, Molt's and the
/// hand-written SQL's; both stores must have the same fingerprint after each round.
struct MappingLinks: WorkerJobs {
    let name = "mapping-links"
    let summary = "Split and merge-four-into-one mappings with links at 10k, 100k, 1M: per-object cost must stay flat"

    enum Shape: String, CaseIterable {
        case split, merge

        var v1: Schema {
            switch self {
            case .split:
                return Schema(version: 1) {
                    Entity("Person") {
                        Attribute("firstName", .string)
                        Attribute("lastName", .string)
                        Attribute("street", .string)
                        Attribute("city", .string)
                    }
                }
            case .merge:
                return Schema(
                    version: 1,
                    entities: [Entity("Folder", attributes: [Attribute("name", .string)])]
                        + MappingLinks.kinds.map { entity, _ in
                            Entity(
                                entity, attributes: [Attribute("title", .string), Attribute("body", .string)],
                                relationships: [Relationship("folder", to: "Folder")])
                        })
            }
        }

        var v2: Schema {
            switch self {
            case .split:
                return Schema(version: 2) {
                    Entity("Person") {
                        Attribute("firstName", .string)
                        Attribute("lastName", .string)
                        Relationship("address", to: "Address")
                    }
                    Entity("Address") {
                        Attribute("street", .string)
                        Attribute("city", .string)
                    }
                }
            case .merge:
                return Schema(version: 2) {
                    Entity("Folder") {
                        Attribute("name", .string)
                    }
                    Entity("Note") {
                        Attribute("title", .string)
                        Attribute("body", .string)
                        Attribute("kind", .string)
                        Relationship("folder", to: "Folder")
                    }
                }
            }
        }

        var mappings: [EntityMapping] {
            switch self {
            case .split:
                return [
                    EntityMapping(
                        destination: "Address", source: "Person", attributes: ["street": "street", "city": "city"]),
                    EntityMapping(destination: "Person", links: [.init(relationship: "address", to: "Address")]),
                ]
            case .merge:
                return [EntityMapping(destination: "Folder")]
                    + MappingLinks.kinds.map { entity, kind in
                        EntityMapping(
                            destination: "Note", source: entity,
                            attributes: ["title": "title", "body": "body", "kind": "'\(kind)'"],
                            links: [.init(relationship: "folder", to: "Folder", sourceKey: "folder")])
                    }
            }
        }

        var plan: MigrationPlan { try! MigrationPlan(schemas: [v1, v2], stages: [.mapping(from: 1, to: 2, mappings)]) }

        /// The tables whose fingerprints must agree.
        var tables: [String] { self == .split ? ["Person", "Address"] : ["Folder", "Note"] }

        /// Creates a store of `count` objects at version 1 (people; or notes spread over the four entities).
        func create(rows count: Int, at url: URL) throws {
            try Store.open(at: url, schema: v1).close()
            let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
            try queue.write { db in
                switch self {
                case .split:
                    try db.execute(
                        sql: """
                            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)
                            INSERT INTO Person (_id, firstName, lastName, street, city)
                            SELECT x, printf('First%d', x % 977), printf('Lastname%07d', x), printf('%d Long Street', x % 9999), printf('City %03d', x % 300)
                            FROM n
                            """, arguments: [count])
                case .merge:
                    try db.execute(
                        sql: """
                            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100)
                            INSERT INTO Folder (_id, name) SELECT x, printf('Folder %03d', x) FROM n
                            """)
                    for (index, (entity, _)) in MappingLinks.kinds.enumerated() {
                        try db.execute(
                            sql: """
                                WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)
                                INSERT INTO \(entity) (_id, title, body, folder)
                                SELECT x, printf('Note %08d', x), printf('Body of note %08d, some words', x), x % 100 + 1
                                FROM n WHERE x % 4 = ?
                                """, arguments: [count, index])
                    }
                }
            }
            try queue.close()
        }

        /// The hand-written one pass.
        var statements: [String] {
            switch self {
            case .split:
                return [
                    #"CREATE TABLE "Address" ("_id" INTEGER PRIMARY KEY, "street" TEXT NOT NULL, "city" TEXT NOT NULL)"#,
                    #"INSERT INTO "Address" ("_id", "street", "city") SELECT ROW_NUMBER() OVER (ORDER BY "_id"), "street", "city" FROM "Person""#,
                    #"CREATE TABLE "Person_new" ("_id" INTEGER PRIMARY KEY, "firstName" TEXT NOT NULL, "lastName" TEXT NOT NULL, "address" INTEGER REFERENCES "Address"("_id") ON DELETE SET NULL)"#,
                    #"INSERT INTO "Person_new" ("_id", "firstName", "lastName", "address") SELECT "_id", "firstName", "lastName", ROW_NUMBER() OVER (ORDER BY "_id") FROM "Person""#,
                    #"DROP TABLE "Person""#,
                    #"ALTER TABLE "Person_new" RENAME TO "Person""#,
                ]
            case .merge:
                return [
                    #"CREATE TABLE "Note" ("_id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "body" TEXT NOT NULL, "kind" TEXT NOT NULL, "folder" INTEGER REFERENCES "Folder"("_id") ON DELETE SET NULL)"#
                ]
                    + MappingLinks.kinds.map { entity, kind in
                        #"INSERT INTO "Note" ("title", "body", "kind", "folder") SELECT "title", "body", '\#(kind)', "folder" FROM "\#(entity)" ORDER BY "_id""#
                    }
                    + MappingLinks.kinds.map { entity, _ in #"DROP TABLE "\#(entity)""# }
            }
        }
    }

    /// The four merged entities and the `kind` each becomes.
    static let kinds = [("WineNote", "wine"), ("BookNote", "book"), ("FilmNote", "film"), ("PlaceNote", "place")]

    func job(_ name: String, count: Int, runner: Runner) throws -> Runner.Job {
        guard let shape = Shape(rawValue: name) else {
            throw BenchmarkError(description: "no job \(name) in \(self.name)")
        }
        return runner.molt(count: count, to: shape.v2, options: Store.Options().migrating(with: shape.plan))
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let sizes = [runner.largeCount / 100, runner.largeCount / 10, runner.largeCount].map { max($0, 1) }
        var comparisons: [Comparison] = []
        for shape in Shape.allCases {
            let stores = TemplateStores(runner, name: shape.rawValue) { try shape.create(rows: $0, at: $1) }
            var costs: [Measurement] = []
            for count in sizes {
                let same = SameResult(tables: shape.tables)
                let m = try stores.measure(
                    [
                        runner.inWorker(self, shape.rawValue, count: count, check: same.check),
                        runner.baseline(
                            count: count, statements: shape.statements, rebuilding: shape == .split ? ["Person"] : [],
                            check: same),
                    ], repetitions: runner.repetitions)
                let label = Runner.label(count)
                log(
                    "  \(shape.rawValue), \(label): Molt \(perObject(m[0], count)), SQL \(perObject(m[1], count)) per object"
                )
                costs.append(m[0].perObject(count))
                comparisons.append(
                    Comparison(
                        scenario: name, label: "\(shape.rawValue), per object, \(label)",
                        baselineDescription: "one pass by hand in SQL",
                        molt: m[0].perObject(count), baseline: m[1].perObject(count), target: nil))
            }
            for (index, count) in sizes.enumerated().dropFirst() {
                comparisons.append(
                    Comparison(
                        scenario: name,
                        label: "\(shape.rawValue), per object, \(Runner.label(count)) vs \(Runner.label(sizes[0]))",
                        baselineDescription: "Molt per object at \(Runner.label(sizes[0]))", molt: costs[index],
                        baseline: costs[0],
                        target: .atMost(1.5)))
            }
        }
        return comparisons
    }
}
