import Foundation
import GRDB
import Molt

/// Opening an up-to-date store of 50 entities must cost at most 1.5x opening one of a single entity (issue 10):
/// checking that a store is current should not grow much with the schema.
///
/// `Store.open` at the store's own version and schema, timed in this process (closing is not); the entities
/// have six attributes each and a to-one link to the previous one, and 100 objects. For information, GRDB
/// opening the 50-entity file and reading its schema version (`PRAGMA user_version`), the floor of any open;
/// and, as a reference, GRDB's own 50-vs-1 ratio: SQLite parses every table's definition on the first statement,
/// so part of the growth belongs to SQLite, whatever the library.
struct OpenWide: Scenario {
    let name = "open-wide"
    let summary = "Store.open of an up-to-date store: 50 entities vs 1"

    static func schema(entities: Int) -> Schema {
        Schema(
            version: 1,
            entities: (0..<entities).map { i in
                Entity(
                    "Entity\(i)",
                    attributes: [
                        Attribute("name", .string), Attribute("count", .int), Attribute("score", .double),
                        Attribute("created", .date),
                        Attribute("note", .string, isOptional: true), Attribute("flag", .bool, default: false),
                    ],
                    relationships: i == 0 ? [] : [Relationship("previous", to: "Entity\(i - 1)")])
            })
    }

    static func create(entities: Int, at url: URL) throws {
        let schema = schema(entities: entities)
        let store = try Store.open(at: url, schema: schema)
        try store.write { objects in
            for entity in schema.entities {
                for i in 0..<100 {
                    try objects.insert(
                        entity.name,
                        [
                            "name": .string("\(entity.name) \(i)"), "count": .int(Int64(i)),
                            "score": .double(Double(i)),
                            "created": .date(Date(timeIntervalSince1970: Double(i))),
                        ])
                }
            }
        }
        try store.close()
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let stores = TemplateStores(runner, name: "entities") { try Self.create(entities: $0, at: $1) }
        func open(_ entities: Int) -> Runner.Job {
            let schema = Self.schema(entities: entities)
            return Runner.Job(count: entities) { url, stopwatch in
                let store = try stopwatch.time { try Store.open(at: url, schema: schema) }
                guard try store.read({ try $0.count("Entity0") }) == 100 else {
                    throw BenchmarkError(description: "the store lost objects")
                }
                try store.close()
            }
        }
        func grdb(_ entities: Int) -> Runner.Job {
            Runner.Job(count: entities) { url, stopwatch in
                let queue = try stopwatch.time { () throws -> DatabaseQueue in
                    let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
                    _ = try queue.read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
                    return queue
                }
                try queue.close()
            }
        }
        let m = try stores.measure([open(1), open(50), grdb(50), grdb(1)], repetitions: runner.cheapRepetitions * 2)
        return [
            Comparison(
                scenario: name, label: "open up-to-date store, 50 vs 1 entities",
                baselineDescription: "Store.open, 1 entity",
                molt: m[1], baseline: m[0], target: .atMost(1.5)),
            Comparison(
                scenario: name, label: "open up-to-date store, 50 entities",
                baselineDescription: "GRDB open + PRAGMA user_version",
                molt: m[1], baseline: m[2], target: nil),
            // Not Molt: how much SQLite's own load of a 50-table schema costs over a 1-table one, as GRDB opens
            // them; the floor of the 50-vs-1 ratio above for any library on SQLite.
            Comparison(
                scenario: name, label: "reference: GRDB's own open, 50 vs 1 entities",
                baselineDescription: "GRDB open, 1 entity",
                molt: m[2], baseline: m[3], target: nil),
        ]
    }
}
