import Foundation
import Molt
import Testing

/// `molt info --count` in a hierarchy: each entity's own objects, and for an entity with sub-entities its objects
/// with theirs (what `Objects.count(_:)` returns), said apart in text and in JSON.
@Suite("molt info --count in a hierarchy")
struct InfoCountTests {
    /// `Vehicle` (abstract) ← `Car` ← `SportCar`, and `Garage` without sub-entities: 2 cars, 3 sport cars, 1 garage.
    static func store(in dir: TemporaryDirectory) throws -> URL {
        let schema = Schema(version: 1) {
            Entity("Vehicle", isAbstract: true) { Attribute("name", .string) }
            Entity("Car", parent: "Vehicle") { Attribute("doors", .int, default: 4) }
            Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int, default: 250) }
            Entity("Garage") { Attribute("city", .string) }
        }
        let url = dir.file("vehicles.sqlite")
        let store = try Store.open(at: url, schema: schema)
        try store.write { objects in
            for name in ["A", "B"] { try objects.insert("Car", ["name": .string(name)]) }
            for name in ["C", "D", "E"] { try objects.insert("SportCar", ["name": .string(name)]) }
            try objects.insert("Garage", ["city": "Turin"])
        }
        #expect(try store.read { try $0.count("Car") } == 5)
        try store.close()
        return url
    }

    @Test("text says each entity's own count and, for one with sub-entities, the count with theirs")
    func text() throws {
        let dir = TemporaryDirectory()
        let url = try Self.store(in: dir)
        let run = try Molt.run(["info", url.path, "--count"])
        #expect(run.status == 0, "\(run)")
        let headings = run.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
        #expect(
            headings.prefix(4) == [
                "  Vehicle: 0 objects of its own, 5 with its sub-entities",
                "  Car: 2 objects of its own, 5 with its sub-entities",
                "  SportCar: 3 objects",
                "  Garage: 1 object",
            ], "\(run.stdout)")
    }

    @Test("JSON gives count (own) and countWithSubEntities (only for an entity with sub-entities)")
    func json() throws {
        let dir = TemporaryDirectory()
        let url = try Self.store(in: dir)
        let run = try Molt.run(["info", url.path, "--count", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let entities = try #require(report["entities"] as? [[String: Any]])
        #expect(entities.map { $0["count"] as? Int } == [0, 2, 3, 1])
        #expect(entities.map { $0["countWithSubEntities"] as? Int } == [5, 5, nil, nil])
        // Without --count, neither.
        let uncounted = try Molt.run(["info", url.path, "--json"])
        #expect(!uncounted.stdout.contains("count"), "\(uncounted)")
    }

    @Test(
        "CoreDataPlus's cars: 115 of Car's own, 125 with its sub-entities",
        .enabled(
            if: FileManager.default.fileExists(atPath: ModelVersionOrderTests.cars.path),
            "../shared/foreign-stores is absent"))
    func realCars() throws {
        let dir = TemporaryDirectory()
        let folder = ModelVersionOrderTests.cars.deletingLastPathComponent().deletingLastPathComponent()
        let store = dir.file("cars.sqlite")
        try FileManager.default.copyItem(at: folder.appendingPathComponent("SampleModel_V1.sqlite"), to: store)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.path)
        let model = ModelVersionOrderTests.cars.appendingPathComponent("SampleModel.xcdatamodel").path
        let out = dir.file("snapshots").path
        let convert = try Molt.run(["convert-model", model, "--out", out, "--hierarchies", "--approximate", "all"])
        #expect(convert.status == 0, "\(convert)")
        let adopted = try Molt.run(["adopt", store.path, "--model", model, "--to", out])
        #expect(adopted.status == 0, "\(adopted)")
        let run = try Molt.run(["info", store.path, "--count"])
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  Car: 115 objects of its own, 125 with its sub-entities"), "\(run.stdout)")
        #expect(lines.contains("  SportCar: 5 objects of its own, 10 with its sub-entities"), "\(run.stdout)")
        #expect(lines.contains("  ExpensiveSportCar: 5 objects"), "\(run.stdout)")
    }
}
