import Foundation
import Testing
import Molt

/// The links of a renamed entity of a hierarchy, on every durable store kind: links to it (a to-many with its
/// inverse, a to-one), and from it (a to-one to its parent entity, a to-many to a plain entity) are all kept.
@Suite("Inheritance: links of a renamed entity")
struct InheritanceRenameLinksTests {
    static func schema(version: Int, sport: String, originalName: String? = nil) -> Schema {
        Schema(version: version) {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("cars", toMany: sport, inverse: "owner")
                Relationship("favorite", to: sport)
            }
            Entity("Car", isAbstract: true) { Attribute("model", .string) }
            Entity(sport, parent: "Car", originalName: originalName) {
                Attribute("topSpeed", .int)
                Relationship("owner", to: "Person", inverse: "cars")
                Relationship("rival", to: "Car")
                Relationship("drivers", toMany: "Driver")
            }
            Entity("Truck", parent: "Car") { Attribute("load", .int) }
            Entity("Driver") { Attribute("name", .string) }
        }
    }

    static func fill(_ store: Store, sport: String) throws {
        try store.write { (objects: Objects) throws in
            let ann = try objects.insert("Person", ["name": "Ann"])
            let truck = try objects.insert("Truck", ["model": "Actros", "load": 18_000])
            let miata = try objects.insert(sport, ["model": "Miata", "topSpeed": 200])
            let supra = try objects.insert(sport, ["model": "Supra", "topSpeed": 250])
            let (bo, cy) = (try objects.insert("Driver", ["name": "Bo"]), try objects.insert("Driver", ["name": "Cy"]))
            try objects.set("cars", of: ann, to: [miata, supra])
            try objects.set("favorite", of: ann, to: supra)
            try objects.set("rival", of: miata, to: truck)
            try objects.set("rival", of: supra, to: miata)
            try objects.set("drivers", of: miata, to: [bo, cy])
            try objects.set("drivers", of: supra, to: [cy])
        }
    }

    /// Every link of the store, one line each: owner → destinations, by entity and identifier.
    static func links(_ store: Store, sport: String) throws -> [String] {
        try store.read { (objects: Objects) throws in
            let label = { (object: DynamicObject) in "\(object.entity) \(object.id!)" }
            var lines: [String] = []
            for person in try objects.fetch("Person") {
                let cars = try objects.destinations("cars", of: person).map(label).sorted()
                let favorite = try objects.destination("favorite", of: person).map(label) ?? "none"
                lines.append("\(label(person)) cars: \(cars.joined(separator: ", ")); favorite: \(favorite)")
            }
            for car in try objects.fetch(sport) {
                let owner = try objects.destination("owner", of: car).map(label) ?? "none"
                let rival = try objects.destination("rival", of: car).map(label) ?? "none"
                let drivers = try objects.destinations("drivers", of: car).map { "\($0["name"])" }.sorted()
                lines.append(
                    "\(label(car)) owner: \(owner); rival: \(rival); drivers: \(drivers.joined(separator: ", "))")
            }
            return lines
        }
    }

    @Test("links to and from a renamed sub-entity are kept, with their inverses", arguments: StoreKind.durable)
    func links(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Self.schema(version: 1, sport: "SportCar")
        let v2 = Self.schema(version: 2, sport: "LuxuryCar", originalName: "SportCar")
        let first = try kind.open(in: dir, schema: v1)
        try Self.fill(first, sport: "SportCar")
        #expect(
            try Self.links(first, sport: "SportCar") == [
                "Person 1 cars: SportCar 2, SportCar 3; favorite: SportCar 3",
                #"SportCar 2 owner: Person 1; rival: Truck 1; drivers: "Bo", "Cy""#,
                #"SportCar 3 owner: Person 1; rival: SportCar 2; drivers: "Cy""#,
            ])
        try first.close()
        let store = try kind.open(in: dir, schema: v2)
        #expect(
            try Self.links(store, sport: "LuxuryCar") == [
                "Person 1 cars: LuxuryCar 2, LuxuryCar 3; favorite: LuxuryCar 3",
                #"LuxuryCar 2 owner: Person 1; rival: Truck 1; drivers: "Bo", "Cy""#,
                #"LuxuryCar 3 owner: Person 1; rival: LuxuryCar 2; drivers: "Cy""#,
            ])
        // A link written after the rename lands on the renamed objects, and its inverse follows.
        try store.write { (objects: Objects) throws in
            let bea = try objects.insert("Person", ["name": "Bea"])
            let miata = try #require(try objects.fetch("LuxuryCar").first)
            try objects.set("owner", of: miata, to: bea)
        }
        #expect(try Self.links(store, sport: "LuxuryCar").first == "Person 1 cars: LuxuryCar 3; favorite: LuxuryCar 3")
        try store.verify()
        try store.close()
    }
}
