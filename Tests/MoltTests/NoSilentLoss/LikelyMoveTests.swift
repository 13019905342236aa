import Foundation
import Testing
@testable import Molt

/// A split whose stage was forgotten: version 4 moves `street` and `city` from `Person` to a new `ContactInfo`.
/// Inferred, the step would drop every street and city; it is refused like a likely rename, unless a stage or a
/// mapping carries the values or the deletion is declared.
@Suite("No silent loss: likely moves to another entity")
struct LikelyMoveTests {
    static let v3 = Schema(version: 3) {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("street", .string, isOptional: true)
            Attribute("city", .string, isOptional: true)
        }
    }

    static func v4(deleting: [Deletion] = []) -> Schema {
        var schema = Schema(version: 4) {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("contact", to: "ContactInfo", inverse: "person")
            }
            Entity("ContactInfo") {
                Attribute("street", .string, isOptional: true)
                Attribute("city", .string, isOptional: true)
                Relationship("person", to: "Person", inverse: "contact")
            }
        }
        schema.deletions = deleting
        return schema
    }

    static let split = MigrationStage.custom(from: 3, to: 4) { migration in
        try migration.enumerateOldObjects(ofType: "Person") { old in
            let contact = try migration.create("ContactInfo", value: ["street": old["street"], "city": old["city"]])
            let person = try #require(try migration.new.object("Person", id: old.id))
            try migration.new.set("contact", of: person, to: contact)
        }
    }

    static func makeStore(_ kind: StoreKind, in dir: TemporaryDirectory, people: Int = 3) throws {
        let store = try kind.open(in: dir, schema: Self.v3)
        try store.write { objects in
            for i in 0..<people {
                try objects.insert(
                    "Person",
                    ["name": .string("p\(i)"), "street": .string("\(i) Main St"), "city": .string("City \(i)")])
            }
        }
        try store.close()
    }

    @Test(
        "the forgotten split stage is refused, naming both moves and the fixes; nothing is written",
        arguments: StoreKind.durable)
    func forgottenStageIsRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(kind, in: dir)
        let before = FileState(try kind.location(in: dir))
        let error = moltError { _ = try kind.open(in: dir, schema: Self.v4()) }
        #expect(error?.code == .dataLossRefused)
        #expect(error?.entity == "Person")
        let message = try #require(error?.message)
        #expect(
            message.hasPrefix(
                "Molt will not migrate from version 3 to 4: it would delete stored data that the schema does not declare deleted."
            ))
        #expect(
            message.contains(
                "- Version 4 removes attribute 'Person.street', which holds 3 values, and adds 'ContactInfo.street' of the same name: a likely move (a split), and the values would be deleted. If 'Person.street' moved to 'ContactInfo.street', move its values in a custom stage from version 3 to 4"
            ))
        #expect(
            message.contains(
                "- Version 4 removes attribute 'Person.city', which holds 3 values, and adds 'ContactInfo.city' of the same name"
            ))
        #expect(message.contains(#"declare it: `Schema(version: 4, deleting: [.property("city", of: "Person")])`"#))
        #expect(FileState(try kind.location(in: dir)) == before)
        let reopened = try kind.open(in: dir, schema: Self.v3)
        #expect(
            try reopened.read { try $0.fetch("Person") }.map { $0["street"] } == [
                "0 Main St", "1 Main St", "2 Main St",
            ])
    }

    @Test(
        "the split stage moves the values; the history says the stage read them, not that they were dropped",
        arguments: StoreKind.durable)
    func stageMovesValues(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(kind, in: dir)
        let plan = try MigrationPlan(schemas: [Self.v3, Self.v4()], stages: [Self.split])
        let store = try kind.open(in: dir, schema: Self.v4(), options: kind.options.migrating(with: plan))
        try store.read { objects in
            let people = try objects.fetch("Person", orderBy: [.ascending("name")])
            let streets = try people.map { try objects.destination("contact", of: $0)?["street"] ?? .null }
            #expect(streets == ["0 Main St", "1 Main St", "2 Main St"])
        }
        let step = try #require(try store.history().last?.stepRecords.first)
        #expect(
            step.summary
                == "3 → 4 custom: 3 objects inserted; read by the stage, then removed: 3 values of 'Person.street', 3 values of 'Person.city'"
        )
    }

    @Test("a stage that reads only the street reports the city as dropped", arguments: StoreKind.durable)
    func stageThatForgetsCity(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(kind, in: dir)
        let streetOnly = MigrationStage.custom(from: 3, to: 4) { migration in
            try migration.enumerateObjects(ofType: "Person") { old, _ in
                let contact = try migration.create("ContactInfo", value: ["street": old["street"]])
                try migration.new.set(
                    "person", of: contact, to: try #require(try migration.new.object("Person", id: old.id)))
            }
        }
        let plan = try MigrationPlan(schemas: [Self.v3, Self.v4()], stages: [streetOnly])
        let store = try kind.open(in: dir, schema: Self.v4(), options: kind.options.migrating(with: plan))
        let step = try #require(try store.history().last?.stepRecords.first)
        #expect(
            step.summary
                == "3 → 4 custom: 3 objects inserted; dropped 3 values of 'Person.city'; read by the stage, then removed: 3 values of 'Person.street'"
        )
    }

    @Test("a mapping that moves street and city: the history says the mapping read them", arguments: StoreKind.durable)
    func mappingMovesValues(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(kind, in: dir)
        let mapping = MigrationStage.mapping(
            from: 3, to: 4,
            [
                EntityMapping(
                    destination: "ContactInfo", source: "Person", attributes: ["street": "street", "city": "\"city\""]),
                EntityMapping(destination: "Person", links: [.init(relationship: "contact", to: "ContactInfo")]),
            ])
        let plan = try MigrationPlan(schemas: [Self.v3, Self.v4()], stages: [mapping])
        let store = try kind.open(in: dir, schema: Self.v4(), options: kind.options.migrating(with: plan))
        #expect(try store.read { try $0.fetch("ContactInfo").map { $0["city"] } } == ["City 0", "City 1", "City 2"])
        let dropped = try #require(try store.history().last?.stepRecords.first?.dropped.filter { $0.count > 0 })
        #expect(dropped.map(\.wasReadByStage) == [true, true])
    }

    @Test(
        "a declared deletion lets the values go, and the history says they were dropped", arguments: StoreKind.durable)
    func declaredDeletion(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(kind, in: dir)
        let target = Self.v4(deleting: [.property("street", of: "Person"), .property("city", of: "Person")])
        let store = try kind.open(in: dir, schema: target)
        #expect(try store.read { try $0.count("ContactInfo") } == 0)
        let dropped = try #require(try store.history().last?.stepRecords.first?.dropped)
        #expect(
            dropped.filter { $0.count > 0 }.map(\.description).sorted() == [
                "3 values of 'Person.city'", "3 values of 'Person.street'",
            ])
    }

    @Test("a store that holds no street or city migrates without a declaration", arguments: StoreKind.durable)
    func emptyValuesMigrate(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.open(in: dir, schema: Self.v3)
        try store.write { objects in _ = try objects.insert("Person", ["name": "nobody"]) }
        try store.close()
        let migrated = try kind.open(in: dir, schema: Self.v4())
        #expect(try migrated.read { try $0.count("Person") } == 1)
    }

    @Test("the diff names the likely moves, and the move is not a likely rename")
    func diffNamesMoves() {
        let diff = SchemaDiff(from: Self.v3, to: Self.v4())
        #expect(
            diff.likelyMoves.map { "\($0.entity).\($0.attribute) → \($0.destination)" } == [
                "Person.street → ContactInfo", "Person.city → ContactInfo",
            ])
        #expect(diff.likelyRenames.isEmpty)
        #expect(diff.losses.filter(\.mustBeDeclared).map { $0.property ?? "" } == ["street", "city"])
    }

    @Test("a refused added attribute carries the likely rename the diff knows")
    func refusalCarriesRenameHint() throws {
        let v1 = Schema(version: 1) { Entity("Person") { Attribute("age", .int) } }
        let v2 = Schema(version: 2) { Entity("Person") { Attribute("yearsSinceBirth", .int) } }
        let diff = SchemaDiff(from: v1, to: v2)
        #expect(
            diff.refusals == [
                "Attribute 'Person.yearsSinceBirth' has been added as required with no default value between versions 1 and 2, so existing objects would have no value. Give it a default (`default: …`), make it optional, or set its value in a custom stage from version 1 to 2. If 'Person.age' was renamed to 'yearsSinceBirth', add \"originalName\" : \"age\" to attribute 'yearsSinceBirth' of entity 'Person' (in Swift: `@Attribute(originalName: \"age\") var yearsSinceBirth` in a @Model, or Attribute(\"yearsSinceBirth\", .int, originalName: \"age\")); its values are then kept instead of deleted."
            ])
        let error = moltError { _ = try MigrationPlan(schemas: [v1, v2]) }
        #expect(error?.message.contains("If 'Person.age' was renamed to 'yearsSinceBirth'") == true)
    }
}
