import Foundation
import Molt

/// Issue 33: an inferred rename (`originalName`) of a sub-entity whose N objects share their hierarchy's table
/// with a quarter as many objects of a sibling, against the hand-written `UPDATE` of the entity column that
/// relabels the same rows. Molt's run opens the store, plans and checks the step, renames and validates; the
/// target is 1.2× (min and median of the rounds, same run). Both sides must leave the same table (its
/// fingerprint: shape and sums over every column, the entity names' lengths included).
struct HierarchyRename: Scenario {
    let name = "hierarchy-rename"
    let summary = "Inferred rename of a sub-entity of 1M objects vs the hand UPDATE of the _entity column"

    static let v1 = Schema(version: 1) {
        Entity("Vehicle", isAbstract: true) {
            Attribute("model", .string)
            Attribute("year", .int)
        }
        Entity("SportCar", parent: "Vehicle") { Attribute("topSpeed", .int) }
        Entity("Truck", parent: "Vehicle") { Attribute("load", .int) }
    }

    /// Version 2: `SportCar` is renamed `Coupe`, nothing else changes.
    static let v2 = Schema(version: 2) {
        Entity("Vehicle", isAbstract: true) {
            Attribute("model", .string)
            Attribute("year", .int)
        }
        Entity("Coupe", parent: "Vehicle", originalName: "SportCar") { Attribute("topSpeed", .int) }
        Entity("Truck", parent: "Vehicle") { Attribute("load", .int) }
    }

    /// A store of `count` sport cars and `count / 4` trucks, interleaved.
    static func create(count: Int, at url: URL) throws {
        let store = try Store.open(at: url, schema: v1)
        defer { try? store.close() }
        try store.write { (objects: Objects) throws in
            for i in 0..<(count + count / 4) {
                let base: [String: Value] = ["model": .string("Model \(i % 1000)"), "year": .int(Int64(1950 + i % 75))]
                if i % 5 == 4 {
                    try objects.insert("Truck", base.merging(["load": .int(Int64(i % 40_000))]) { a, _ in a })
                } else {
                    try objects.insert("SportCar", base.merging(["topSpeed": .int(Int64(150 + i % 200))]) { a, _ in a })
                }
            }
        }
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let n = runner.largeCount
        let stores = TemplateStores(runner, name: "hierarchy-rename") { try Self.create(count: $0, at: $1) }
        let same = SameResult(tables: ["Vehicle"])
        let m = try stores.measure(
            [
                runner.molt(count: n, to: Self.v2, check: same),
                runner.baseline(
                    count: n, statements: [#"UPDATE "Vehicle" SET "_entity" = 'Coupe' WHERE "_entity" = 'SportCar'"#],
                    check: same),
            ], repetitions: max(runner.repetitions, 5))
        return [
            Comparison(
                scenario: name, label: "rename a sub-entity, \(Runner.label(n)) objects",
                baselineDescription: "UPDATE \"Vehicle\" SET \"_entity\" = 'Coupe' WHERE \"_entity\" = 'SportCar'",
                molt: m[0], baseline: m[1], target: .atMost(1.2))
        ]
    }
}
