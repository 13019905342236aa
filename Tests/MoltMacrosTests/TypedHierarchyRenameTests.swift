import Foundation
import MoltMacros
import Testing

/// Version 2 of ``GarageV1`` renames the sub-entity `SportCar` to `LuxuryCar`: the struct carries the new name, and
/// `@Model(originalName:)` the old one.
enum GarageRenamedV2: VersionedSchema {
    static let version = 2
    static let models: [any PersistentModel.Type] = [Car.self, LuxuryCar.self, Truck.self]

    @Model(isAbstract: true)
    struct Car {
        var model: String
        var year: Int
    }

    @Model(parent: Car.self, originalName: "SportCar")
    struct LuxuryCar {
        var model: String
        var year: Int
        var topSpeed: Int
    }

    @Model(parent: Car.self)
    struct Truck {
        var model: String
        var year: Int
        var load: Int?
    }
}

enum GarageRenamePlan: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [GarageV1.self, GarageRenamedV2.self]
}

@Suite("Typed inheritance: a renamed sub-entity")
struct TypedHierarchyRenameTests {
    @Test(
        "@Model(originalName:) renames a sub-entity: its objects are fetched by the new model, identifiers kept",
        arguments: [TypedStoreKind.rollback, .wal])
    func rename(kind: TypedStoreKind) throws {
        let folder = ScratchFolder()
        let old = try kind.makeStore(GarageV1.schema, in: folder.url)
        let ids = try old.write { objects in
            [
                try objects.insert(GarageV1.SportCar(model: "Miata", year: 1990, topSpeed: 200)).persistentID,
                try objects.insert(GarageV1.Truck(model: "Actros", year: 2010, load: 18_000)).persistentID,
                try objects.insert(GarageV1.SportCar(model: "Supra", year: 1993, topSpeed: 250)).persistentID,
            ]
        }
        try old.close()
        var options = Store.Options()
        options.journalMode = kind == .wal ? .wal : .rollback
        let store = try Store.open(
            at: folder.url.appendingPathComponent("\(kind.rawValue).sqlite"), plan: GarageRenamePlan.self,
            options: options)
        defer { try? store.close() }
        try store.read { objects in
            let luxury = try objects.fetch(GarageRenamedV2.LuxuryCar.self, orderBy: [.ascending(\.year)])
            #expect(luxury.map(\.model) == ["Miata", "Supra"] && luxury.map(\.topSpeed) == [200, 250])
            #expect(luxury.map(\.persistentID) == [ids[0], ids[2]])
            #expect(try objects.fetch(GarageRenamedV2.Truck.self).map(\.persistentID) == [ids[1]])
            #expect(try objects.count(GarageRenamedV2.Car.self) == 3)
        }
        #expect(
            try store.history().last?.steps == ["1 → 2 inferred: Entity 'SportCar' has been renamed to 'LuxuryCar'."])
        try store.write { objects in
            _ = try objects.insert(GarageRenamedV2.LuxuryCar(model: "Aventador", year: 2011, topSpeed: 350))
        }
        #expect(try store.read { try $0.count(GarageRenamedV2.LuxuryCar.self) } == 3)
    }
}
