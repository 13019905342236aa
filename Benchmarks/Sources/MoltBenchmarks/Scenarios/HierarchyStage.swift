import Foundation
import Molt

/// Issue 33: a custom stage over N objects spread over a three-level hierarchy (`Vehicle` → `Car` → `SportCar`,
/// and `Truck` beside `Car`: one table, rows told apart by `_entity`) must cost at most 1.3× the same stage over
/// one flat entity of N objects (min and median of the rounds, same run).
///
/// The stage is what a version that adds a required attribute computed from old values runs:
/// `enumerateObjects(ofType:)` of the root (each concrete entity's objects with their own values) writing
/// `label = "<model> <year>"`. Both jobs open their store at version 1 with the plan (plan, stage, validation,
/// commit); each round checks that every object got its label.
struct HierarchyStage: Scenario {
    let name = "hierarchy-stage"
    let summary = "A custom stage over 1M objects of a three-level hierarchy vs the same stage over one flat entity"

    static func hierarchy(_ version: Int) -> Schema {
        Schema(version: version) {
            Entity("Vehicle", isAbstract: true) {
                Attribute("model", .string)
                Attribute("year", .int)
                if version == 2 { Attribute("label", .string) }
            }
            Entity("Car", parent: "Vehicle") { Attribute("doors", .int) }
            Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int) }
            Entity("Truck", parent: "Vehicle") { Attribute("load", .int) }
        }
    }

    /// The same objects as one flat entity with a sport car's attributes (the most any entity of the hierarchy has).
    static func flat(_ version: Int) -> Schema {
        Schema(version: version) {
            Entity("Vehicle") {
                Attribute("model", .string)
                Attribute("year", .int)
                Attribute("doors", .int)
                Attribute("topSpeed", .int)
                if version == 2 { Attribute("label", .string) }
            }
        }
    }

    /// The plan from `schema(1)` to `schema(2)`: one stage that labels every vehicle.
    static func plan(_ schema: (Int) -> Schema) throws -> MigrationPlan {
        try MigrationPlan(
            schemas: [schema(1), schema(2)],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    try migration.enumerateObjects(ofType: "Vehicle") { old, new in
                        new["label"] = .string("\(old["model"].string ?? "") \(old["year"].int ?? 0)")
                    }
                }
            ])
    }

    /// `count` vehicles: in the hierarchy half sport cars, a quarter cars, a quarter trucks, interleaved.
    static func create(count: Int, hierarchical: Bool, at url: URL) throws {
        let store = try Store.open(at: url, schema: hierarchical ? hierarchy(1) : flat(1))
        defer { try? store.close() }
        try store.write { (objects: Objects) throws in
            for i in 0..<count {
                var values: [String: Value] = [
                    "model": .string("Model \(i % 1000)"), "year": .int(Int64(1950 + i % 75)),
                ]
                guard hierarchical else {
                    values["doors"] = .int(Int64(2 + i % 3))
                    values["topSpeed"] = .int(Int64(150 + i % 200))
                    try objects.insert("Vehicle", values)
                    continue
                }
                switch i % 4 {
                case 0, 1:
                    values["doors"] = .int(2)
                    values["topSpeed"] = .int(Int64(150 + i % 200))
                    try objects.insert("SportCar", values)
                case 2:
                    values["doors"] = .int(Int64(3 + i % 3))
                    try objects.insert("Car", values)
                default:
                    values["load"] = .int(Int64(i % 40_000))
                    try objects.insert("Truck", values)
                }
            }
        }
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let n = runner.largeCount
        var templates: [Bool: URL] = [:]
        for hierarchical in [true, false] {
            let url = runner.folder.appendingPathComponent(
                "hierarchy-stage-\(hierarchical ? "tree" : "flat")-\(n).sqlite")
            try Self.create(count: n, hierarchical: hierarchical, at: url)
            templates[hierarchical] = url
        }
        func job(hierarchical: Bool) throws -> Runner.Job {
            let schema = hierarchical ? Self.hierarchy(2) : Self.flat(2)
            let options = Store.Options().migrating(with: try Self.plan(hierarchical ? Self.hierarchy : Self.flat))
            return Runner.Job(count: 0) { url, stopwatch in
                try Fixture.copy(templates[hierarchical]!, to: url)
                let store = try stopwatch.time { try Store.open(at: url, schema: schema, options: options) }
                defer { try? store.close() }
                let labelled = try store.read { try $0.count("Vehicle", where: .hasPrefix("label", "Model ")) }
                guard labelled == n else {
                    throw BenchmarkError(description: "hierarchy-stage: \(labelled) of \(n) vehicles labelled")
                }
            }
        }
        let scratch = runner.folder.appendingPathComponent("hierarchy-stage-round.sqlite")
        let m = try runner.measure(
            [try job(hierarchical: true), try job(hierarchical: false)], repetitions: max(runner.repetitions, 5)
        ) { _ in scratch }
        return [
            Comparison(
                scenario: name, label: "custom stage over \(Runner.label(n)) objects of a 3-level hierarchy",
                baselineDescription: "the same stage over one flat entity", molt: m[0], baseline: m[1],
                target: .atMost(1.3))
        ]
    }
}
