import Foundation
import MoltMacros
import Testing

/// A typed hierarchy: the model of a sub-entity names its parent's model and repeats its stored properties.
enum GarageV1: VersionedSchema {
    static let version = 1
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
    }

    @Model(parent: Car.self)
    struct Truck {
        var model: String
        var year: Int
        var load: Int?
    }
}

@Suite("Typed inheritance")
struct TypedInheritanceTests {
    typealias Car = GarageV1.Car
    typealias SportCar = GarageV1.SportCar
    typealias Truck = GarageV1.Truck

    @Test("the schema of a typed hierarchy declares each property once, on the entity that has it")
    func schema() throws {
        let schema = GarageV1.schema
        try schema.validate()
        #expect(schema.entity(named: "Car")?.isAbstract == true)
        #expect(schema.entity(named: "SportCar")?.parent == "Car")
        #expect(schema.entity(named: "SportCar")?.attributes.map(\.name) == ["topSpeed"])
        #expect(schema.effectiveEntity(named: "Truck")?.attributes.map(\.name) == ["model", "year", "load"])
    }

    @Test(
        "a typed fetch of a sub-entity returns its objects; of the parent, every object with the parent's properties",
        arguments: TypedStoreKind.allCases)
    func fetch(kind: TypedStoreKind) throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(GarageV1.schema, in: folder.url)
        try store.write { objects in
            try objects.insert(SportCar(model: "Miata", year: 1990, topSpeed: 200))
            try objects.insert(Truck(model: "Actros", year: 2010, load: 18_000))
            try objects.insert(SportCar(model: "Supra", year: 1993, topSpeed: 250))
        }
        try store.read { (objects: Objects) throws in
            let sport = try objects.fetch(SportCar.self, where: \.year > 1991)
            #expect(sport.map(\.model) == ["Supra"] && sport.map(\.topSpeed) == [250])
            let cars = try objects.fetch(Car.self, orderBy: [.ascending(\.year)])
            #expect(cars.map(\.model) == ["Miata", "Supra", "Actros"])
            #expect(try objects.count(Car.self) == 3)
            #expect(try objects.count(Truck.self, where: \.year > 2000) == 1)
            #expect(try objects.max(\SportCar.topSpeed) == 250)
            // Which sub-entity each car is, and its own values through that entity's model.
            #expect(try cars.map { try objects.entityName(of: $0) } == ["SportCar", "SportCar", "Truck"])
            let supra = try #require(cars.first { $0.model == "Supra" })
            #expect(try objects.model(SportCar.self, id: supra.persistentID!)?.topSpeed == 250)
            #expect(try objects.model(Truck.self, id: supra.persistentID!) == nil)
            #expect(try objects.entityName(of: sport[0]) == "SportCar")
            #expect(try objects.entityName(of: Car(model: "T", year: 1908)) == nil)
        }
        let abstract = #expect(throws: MoltError.self) {
            try store.write { _ = try $0.insert(Car(model: "T", year: 1908)) }
        }
        #expect(
            abstract?.message
                == "Entity 'Car' is abstract and has no objects of its own: insert one of its sub-entities (SportCar, Truck) instead."
        )
        // A save through the sub-entity's model changes inherited and own properties.
        try store.write { (objects: Objects) throws in
            var miata = try #require(try objects.fetch(SportCar.self, where: \.model == "Miata").first)
            miata.year = 1991
            miata.topSpeed = 210
            try objects.save(miata)
        }
        #expect(try store.read { try $0.fetch(Car.self, where: \.year == 1991).map(\.model) } == ["Miata"])
        #expect(try store.read { try $0.fetch(SportCar.self, where: \.model == "Miata").map(\.topSpeed) } == [210])
    }
}
