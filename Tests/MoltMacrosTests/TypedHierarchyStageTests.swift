import Foundation
import MoltMacros
import Testing

/// Version 2 of the typed garage: every sport car gains a required speed class, computed by a typed stage.
enum GarageV2: VersionedSchema {
    static let version = 2
    static let models: [any PersistentModel.Type] = [Car.self, SportCar.self, Truck.self]

    @Model(isAbstract: true)
    struct Car {
        var model: String
        var year: Int
    }

    @Model(parent: Car.self)
    struct SportCar {
        var model: String
        var year: Int
        var topSpeed: Int
        var speedClass: String
    }

    @Model(parent: Car.self)
    struct Truck {
        var model: String
        var year: Int
        var load: Int?
    }
}

@Suite("Typed stages over a hierarchy")
struct TypedHierarchyStageTests {
    @Test("a typed stage reads a sub-entity's old models and writes its new ones; the other sub-entity is untouched")
    func subEntityStage() throws {
        let folder = ScratchFolder()
        defer { withExtendedLifetime(folder) {} }
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let url = folder.url.appendingPathComponent("garage.sqlite")
        let first = try Store.open(at: url, schema: GarageV1.schema)
        try first.write { objects in
            try objects.insert(GarageV1.SportCar(model: "Miata", year: 1990, topSpeed: 200))
            try objects.insert(GarageV1.Truck(model: "Actros", year: 2010, load: 18_000))
            try objects.insert(GarageV1.SportCar(model: "Supra", year: 1993, topSpeed: 250))
        }
        try first.close()
        let plan = try MigrationPlan(
            schemas: [GarageV1.schema, GarageV2.schema],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    try migration.enumerateObjects(GarageV1.SportCar.self, to: GarageV2.SportCar.self) { old in
                        GarageV2.SportCar(
                            model: old.model, year: old.year, topSpeed: old.topSpeed,
                            speedClass: old.topSpeed > 220 ? "fast" : "quick")
                    }
                }
            ])
        let store = try Store.open(at: url, schema: GarageV2.schema, options: Store.Options().migrating(with: plan))
        defer { try? store.close() }
        try store.read { objects in
            let sport = try objects.fetch(GarageV2.SportCar.self, orderBy: [.ascending(\.year)])
            #expect(sport.map(\.model) == ["Miata", "Supra"])
            #expect(sport.map(\.speedClass) == ["quick", "fast"])
            let trucks = try objects.fetch(GarageV2.Truck.self)
            #expect(trucks.map(\.model) == ["Actros"] && trucks.map(\.load) == [18_000])
            #expect(try objects.count(GarageV2.Car.self) == 3)
        }
    }
}
