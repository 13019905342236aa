import Foundation
import Molt
import Testing

/// CoreDataPlus's cars store at its first model (`../shared/foreign-stores/coredataplus-cars/SampleModel_V1.sqlite`),
/// adopted and walked with `molt adopt --to DIR` to version 2, whose model renames the sub-entity
/// `ExpensiveSportCar` (under `SportCar`, under `Car`) to `LuxuryCar` by a renaming identifier: every car keeps
/// its identifier, values and owner, and the former expensive sport cars are luxury cars. The original is read
/// independently, with the sqlite3 tool (`Z_ENT` → entity name by `Z_PRIMARYKEY`, the `ZCAR` table).
@Suite(
    "CoreDataPlus V1 walks to V2 through the rename of a sub-entity",
    .enabled(
        if: FileManager.default.fileExists(atPath: CoreDataPlusCars.folder.path),
        "../shared/foreign-stores is absent beside the package: the real stores are test data kept outside the repository"
    ))
struct CoreDataPlusRenameWalkTests {
    static let model = "coredataplus-cars/model/SampleModel.xcdatamodeld"
    /// The cars' attributes version 2 keeps (it removes `color`), by their Core Data columns.
    static let columns = "Z_PK, ZMAKER, ZMODEL, ZNUMBERPLATE, ZOWNER"
    static let attributes = ["maker", "model", "numberPlate", "owner"]

    /// The cars of the original, by their entity's name in version 2, each as `Z_PK|maker|model|plate|owner`
    /// (and `|isLimitedEdition` for the luxury cars).
    static func originalCars() throws -> [String: [String]] {
        let original = CoreDataPlusCars.folder.appendingPathComponent("SampleModel_V1.sqlite").path
        let entity = { (name: String) in "Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(name)')" }
        return [
            "Car": try WireShortOwnersWalkTests.rows(original, "SELECT \(columns) FROM ZCAR WHERE \(entity("Car"))"),
            "SportCar": try WireShortOwnersWalkTests.rows(
                original, "SELECT \(columns) FROM ZCAR WHERE \(entity("SportCar"))"),
            "LuxuryCar": try WireShortOwnersWalkTests.rows(
                original, "SELECT \(columns), ZISLIMITEDEDITION FROM ZCAR WHERE \(entity("ExpensiveSportCar"))"),
        ]
    }

    @Test("adopt --to DIR walks to version 2: the expensive sport cars are luxury cars, every car's values kept")
    func walk() throws {
        let dir = TemporaryDirectory()
        let (store, model, snapshots) = try AdoptCommandTests.converted(
            "coredataplus-cars/SampleModel_V1.sqlite", model: Self.model, in: dir)
        // convert-model writes Core Data's renaming identifier as the entity's originalName.
        let v2 = try Schema(snapshotJSON: Data(contentsOf: URL(fileURLWithPath: snapshots + "/2.json")))
        #expect(v2.entity(named: "LuxuryCar")?.originalName == "ExpensiveSportCar")
        #expect(v2.entity(named: "LuxuryCar")?.parent == "SportCar")
        let adopted = try Molt.run(["adopt", store.path, "--model", model, "--to", snapshots, "--to-version", "2"])
        #expect(adopted.status == 0, "\(adopted)")
        #expect(adopted.stdout.contains("then 1 → 2 (inferred)"), "\(adopted)")

        let info = try Molt.run(["info", store.path, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(json["version"] as? Int == 2)
        let steps = ((json["history"] as? [[String: Any]])?.last?["steps"] as? [String]) ?? []
        #expect(
            steps.first?.contains("Entity 'ExpensiveSportCar' has been renamed to 'LuxuryCar'.") == true, "\(steps)")

        let export = try Molt.run(["export", store.path])
        #expect(export.status == 0, "\(export)")
        let entities = try #require(
            (try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any])?["entities"]
                as? [String: [[String: Any]]])
        #expect(entities["ExpensiveSportCar"] == nil)
        func exported(_ entity: String, _ extra: [String] = []) -> [String] {
            (entities[entity] ?? []).map { object in
                ([object["_id"]] + (Self.attributes + extra).map { object[$0] }).map(WireShortOwnersWalkTests.text)
                    .joined(separator: "|")
            }.sorted()
        }
        let original = try Self.originalCars()
        #expect(original["LuxuryCar"]?.count == 5 && original["Car"]?.count == 115 && original["SportCar"]?.count == 5)
        #expect(exported("Car") == original["Car"])
        #expect(exported("SportCar") == original["SportCar"])
        #expect(exported("LuxuryCar", ["isLimitedEdition"]) == original["LuxuryCar"])

        // Molt's own check of the walked store (shape, links, metadata), and the count with sub-entities.
        let check = try Molt.run(["check", store.path])
        #expect(check.status == 0, "\(check)")
        let counted = try Molt.run(["info", store.path, "--count"])
        #expect(counted.stdout.contains("LuxuryCar: 5 objects"), "\(counted)")
    }

    @Test("molt plan of the step says the rename and shows the one UPDATE of the entity column")
    func plan() throws {
        let dir = TemporaryDirectory()
        let (store, model, snapshots) = try AdoptCommandTests.converted(
            "coredataplus-cars/SampleModel_V1.sqlite", model: Self.model, in: dir)
        let adopted = try Molt.run(["adopt", store.path, "--model", model, "--to", snapshots, "--to-version", "1"])
        #expect(adopted.status == 0, "\(adopted)")
        let plan = try Molt.run(["plan", store.path, "--to", snapshots, "--to-version", "2"])
        #expect(plan.status == 0, "\(plan)")
        #expect(
            plan.stdout.contains("  1 → 2 inferred: Entity 'ExpensiveSportCar' has been renamed to 'LuxuryCar'."),
            "\(plan)")
        #expect(
            plan.stdout.contains(#"  UPDATE "Car" SET "_entity" = 'LuxuryCar' WHERE "_entity" = 'ExpensiveSportCar';"#),
            "\(plan)")
    }
}

/// `../shared/foreign-stores/coredataplus-cars` beside the package.
enum CoreDataPlusCars {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/foreign-stores/coredataplus-cars")
}
