import Foundation
import Testing
@testable import Molt

/// Typed models of a hierarchy on every store kind, PostgreSQL included: what `@Model(isAbstract: true) struct
/// Car` and `@Model(parent: Car.self) struct SportCar` expand to (the macro's own suite pins the expansion).
@Suite("Inheritance: typed models on every engine")
struct InheritanceTypedTests {
    struct Car: PersistentModel {
        var model: String
        var year: Int
        var persistentID: Int64? = nil

        init(model: String, year: Int) { (self.model, self.year) = (model, year) }

        static let entity = Entity(
            "Car", isAbstract: true, attributes: [Attribute("model", .string), Attribute("year", .int)])

        init(row: ModelRow) throws {
            persistentID = row.id
            model = try row.value(at: 0)
            year = try row.value(at: 1)
        }

        func encode(to columns: inout ModelColumns) {
            columns.append(model)
            columns.append(year)
        }

        static func propertyName(for keyPath: PartialKeyPath<Car>) -> String? {
            keyPath == \Car.model ? "model" : keyPath == \Car.year ? "year" : nil
        }
    }

    struct SportCar: PersistentModel {
        var model: String
        var year: Int
        var topSpeed: Int
        var persistentID: Int64? = nil

        init(model: String, year: Int, topSpeed: Int) {
            (self.model, self.year, self.topSpeed) = (model, year, topSpeed)
        }

        static let entity = Entity(
            "SportCar", parent: "Car",
            attributes: [Attribute("model", .string), Attribute("year", .int), Attribute("topSpeed", .int)])

        init(row: ModelRow) throws {
            persistentID = row.id
            model = try row.value(at: 0)
            year = try row.value(at: 1)
            topSpeed = try row.value(at: 2)
        }

        func encode(to columns: inout ModelColumns) {
            columns.append(model)
            columns.append(year)
            columns.append(topSpeed)
        }

        static func propertyName(for keyPath: PartialKeyPath<SportCar>) -> String? {
            if keyPath == \SportCar.model { return "model" }
            if keyPath == \SportCar.year { return "year" }
            return keyPath == \SportCar.topSpeed ? "topSpeed" : nil
        }
    }

    /// The versioned schema the two models make: each property declared once.
    enum Garage: VersionedSchema {
        static let version = 1
        static let models: [any PersistentModel.Type] = [Car.self, SportCar.self]
    }

    @Test(
        "typed insert, fetch of the parent and of the sub-entity, save, refusal of the abstract model",
        arguments: StoreKind.allCases)
    func typed(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let schema = Schema(
            version: 1,
            entities: Garage.schema.entities + [
                Entity("Truck", parent: "Car") { Attribute("load", .int, isOptional: true) }
            ])
        #expect(schema.entity(named: "SportCar")?.attributes.map(\.name) == ["topSpeed"])
        let store = try kind.makeStore(schema: schema, in: dir)
        defer { try? store.close() }
        try store.write { (objects: Objects) throws in
            try objects.insert(SportCar(model: "Miata", year: 1990, topSpeed: 200))
            try objects.insert("Truck", ["model": "Actros", "year": 2010])
            try objects.insert(SportCar(model: "Supra", year: 1993, topSpeed: 250))
        }
        try store.read { (objects: Objects) throws in
            #expect(
                try objects.fetch(Car.self, orderBy: [.descending(\.year)]).map(\.model) == [
                    "Actros", "Supra", "Miata",
                ])
            #expect(try objects.fetch(SportCar.self, where: \.topSpeed > 220).map(\.model) == ["Supra"])
            #expect(try objects.count(SportCar.self) == 2)
            #expect(try objects.fetch("Car").map(\.entity) == ["SportCar", "Truck", "SportCar"])
        }
        try store.write { (objects: Objects) throws in
            var miata = try #require(try objects.fetch(SportCar.self, where: \.model == "Miata").first)
            miata.topSpeed = 205
            try objects.save(miata)
        }
        #expect(try store.read { try $0.fetch(SportCar.self).map(\.topSpeed) } == [205, 250])
        let refused = moltError { try store.write { _ = try $0.insert(Car(model: "T", year: 1908)) } }
        #expect(
            refused?.message
                == "Entity 'Car' is abstract and has no objects of its own: insert one of its sub-entities (SportCar, Truck) instead."
        )
    }

    @Test("the diff names a changed parent and a changed abstractness, and compares inherited properties")
    func diff() {
        let v1 = Schema(version: 1) {
            Entity("Car") { Attribute("model", .string) }
            Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int, isOptional: true) }
            Entity("Racer", parent: "SportCar") { Attribute("team", .string) }
        }
        let v2 = Schema(version: 2) {
            Entity("Car", isAbstract: true) {
                Attribute("model", .string)
                Attribute("topSpeed", .int, isOptional: true)
            }
            Entity("SportCar", parent: "Car") {}
            Entity("Racer", parent: "Car") { Attribute("team", .string) }
        }
        let diff = SchemaDiff(from: v1, to: v2)
        #expect(
            diff.changes.map(\.description) == [
                "Entity 'Car' has been made abstract.",
                "Attribute 'Car.topSpeed' has been added.",
                "Entity 'Racer' now inherits from 'Car' instead of 'SportCar'.",
            ])
        #expect(diff.isInferable)
    }
}
