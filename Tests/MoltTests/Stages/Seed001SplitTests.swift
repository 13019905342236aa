import Foundation
import Testing
@testable import Molt

/// Seed 001: rename `age` → `yearsSinceBirth`, merge `firstName` + `lastName` → `fullName`, and split one model
/// into two (the production case), in code and as a reviewable mapping.
@Suite("Seed 001: rename, merge and split")
struct Seed001SplitTests {
    static let v1 = Schema(version: 1) {
        Entity("Person") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("age", .int)
            Attribute("street", .string, isOptional: true)
            Attribute("city", .string, isOptional: true)
        }
    }
    static let v2 = Schema(version: 2) {
        Entity("Person") {
            Attribute("fullName", .string)
            Attribute("yearsSinceBirth", .int, originalName: "age")
            Relationship("address", to: "Address", inverse: "resident", deleteRule: .cascade)
        }
        Entity("Address") {
            Attribute("street", .string)
            Attribute("city", .string)
            Relationship("resident", to: "Person", inverse: "address")
        }
    }

    static let people: [(first: String, last: String, age: Int, street: String?, city: String?)] = [
        ("Ada", "Lovelace", 36, "St James's Square", "London"),
        ("Alan", "Turing", 41, nil, nil),
        ("Grace", "Hopper", 85, "Arlington Ridge Rd", "Arlington"),
        ("Edsger", "Dijkstra", 72, "Nuenen Road", "Nuenen"),
    ]

    static func makeV1(_ url: StoreLocation, _ kind: StoreKind) throws {
        let store = try Store.open(at: url, schema: v1, options: kind.options)
        try store.write { objects in
            for p in people {
                try objects.insert(
                    "Person",
                    [
                        "firstName": .string(p.first), "lastName": .string(p.last), "age": .int(Int64(p.age)),
                        "street": p.street.map(Value.string) ?? .null, "city": p.city.map(Value.string) ?? .null,
                    ])
            }
        }
        try store.close()
    }

    static func check(_ store: Store) throws {
        try store.read { objects in
            let persons = try objects.fetch("Person", orderBy: [.ascending("fullName")])
            #expect(persons.count == people.count)
            #expect(try objects.count("Address") == people.filter { $0.street != nil }.count)
            for p in people {
                let person = try #require(
                    try objects.fetch("Person", where: .equal("fullName", .string("\(p.first) \(p.last)"))).first)
                #expect(person["yearsSinceBirth"] == .int(Int64(p.age)))
                let address = try objects.destination("address", of: person)
                if let street = p.street {
                    #expect(address?["street"] == .string(street))
                    #expect(address?["city"] == .string(p.city!))
                    let back = try objects.destination("resident", of: try #require(address))
                    #expect(back?.id == person.id)
                } else {
                    #expect(address == nil)
                }
            }
        }
    }

    @Test("in code: enumerate, create the Address, link it", arguments: StoreKind.durable)
    func inCode(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeV1(try kind.location(in: dir), kind)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    try migration.enumerateObjects(ofType: "Person") { old, new in
                        new["fullName"] = .string("\(old["firstName"].string!) \(old["lastName"].string!)")
                    }
                    // Realm's documented example writes the same in one enumerate; links need the person first.
                    for old in try migration.old.fetch("Person", where: .isNotNull("street")) {
                        let address = try migration.create(
                            "Address", value: ["street": old["street"], "city": old["city"]])
                        let person = try #require(try migration.new.object("Person", id: old.id!))
                        try migration.new.set("address", of: person, to: address)
                    }
                }
            ])
        let store = try Store.open(
            at: try kind.location(in: dir), schema: Self.v2, options: kind.options.migrating(with: plan))
        try Self.check(store)
    }

    @Test("as a mapping: SQL expressions, an Address per Person, links in a second phase", arguments: StoreKind.durable)
    func asMapping(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeV1(try kind.location(in: dir), kind)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2],
            stages: [
                .mapping(
                    from: 1, to: 2,
                    [
                        EntityMapping(
                            destination: "Person", attributes: ["fullName": "firstName || ' ' || lastName"],
                            links: [.init(relationship: "address", to: "Address")]),
                        EntityMapping(
                            destination: "Address", source: "Person", filter: "street IS NOT NULL",
                            attributes: ["street": "street", "city": "city"]),
                    ])
            ])
        let store = try Store.open(
            at: try kind.location(in: dir), schema: Self.v2, options: kind.options.migrating(with: plan))
        try Self.check(store)
    }

    @Test("a mapping that leaves a required attribute empty is refused with its name, and nothing changes")
    func mappingMissingRequired() throws {
        let dir = TemporaryDirectory()
        try Self.makeV1(.file(dir.file()), .wal)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2],
            stages: [
                .mapping(
                    from: 1, to: 2,
                    [
                        EntityMapping(destination: "Person", attributes: ["fullName": "firstName"]),
                        EntityMapping(destination: "Address", source: "Person", attributes: ["street": "street"]),
                    ])
            ])
        #expect {
            try Store.open(at: dir.file(), schema: Self.v2, options: StoreKind.wal.options.migrating(with: plan))
        } throws: { error in
            (error as? MoltError)?.message
                == "The mapping of 'Person' into 'Address' gives no value to the required attribute 'Address.city'; add it to `attributes`."
        }
        #expect(try Store.version(at: dir.file()) == 1)
    }
}
