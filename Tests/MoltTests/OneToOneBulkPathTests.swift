import Foundation
import Testing
@testable import Molt

/// The other bulk paths that write links keep a one-to-one single as the object API does: a mapping whose links
/// give two objects the same partner is refused before it links, naming both sides, with the store left at
/// its version; batch updates and upserts cannot set a link at all.
@Suite("Bulk paths keep one-to-ones single")
struct OneToOneBulkPathTests {
    @Test(
        "a mapping that links two people to one address is refused, the store unchanged", arguments: StoreKind.durable)
    func mappingLinks(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Seed001SplitTests.makeV1(try kind.location(in: dir), kind)
        let plan = try MigrationPlan(
            schemas: [Seed001SplitTests.v1, Seed001SplitTests.v2],
            stages: [
                .mapping(
                    from: 1, to: 2,
                    [
                        // Every person links to the address made from the first person: a one-to-one broken.
                        EntityMapping(
                            destination: "Person", attributes: ["fullName": "firstName || ' ' || lastName"],
                            links: [.init(relationship: "address", to: "Address", sourceKey: "1")]),
                        EntityMapping(
                            destination: "Address", source: "Person", filter: "street IS NOT NULL",
                            attributes: ["street": "street", "city": "city"]),
                    ])
            ])
        let error = #expect(throws: MoltError.self) {
            try Store.open(
                at: try kind.location(in: dir), schema: Seed001SplitTests.v2,
                options: kind.options.migrating(with: plan))
        }
        #expect(error?.code == .invalidValue)
        #expect(
            error?.message.hasPrefix(
                "The mapping's link 'Person.address' gives 'Address' #1 4 'Person' objects through 'Address.resident', its inverse, which is to-one: it holds one of them."
            ) == true, "\(String(describing: error))")
        let store = try Store.open(at: try kind.location(in: dir), schema: Seed001SplitTests.v1, options: kind.options)
        defer { try? store.close() }
        #expect(try store.read { try $0.count("Person") } == Seed001SplitTests.people.count)
    }

    @Test("updateAll and upsert refuse a relationship among their values", arguments: StoreKind.allCases)
    func batchWritesSetNoLinks(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Seed001SplitTests.v2, in: dir)
        defer { try? store.close() }
        let address = try store.write { objects in
            try objects.insert("Address", ["street": "a", "city": "b"])
        }
        try store.write { objects in
            for name in ["x", "y"] {
                _ = try objects.insert("Person", ["fullName": .string(name), "yearsSinceBirth": 1])
            }
        }
        #expect(throws: MoltError.self) {
            try store.write { try $0.updateAll("Person", set: ["address": .int(address.id!)]) }
        }
        #expect(
            try store.read { objects in
                try objects.fetch("Person").compactMap { try objects.destination("address", of: $0) }
            }.isEmpty)
        try store.verify()
    }
}
