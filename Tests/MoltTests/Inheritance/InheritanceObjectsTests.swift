import Foundation
import Testing
@testable import Molt

/// Objects of a hierarchy, on every store kind: a fetch of a parent returns the objects of every sub-entity,
/// each as its own entity; predicates and sorts over inherited attributes; counts and aggregates; relationships
/// to a parent that hold sub-entities, and delete rules across them.
@Suite("Inheritance: objects of a hierarchy")
struct InheritanceObjectsTests {
    static let schema = InheritanceSchemaTests.cars.withVersion(1)

    /// Two sport cars, an expensive one, a truck, owned by two people.
    static func fill(_ store: Store) throws {
        try store.write { (objects: Objects) throws in
            let ada = try objects.insert("Person", ["name": "Ada"])
            let bob = try objects.insert("Person", ["name": "Bob"])
            let cars = [
                try objects.insert("SportCar", ["model": "Miata", "year": 1990, "topSpeed": 200]),
                try objects.insert("Truck", ["model": "Actros", "year": 2010, "load": 18_000]),
                try objects.insert(
                    "ExpensiveSportCar", ["model": "F40", "year": 1987, "topSpeed": 324, "price": 2_500_000.5]),
                try objects.insert("SportCar", ["model": "Supra", "year": 1993, "topSpeed": 250]),
            ]
            try objects.set("owner", of: cars[0], to: ada)
            try objects.set("owner", of: cars[1], to: bob)
            try objects.add(cars[2], to: "cars", of: ada)
            try objects.add(cars[3], to: "cars", of: bob)
        }
    }

    static func summary(_ object: DynamicObject) -> String {
        "\(object.entity) " + object.attributeValues.keys.sorted().map { "\($0)=\(object[$0])" }.joined(separator: " ")
    }

