import Foundation
import Testing
import Molt

/// Renaming entities of a hierarchy (by `originalName`), on every durable store kind: the objects keep their
/// identifiers, values and links under the new entity name, the history says the rename, and the store
/// validates and reopens at the new version.
@Suite("Inheritance: renamed entities")
struct InheritanceRenameTests {
    typealias Base = InheritanceMigrationTests

    /// Opens the migrated store again at its version (the shape and links checked on open), and verifies it.
    static func reopen(_ store: Store, _ kind: StoreKind, in dir: TemporaryDirectory, at schema: Schema) throws {
        try store.close()
        let again = try kind.open(in: dir, schema: schema)
        defer { try? again.close() }
        try again.verify()
    }

    @Test(
        "renaming a leaf sub-entity renames its objects, keeping their identifiers and values",
        arguments: StoreKind.durable)
    func leaf(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v2 = Schema(version: 2) {
            Entity("Car", isAbstract: true) {
                Attribute("model", .string)
                Attribute("year", .int)
            }
            Entity("LuxuryCar", parent: "Car", originalName: "SportCar") { Attribute("topSpeed", .int) }
            Entity("Truck", parent: "Car") { Attribute("load", .int, isOptional: true) }
        }
        let (_, after, store) = try Base.migrate(kind, in: dir, from: Base.hierarchy, fill: Base.fillHierarchy, to: v2)
        #expect(
            after == [
                #"1 LuxuryCar model="Miata" topSpeed=200 year=1990"#, #"2 Truck load=18000 model="Actros" year=2010"#,
                #"3 LuxuryCar model="Supra" topSpeed=250 year=1993"#,
            ])
        #expect(try Base.dump(store, "LuxuryCar").count == 2)
        #expect(try store.read { try $0.count("Car") } == 3)
        #expect(
            try store.history().last?.steps == ["1 → 2 inferred: Entity 'SportCar' has been renamed to 'LuxuryCar'."])
        // One UPDATE of the entity column: the two sport cars, nothing else.
        #expect(try store.history().last?.stepRecords.map(\.objectsUpdated) == [2])
        try store.write { _ = try $0.insert("LuxuryCar", ["model": "Aventador", "year": 2011, "topSpeed": 350]) }
        #expect(try Base.dump(store, "LuxuryCar").last == #"4 LuxuryCar model="Aventador" topSpeed=350 year=2011"#)
        try Self.reopen(store, kind, in: dir, at: v2)
    }

    /// Three levels: vehicles, cars (concrete, with sport cars under them), and bikes.
    static let threeLevels = Schema(version: 1) {
        Entity("Vehicle", isAbstract: true) { Attribute("name", .string) }
        Entity("Car", parent: "Vehicle") { Attribute("doors", .int) }
        Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int) }
        Entity("Bike", parent: "Vehicle") { Attribute("gears", .int) }
    }

    static func fillThreeLevels(_ store: Store) throws {
        try store.write { (objects: Objects) throws in
            _ = try objects.insert("Car", ["name": "Golf", "doors": 5])
            _ = try objects.insert("SportCar", ["name": "Miata", "doors": 2, "topSpeed": 200])
            _ = try objects.insert("Bike", ["name": "Brompton", "gears": 6])
        }
    }

    @Test(
        "renaming the middle entity of three levels renames its own objects; its sub-entity keeps its name",
        arguments: StoreKind.durable)
    func middle(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v2 = Schema(version: 2) {
            Entity("Vehicle", isAbstract: true) { Attribute("name", .string) }
            Entity("Automobile", parent: "Vehicle", originalName: "Car") { Attribute("doors", .int) }
            Entity("SportCar", parent: "Automobile") { Attribute("topSpeed", .int) }
            Entity("Bike", parent: "Vehicle") { Attribute("gears", .int) }
        }
        let first = try kind.open(in: dir, schema: Self.threeLevels)
        try Self.fillThreeLevels(first)
        try first.close()
        let store = try kind.open(in: dir, schema: v2)
        #expect(
            try Base.dump(store, "Vehicle") == [
                #"1 Automobile doors=5 name="Golf""#, #"2 SportCar doors=2 name="Miata" topSpeed=200"#,
                #"3 Bike gears=6 name="Brompton""#,
            ])
        #expect(try store.read { try $0.count("Automobile") } == 2)
        #expect(try Base.dump(store, "SportCar") == [#"2 SportCar doors=2 name="Miata" topSpeed=200"#])
        try Self.reopen(store, kind, in: dir, at: v2)
    }

    /// A root with a sub-entity, and drivers linked to cars both ways (a to-many of the root, its to-one inverse).
    static func rooted(version: Int, root: String, originalName: String? = nil) -> Schema {
        Schema(version: version) {
            Entity(root, originalName: originalName) {
                Attribute("model", .string)
                Relationship("drivers", toMany: "Driver", inverse: "car")
            }
            Entity("SportCar", parent: root) { Attribute("topSpeed", .int) }
            Entity("Driver") {
                Attribute("name", .string)
                Relationship("car", to: root, inverse: "drivers")
            }
        }
    }

    @Test(
        "renaming the root renames its table and join table and its own objects; its sub-entities keep theirs",
        arguments: StoreKind.durable)
    func root(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v2 = Self.rooted(version: 2, root: "Vehicle", originalName: "Car")
        let first = try kind.open(in: dir, schema: Self.rooted(version: 1, root: "Car"))
        try first.write { (objects: Objects) throws in
            let golf = try objects.insert("Car", ["model": "Golf"])
            let miata = try objects.insert("SportCar", ["model": "Miata", "topSpeed": 200])
            for (name, car) in [("Bo", golf), ("Cy", miata), ("Di", miata)] {
                try objects.set("car", of: try objects.insert("Driver", ["name": .string(name)]), to: car)
            }
        }
        #expect(try Base.dump(first) == [#"1 Car model="Golf""#, #"2 SportCar model="Miata" topSpeed=200"#])
        try first.close()
        // The table and the join table are renamed, the objects of the root relabelled: no row is copied.
        let plan = try Store.dryRunMigration(at: try kind.location(in: dir), to: v2)
        // (PostgreSQL's plan adds each statement's lock after it.)
        let update = #"UPDATE "Car" SET "_entity" = 'Vehicle' WHERE "_entity" = 'Car'"#
        #expect(plan.statements.first?.hasPrefix(update) == true, "\(plan.statements)")
        #expect(plan.statements.contains { $0.hasPrefix(#"ALTER TABLE "Car" RENAME TO "Vehicle""#) })
        #expect(
            !plan.statements.contains { $0.hasPrefix("CREATE TABLE") || $0.hasPrefix("INSERT") }, "\(plan.statements)")
        let store = try kind.open(in: dir, schema: v2)
        #expect(
            try Base.dump(store, "Vehicle") == [#"1 Vehicle model="Golf""#, #"2 SportCar model="Miata" topSpeed=200"#])
        #expect(try store.history().last?.steps == ["1 → 2 inferred: Entity 'Car' has been renamed to 'Vehicle'."])
        let links = try store.read { (objects: Objects) throws in
            try objects.fetch("Vehicle").map { car in
                "\(car.entity) \(car.id!): "
                    + (try objects.destinations("drivers", of: car).map { "\($0["name"])" }.sorted().joined(
                        separator: " "))
            }
                + (try objects.fetch("Driver").map {
                    "\($0["name"]) → \(try objects.destination("car", of: $0)?.id ?? 0)"
                })
        }
        #expect(links == [#"Vehicle 1: "Bo""#, #"SportCar 2: "Cy" "Di""#, #""Bo" → 1"#, #""Cy" → 2"#, #""Di" → 2"#])
        try store.write { _ = try $0.insert("Vehicle", ["model": "Polo"]) }
        #expect(try Base.dump(store, "Vehicle").last == #"3 Vehicle model="Polo""#)
        try Self.reopen(store, kind, in: dir, at: v2)
    }

    @Test(
        "a rename with an attribute added and one renamed in the same step keeps every value",
        arguments: StoreKind.durable)
    func withOtherChanges(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v2 = Schema(version: 2) {
            Entity("Car", isAbstract: true) {
                Attribute("model", .string)
                Attribute("year", .int)
            }
            Entity("LuxuryCar", parent: "Car", originalName: "SportCar") {
                Attribute("maxSpeed", .int, originalName: "topSpeed")
                Attribute("price", .int, default: 100_000)
                Attribute("trim", .string, isOptional: true)
            }
            Entity("Truck", parent: "Car") { Attribute("load", .int, isOptional: true) }
        }
        let (_, after, store) = try Base.migrate(kind, in: dir, from: Base.hierarchy, fill: Base.fillHierarchy, to: v2)
        #expect(
            after == [
                #"1 LuxuryCar maxSpeed=200 model="Miata" price=100000 trim=null year=1990"#,
                #"2 Truck load=18000 model="Actros" year=2010"#,
                #"3 LuxuryCar maxSpeed=250 model="Supra" price=100000 trim=null year=1993"#,
            ])
        let line = try #require(try store.history().last?.steps.first)
        #expect(line.contains("Entity 'SportCar' has been renamed to 'LuxuryCar'."))
        #expect(line.contains("Attribute 'LuxuryCar.topSpeed' has been renamed to 'maxSpeed'."))
        try Self.reopen(store, kind, in: dir, at: v2)
    }

    @Test(
        "a rename that changes which sibling keeps a shared property's column moves the values of both",
        arguments: StoreKind.durable)
    func sharedColumns(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        // Both siblings declare `load`: the first by name ("SportCar", then "ZoomCar" after "Truck") keeps the column.
        let v1 = Schema(version: 1) {
            Entity("Car", isAbstract: true) { Attribute("model", .string) }
            Entity("SportCar", parent: "Car") { Attribute("load", .int) }
            Entity("Truck", parent: "Car") { Attribute("load", .int) }
        }
        let v2 = Schema(version: 2) {
            Entity("Car", isAbstract: true) { Attribute("model", .string) }
            Entity("ZoomCar", parent: "Car", originalName: "SportCar") { Attribute("load", .int) }
            Entity("Truck", parent: "Car") { Attribute("load", .int) }
        }
        let fill = { (store: Store) in
            try store.write { (objects: Objects) throws in
                _ = try objects.insert("SportCar", ["model": "Miata", "load": 1])
                _ = try objects.insert("Truck", ["model": "Actros", "load": 18_000])
            }
        }
        let (_, after, store) = try Base.migrate(kind, in: dir, from: v1, fill: fill, to: v2)
        #expect(after == [#"1 ZoomCar load=1 model="Miata""#, #"2 Truck load=18000 model="Actros""#])
        try Self.reopen(store, kind, in: dir, at: v2)
    }

    @Test("two entities of a hierarchy that swap names keep their objects apart", arguments: StoreKind.durable)
    func swap(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v2 = Schema(version: 2) {
            Entity("Car", isAbstract: true) {
                Attribute("model", .string)
                Attribute("year", .int)
            }
            Entity("Truck", parent: "Car", originalName: "SportCar") { Attribute("topSpeed", .int) }
            Entity("SportCar", parent: "Car", originalName: "Truck") { Attribute("load", .int, isOptional: true) }
        }
        let (_, after, store) = try Base.migrate(kind, in: dir, from: Base.hierarchy, fill: Base.fillHierarchy, to: v2)
        #expect(
            after == [
                #"1 Truck model="Miata" topSpeed=200 year=1990"#, #"2 SportCar load=18000 model="Actros" year=2010"#,
                #"3 Truck model="Supra" topSpeed=250 year=1993"#,
            ])
        try Self.reopen(store, kind, in: dir, at: v2)
    }

    @Test(
        "a rename that also takes the entity out of its hierarchy is refused naming the fix, the store untouched",
        arguments: StoreKind.durable)
    func renamedOutOfHierarchy(kind: StoreKind) throws {
        let v2 = Schema(version: 2) {
            Entity("Car", isAbstract: true) {
                Attribute("model", .string)
                Attribute("year", .int)
            }
            Entity("LuxuryCar", originalName: "SportCar") {
                Attribute("model", .string)
                Attribute("year", .int)
                Attribute("topSpeed", .int)
            }
            Entity("Truck", parent: "Car") { Attribute("load", .int, isOptional: true) }
        }
        let message = try Base.refused(kind, from: Base.hierarchy, fill: Base.fillHierarchy, to: v2)
        #expect(
            message
                == "Molt cannot infer the migration from version 1 to 2:\n- Entity 'LuxuryCar' no longer has a parent (it inherited from 'Car') between versions 1 and 2: its objects would move from the table of 'Car' to a table of their own ('LuxuryCar'), which Molt does not infer. Keep the entity in its hierarchy (a new entity of the other hierarchy can take its place, its objects copied by your code before the upgrade)."
        )
    }
}
