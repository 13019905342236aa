import Foundation
import Molt
import Testing

/// A version that deletes a populated sub-entity on purpose (`deleting: [.entity(…)]`), on every durable store
/// kind: its objects go with the older version's delete rules, the rest of the hierarchy and every link to what
/// stays is kept, and a deny rule, an undeclared removal or a sub-entity left behind is refused with nothing
/// written.
@Suite("Inheritance: declared deletion of a sub-entity")
struct InheritanceDeletionTests {
    /// Version 1: cars in a hierarchy; trucks pull trailers (cascade), people own cars and have one favorite.
    static func v1(truckRule: Relationship.DeleteRule = .cascade) -> Schema {
        Schema(version: 1) {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("cars", toMany: "Car", inverse: "owner")
                Relationship("favorite", to: "Car")
            }
            Entity("Car", isAbstract: true) {
                Attribute("model", .string)
                Relationship("owner", to: "Person", inverse: "cars")
            }
            Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int) }
            Entity("Truck", parent: "Car") {
                Attribute("load", .int)
                Relationship("trailers", toMany: "Trailer", inverse: "truck", deleteRule: truckRule)
            }
            Entity("Trailer") {
                Attribute("length", .int)
                Relationship("truck", to: "Truck", inverse: "trailers")
            }
        }
    }

    /// Version 2 without trucks (and, with `trailers: false`, without trailers): declared with `deleting`.
    static func v2(deleting: [Deletion], trailers: Bool = true) -> Schema {
        var schema = Schema(version: 2) {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("cars", toMany: "Car", inverse: "owner")
                Relationship("favorite", to: "Car")
            }
            Entity("Car", isAbstract: true) {
                Attribute("model", .string)
                Relationship("owner", to: "Person", inverse: "cars")
            }
            Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int) }
            Entity("Trailer") { Attribute("length", .int) }
        }
        if !trailers { schema = Schema(version: 2, entities: schema.entities.filter { $0.name != "Trailer" }) }
        schema.deletions = deleting
        return schema
    }

    /// Two people, two sport cars and two trucks with three trailers; Ada owns a sport car and a truck, and her
    /// favorite is the truck.
    static func fill(_ store: Store) throws {
        try store.write { (objects: Objects) throws in
            let ada = try objects.insert("Person", ["name": "Ada"])
            let bob = try objects.insert("Person", ["name": "Bob"])
            let miata = try objects.insert("SportCar", ["model": "Miata", "topSpeed": 200])
            let actros = try objects.insert("Truck", ["model": "Actros", "load": 18_000])
            let volvo = try objects.insert("Truck", ["model": "FH", "load": 20_000])
            let supra = try objects.insert("SportCar", ["model": "Supra", "topSpeed": 250])
            try objects.set("cars", of: ada, to: [miata, actros])
            try objects.set("cars", of: bob, to: [supra])
            try objects.set("favorite", of: ada, to: actros)
            try objects.set("favorite", of: bob, to: supra)
            for (truck, length) in [(actros, 12), (actros, 8), (volvo, 14)] {
                let trailer = try objects.insert("Trailer", ["length": .int(Int64(length))])
                try objects.set("truck", of: trailer, to: truck)
            }
            _ = try objects.insert("Trailer", ["length": 3])
        }
    }

    /// Each person with their cars and favorite, and every car and trailer left, one line each.
    static func dump(_ store: Store) throws -> [String] {
        try store.read { (objects: Objects) throws in
            let people = try objects.fetch("Person").map { person in
                let cars = try objects.destinations("cars", of: person).compactMap { $0["model"].string }.sorted()
                let favorite = try objects.destination("favorite", of: person)?["model"].string ?? "none"
                return "\(person["name"].string!) cars=\(cars) favorite=\(favorite)"
            }
            let cars = try objects.fetch("Car").map { "\($0.entity) \($0["model"].string!)" }
            let trailers = try objects.fetch("Trailer").map { "Trailer \($0["length"])" }
            return people + cars + trailers
        }
    }

    /// The store filled at `v1(truckRule:)`, opened at version 2 without trucks: inferred, or through a custom
    /// stage that leaves the trucks for the end of the stage to delete.
    static func migrated(
        _ kind: StoreKind, in dir: TemporaryDirectory, truckRule: Relationship.DeleteRule, throughStage: Bool
    ) throws -> Store {
        let (v1, v2) = (Self.v1(truckRule: truckRule), Self.v2(deleting: [.entity("Truck")]))
        let first = try kind.open(in: dir, schema: v1)
        try Self.fill(first)
        try first.close()
        guard throughStage else { return try kind.open(in: dir, schema: v2) }
        let stage = MigrationStage.custom(from: 1, to: 2) { migration in
            let trucks = try migration.old.count("Truck")
            #expect(trucks == 2)
        }
        let plan = try MigrationPlan(schemas: [v1, v2], stages: [stage])
        return try kind.open(in: dir, schema: v2, options: kind.options.migrating(with: plan))
    }

    @Test(
        "a declared deletion removes the sub-entity's objects and their links; the rest stays, every link intact (inferred, and at the end of a stage)",
        arguments: StoreKind.durable, [false, true])
    func declaredDeletion(kind: StoreKind, throughStage: Bool) throws {
        let dir = TemporaryDirectory()
        let store = try Self.migrated(kind, in: dir, truckRule: .nullify, throughStage: throughStage)
        defer { try? store.close() }
        let dump = try Self.dump(store)
        #expect(
            dump == [
                #"Ada cars=["Miata"] favorite=none"#, #"Bob cars=["Supra"] favorite=Supra"#,
                "SportCar Miata", "SportCar Supra", "Trailer 12", "Trailer 8", "Trailer 14", "Trailer 3",
            ], "\(dump)")
        let record = try #require(try store.history().last?.stepRecords.last)
        #expect(record.objectsDeleted == 2)
        try store.verify()
    }

    @Test(
        "a cascade from the deleted sub-entity takes what it points to (the trailers the trucks pulled), in an inferred step and at the end of a stage",
        arguments: StoreKind.durable, [false, true])
    func cascade(kind: StoreKind, throughStage: Bool) throws {
        let dir = TemporaryDirectory()
        let store = try Self.migrated(kind, in: dir, truckRule: .cascade, throughStage: throughStage)
        defer { try? store.close() }
        // The trailers the trucks pulled went with them; the one no truck pulled stays.
        let dump = try Self.dump(store)
        #expect(
            dump == [
                #"Ada cars=["Miata"] favorite=none"#, #"Bob cars=["Supra"] favorite=Supra"#,
                "SportCar Miata", "SportCar Supra", "Trailer 3",
            ], "\(dump)")
        let record = try #require(try store.history().last?.stepRecords.last)
        // Both paths count the cascades: two trucks and the three trailers they pulled.
        #expect(record.objectsDeleted == 5)
        try store.verify()
    }

    @Test(
        "a deny rule that still holds objects refuses the deletion, naming the object; nothing is written",
        arguments: StoreKind.durable)
    func deny(kind: StoreKind) throws {
        let message = try InheritanceMigrationTests.refused(
            kind, from: Self.v1(truckRule: .deny), fill: Self.fill, to: Self.v2(deleting: [.entity("Truck")]))
        let text = try #require(message)
        // At the end of a stage the same rule refuses the run, and the store stays at version 1.
        let dir = TemporaryDirectory()
        let staged = moltError { _ = try Self.migrated(kind, in: dir, truckRule: .deny, throughStage: true) }
        #expect(staged?.code == .constraintViolation)
        #expect(staged?.message.hasPrefix("Version 2 deletes entity 'Truck', but one of its objects cannot go") == true)
        let again = try kind.open(in: dir, schema: Self.v1(truckRule: .deny))
        defer { try? again.close() }
        #expect(try again.read { try $0.count("Truck") } == 2)
        #expect(
            text.hasPrefix("Version 2 deletes entity 'Truck', but one of its objects cannot go: Cannot delete 'Truck'"))
        #expect(text.contains("delete rule deny"))
        #expect(text.hasSuffix("Nothing was written."))
    }

    @Test(
        "without the declaration the removal is refused, and the refusal gives the declaration to write",
        arguments: StoreKind.durable)
    func undeclared(kind: StoreKind) throws {
        let message = try InheritanceMigrationTests.refused(
            kind, from: Self.v1(truckRule: .nullify), fill: Self.fill, to: Self.v2(deleting: []))
        #expect(
            message
                == "Molt will not migrate from version 1 to 2: objects of a hierarchy would lose values.\n- Version 2 removes entity 'Truck' of the hierarchy of 'Car', which holds 2 objects. Declare their deletion (`Schema(version: 2, deleting: [.entity(\"Truck\")])`), delete them before the upgrade, or keep the entity.\nNothing was written."
        )
    }

    @Test(
        "deleting a sub-entity whose own sub-entity stays with objects is refused: they would go with it",
        arguments: StoreKind.durable)
    func subEntityStays(kind: StoreKind) throws {
        let v1 = Schema(version: 1) {
            Entity("Car", isAbstract: true) { Attribute("model", .string) }
            Entity("Truck", parent: "Car") { Attribute("load", .int, isOptional: true) }
            Entity("Tipper", parent: "Truck") { Attribute("angle", .int, isOptional: true) }
        }
        var v2 = Schema(version: 2) {
            Entity("Car", isAbstract: true) { Attribute("model", .string) }
            Entity("Tipper", parent: "Car") { Attribute("angle", .int, isOptional: true) }
        }
        v2.deletions = [.entity("Truck")]
        let message = try InheritanceMigrationTests.refused(
            kind, from: v1,
            fill: { store in
                try store.write { objects in
                    _ = try objects.insert("Truck", ["model": "Actros"])
                    _ = try objects.insert("Tipper", ["model": "Arocs", "angle": 45])
                }
            }, to: v2)
        #expect(
            message?.contains(
                "- Version 2 deletes entity 'Truck' (1 object), but its sub-entity 'Tipper' stays, and deleting 'Truck' would take their objects too. Give it another parent first, or delete it too."
            ) == true, "\(message ?? "no refusal")")
    }
}
