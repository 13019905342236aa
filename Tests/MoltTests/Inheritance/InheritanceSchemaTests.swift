import Foundation
import Testing
@testable import Molt

/// Entity inheritance in the schema: what a sub-entity inherits, what validation refuses, and how a snapshot
/// records it (a schema without inheritance keeps the snapshot and content hash it always had).
@Suite("Inheritance: schema, validation and snapshots")
struct InheritanceSchemaTests {
    static let cars = Schema(version: 1) {
        Entity("Person") {
            Attribute("name", .string)
            Relationship("cars", toMany: "Car", inverse: "owner", deleteRule: .cascade)
        }
        Entity("Car", isAbstract: true) {
            Attribute("model", .string)
            Attribute("year", .int)
            Relationship("owner", to: "Person", inverse: "cars")
            Index(["model"])
        }
        Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int) }
        Entity("ExpensiveSportCar", parent: "SportCar") { Attribute("price", .double) }
        Entity("Truck", parent: "Car") { Attribute("load", .int, isOptional: true) }
    }

    /// The cars, a garage whose favorite may be any car, and sub-entities with to-many relationships, a primary
    /// key and indexes of their own: every kind of column, link and index a hierarchy's table may have.
    static let garages = Schema(
        version: 1,
        entities: cars.entities + [
            Entity("Garage") {
                Attribute("name", .string)
                Relationship("favorite", to: "SportCar")
                Relationship("cars", toMany: "Car", ordered: true)
            },
            Entity("Van", parent: "Car", primaryKey: "plate") {
                Attribute("plate", .string)
                Attribute("seats", .int16, isOptional: true)
                Relationship("garages", toMany: "Garage")
                Relationship("home", to: "Garage")
                Index(["seats", "year"])
            },
        ])

    @Test("a sub-entity has its parents' attributes and relationships before its own")
    func effective() throws {
        try Self.cars.validate()
        let expensive = try #require(Self.cars.effectiveEntity(named: "ExpensiveSportCar"))
        #expect(expensive.attributes.map(\.name) == ["model", "year", "topSpeed", "price"])
        #expect(expensive.relationships.map(\.name) == ["owner"])
        #expect(expensive.indexes == [Index(["model"])])
        #expect(expensive.parent == "SportCar")
        #expect(Self.cars.entity(named: "ExpensiveSportCar")?.attributes.map(\.name) == ["price"])
        #expect(Self.cars.subEntities(of: "Car").map(\.name) == ["SportCar", "Truck"])
        #expect(
            Self.cars.subEntities(of: "Car", recursive: true).map(\.name) == ["SportCar", "ExpensiveSportCar", "Truck"])
        #expect(Self.cars.rootEntity(of: "ExpensiveSportCar")?.name == "Car")
        #expect(Self.cars.rootEntity(of: "Person")?.name == "Person")
        #expect(Self.cars.concreteEntityNames(of: "Car") == ["SportCar", "ExpensiveSportCar", "Truck"])
    }

    static let refusals: [(Schema, String)] = [
        (
            Schema(version: 1) { Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int) } },
            "Invalid schema version 1: entity 'SportCar' inherits from 'Car', which is not in the schema; add it, or remove `parent: \"Car\"`."
        ),
        (
            Schema(version: 1) {
                Entity("A", parent: "B") { Attribute("a", .int) }
                Entity("B", parent: "A") { Attribute("b", .int) }
            },
            "Invalid schema version 1: entity 'A' inherits from itself through A → B → A; an entity cannot be its own ancestor. Remove one of the parents."
        ),
        (
            Schema(version: 1) {
                Entity("Car") { Attribute("model", .string) }
                Entity("SportCar", parent: "Car") { Attribute("model", .string) }
            },
            "Invalid schema version 1: entity 'SportCar' declares a property 'model', which it inherits from 'Car'; an object has one value per property. Remove it from 'SportCar', or rename it."
        ),
        (
            Schema(version: 1) {
                Entity("Car") { Attribute("model", .string) }
                Entity("SportCar", parent: "Car") { Attribute("speed", .int) }
                Entity("Racer", parent: "SportCar") { Relationship("Model", to: "Car") }
            },
            "Invalid schema version 1: entity 'Racer' declares a property 'Model', which it inherits from 'Car'; an object has one value per property. Remove it from 'Racer', or rename it."
        ),
        (
            Schema(version: 1) {
                Entity("Car", primaryKey: "vin") { Attribute("vin", .string) }
                Entity("SportCar", parent: "Car", primaryKey: "plate") { Attribute("plate", .string) }
            },
            "Invalid schema version 1: entities 'SportCar' and 'Car' of one hierarchy both declare a primary key; a sub-entity inherits its parent's. Declare it once."
        ),
        (
            Schema(version: 1) { Entity("Car") { Attribute("_entity", .string) } },
            "Invalid schema version 1: Attribute 'Car' name '_entity' is reserved by Molt; choose another name."
        ),
    ]

    @Test("validation refuses a missing parent, a cycle, a property declared twice in a hierarchy, two primary keys")
    func refusals() {
        for (schema, message) in Self.refusals {
            #expect(moltError { try schema.validate() }?.message == message)
        }
    }

    @Test("an index and a primary key of a sub-entity may name inherited attributes")
    func inheritedIndex() throws {
        try Schema(version: 1) {
            Entity("Car", primaryKey: "vin") {
                Attribute("vin", .string); Attribute("model", .string)
            }
            Entity("SportCar", parent: "Car") {
                Attribute("speed", .int); Index(["model", "speed"])
            }
        }.validate()
    }

    @Test("a snapshot records parent and abstract, and reads them back")
    func snapshot() throws {
        let json = try Self.cars.snapshotJSON()
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"abstract\" : true"))
        #expect(text.contains("\"parent\" : \"SportCar\""))
        let read = try Schema(snapshotJSON: json)
        #expect(read == Self.cars)
        #expect(read.contentHash == Self.cars.contentHash)
        #expect(read.effectiveEntity(named: "Truck")?.attributes.map(\.name) == ["model", "year", "load"])
    }

    @Test("a schema without inheritance keeps its snapshot text and content hash")
    func unchangedHash() throws {
        let plain = Schema(version: 3) {
            Entity("Note") {
                Attribute("title", .string); Relationship("folder", to: "Folder")
            }
            Entity("Folder") { Attribute("name", .string) }
        }
        let text = String(decoding: try plain.snapshotJSON(), as: UTF8.self)
        #expect(!text.contains("parent") && !text.contains("abstract"))
        // The hash of the same schema written by a Molt before inheritance (a snapshot without the keys).
        let old = """
            {"formatVersion":1,"version":3,"entities":[
              {"name":"Note","attributes":[{"name":"title","type":"string","optional":false}],
               "relationships":[{"name":"folder","destination":"Folder","kind":"toOne","deleteRule":"nullify"}]},
              {"name":"Folder","attributes":[{"name":"name","type":"string","optional":false}]}]}
            """
        let read = try Schema(snapshotJSON: Data(old.utf8))
        #expect(read.contentHash == plain.contentHash)
        #expect(read.entities.allSatisfy { $0.parent == nil && !$0.isAbstract })
        // Making one entity a sub-entity changes the hash: it is another schema.
        var changed = plain
        changed.entities[0].parent = "Folder"
        #expect(changed.contentHash != plain.contentHash)
    }
}