    @Test("a fetch of a parent returns every sub-entity's objects as their own entity", arguments: StoreKind.allCases)
    func fetchParent(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try Self.fill(store)
        let all = try store.read { try $0.fetch("Car", orderBy: [.ascending("year")]) }
        #expect(
            all.map(Self.summary) == [
                #"ExpensiveSportCar model="F40" price=2500000.5 topSpeed=324 year=1987"#,
                #"SportCar model="Miata" topSpeed=200 year=1990"#,
                #"SportCar model="Supra" topSpeed=250 year=1993"#,
                #"Truck load=18000 model="Actros" year=2010"#,
            ])
        let sport = try store.read { try $0.fetch("SportCar", orderBy: [.descending("topSpeed")]) }
        #expect(sport.map(\.entity) == ["ExpensiveSportCar", "SportCar", "SportCar"])
        #expect(sport.map { $0["model"] } == ["F40", "Supra", "Miata"])
        let expensive = try store.read { try $0.fetch("ExpensiveSportCar") }
        #expect(expensive.map { $0["model"] } == ["F40"])
        let trucks = try store.read { try $0.fetch("Truck") }
        #expect(trucks.map { $0["load"] } == [18_000])
        // An object fetched by identifier through its parent is of its own entity.
        let f40 = try #require(try store.read { try $0.object("Car", id: expensive[0].id!) })
        #expect(f40.entity == "ExpensiveSportCar" && f40["price"] == 2_500_000.5)
        #expect(try store.read { try $0.object("Truck", id: expensive[0].id!) } == nil)
    }

    @Test(
        "predicates, sorts, counts and aggregates over inherited attributes respect the hierarchy",
        arguments: StoreKind.allCases)
    func predicates(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try Self.fill(store)
        try store.read { (objects: Objects) throws in
            #expect(
                try objects.fetch("SportCar", where: .less("year", 1991), orderBy: [.ascending("model")]).map {
                    $0["model"]
                } == ["F40", "Miata"])
            #expect(try objects.fetch("Car", where: .hasPrefix("model", "A")).map(\.entity) == ["Truck"])
            #expect(try objects.count("Car") == 4)
            #expect(try objects.count("SportCar") == 3)
            #expect(try objects.count("ExpensiveSportCar") == 1)
            #expect(try objects.count("Truck", where: .greater("year", 2000)) == 1)
            #expect(try objects.count("SportCar", where: .greater("year", 2000)) == 0)
            #expect(try objects.sum("topSpeed", of: "SportCar") == .int(774))
            #expect(try objects.max("year", of: "SportCar") == .int(1993))
            #expect(try objects.min("year", of: "Car") == .int(1987))
            #expect(try objects.distinctValues("model", of: "SportCar") == ["F40", "Miata", "Supra"])
        }
        // A predicate on an attribute of a sub-entity is refused on its parent, naming it.
        let error = moltError { _ = try store.read { try $0.fetch("Car", where: .equal("topSpeed", 200)) } }
        #expect(error?.message.contains("'topSpeed'") == true)
    }

    @Test(
        "an abstract entity cannot be inserted; a required attribute of a sub-entity is required for its objects only",
        arguments: StoreKind.allCases)
    func refusals(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let abstract = moltError { try store.write { _ = try $0.insert("Car", ["model": "T", "year": 1908]) } }
        #expect(
            abstract?.message
                == "Entity 'Car' is abstract and has no objects of its own: insert one of its sub-entities (SportCar, ExpensiveSportCar, Truck) instead."
        )
        let missing = moltError { try store.write { _ = try $0.insert("SportCar", ["model": "T", "year": 1908]) } }
        #expect(
            missing?.message
                == "Attribute 'SportCar.topSpeed' is required; give it a value (or a default in the schema).")
        // A truck has no top speed: its row leaves the column empty.
        try store.write { _ = try $0.insert("Truck", ["model": "T", "year": 1908]) }
        let unknown = moltError {
            try store.write { _ = try $0.insert("Truck", ["model": "T", "year": 1908, "topSpeed": 1]) }
        }
        #expect(unknown?.message.hasPrefix("Entity 'Truck' has no attribute 'topSpeed'") == true)
        #expect(try store.read { try $0.count("Car") } == 1)
    }

    @Test(
        "a relationship to a parent holds sub-entities; updates and delete rules work across the hierarchy",
        arguments: StoreKind.allCases)
    func relationships(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try Self.fill(store)
        try store.read { (objects: Objects) throws in
            let ada = try #require(try objects.fetch("Person", where: .equal("name", "Ada")).first)
            let cars = try objects.destinations("cars", of: ada)
            #expect(cars.map(\.entity) == ["SportCar", "ExpensiveSportCar"])
            let owner = try #require(try objects.destination("owner", of: cars[1]))
            #expect(owner["name"] == "Ada")
        }
        // A link to an object of another kind is refused.
        let wrong = moltError {
            try store.write { (objects: Objects) throws in
                let truck = try #require(try objects.fetch("Truck").first)
                let person = try #require(try objects.fetch("Person").first)
                try objects.set("owner", of: person as DynamicObject, to: truck)
            }
        }
        #expect(wrong != nil)
        try store.write { (objects: Objects) throws in
            var supra = try #require(try objects.fetch("SportCar", where: .equal("model", "Supra")).first)
            supra["topSpeed"] = 260
            supra["year"] = 1994
            try objects.update(supra)
        }
        #expect(try store.read { try $0.fetch("Car", where: .equal("year", 1994)).map { $0["topSpeed"] } } == [260])
        // Deleting Bob cascades to his truck and his Supra, whatever their entity.
        try store.write { (objects: Objects) throws in
            try objects.deleteAll("Person", where: .equal("name", "Bob"))
        }
        #expect(
            try store.read { try $0.fetch("Car", orderBy: [.ascending("model")]).map { $0["model"] } } == [
                "F40", "Miata",
            ])
        #expect(try store.write { try $0.deleteAll("Car", where: .equal("model", "F40")) } == 1)
        #expect(try store.read { try $0.fetch("SportCar").map { $0["model"] } } == ["Miata"])
    }

    @Test(
        "relationships declared by sub-entities and to sub-entities; the store opens again",
        arguments: StoreKind.durable)
    func subEntityRelationships(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let schema = InheritanceSchemaTests.garages
        var store = try kind.makeStore(schema: schema, in: dir)
        try store.write { (objects: Objects) throws in
            let garage = try objects.insert("Garage", ["name": "North"])
            let f40 = try objects.insert(
                "ExpensiveSportCar", ["model": "F40", "year": 1987, "topSpeed": 324, "price": 1.5])
            let van = try objects.insert("Van", ["model": "T2", "year": 1970, "plate": "B-1"])
            let truck = try objects.insert("Truck", ["model": "Actros", "year": 2010])
            try objects.set("favorite", of: garage, to: f40)
            try objects.set("cars", of: garage, to: [van, f40, truck])
            try objects.set("home", of: van, to: garage)
            try objects.add(garage, to: "garages", of: van)
            let refused = moltError { try objects.set("favorite", of: garage, to: truck) }
            #expect(
                refused?.message
                    == "Relationship 'favorite' points to 'SportCar' objects (or objects of its sub-entities), not 'Truck'."
            )
        }
        // The primary key of a sub-entity is unique among its objects (an index on the hierarchy's table).
        let duplicate = moltError {
            try store.write { _ = try $0.insert("Van", ["model": "T3", "year": 1980, "plate": "B-1"]) }
        }
        #expect(duplicate?.code == .constraintViolation)
        try store.close()
        store = try kind.open(in: dir, schema: schema)
        defer { try? store.close() }
        try store.read { (objects: Objects) throws in
            let garage = try #require(try objects.fetch("Garage").first)
            #expect(try objects.destination("favorite", of: garage)?.entity == "ExpensiveSportCar")
            #expect(
                try objects.destinations("cars", of: garage).map(\.entity) == ["Van", "ExpensiveSportCar", "Truck"])
            let van = try #require(try objects.object("Van", primaryKey: "B-1"))
            #expect(try objects.destinations("garages", of: van).map { $0["name"] } == ["North"])
            #expect(try objects.destination("home", of: van)?["name"] == "North")
        }
        try store.write { (objects: Objects) throws in try objects.deleteAll("Garage") }
        try store.read { (objects: Objects) throws in
            #expect(try objects.count("Car") == 3)
            let van = try #require(try objects.object("Van", primaryKey: "B-1"))
            #expect(try objects.destinations("garages", of: van).isEmpty)
        }
    }
}
