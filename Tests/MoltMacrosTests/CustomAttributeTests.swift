import Foundation
import Molt
import MoltMacros
import Testing

/// Attributes of the app's own types: enums stored as their raw value, Codable values stored as JSON.
@Suite("Typed attributes of the app's own types")
struct CustomAttributeTests {
    enum Status: String, PersistentValue { case draft, published }
    enum Priority: Int, PersistentValue { case low = 1, high = 2 }
    struct Address: StoredAsJSON, Equatable { var street: String; var city: String }
    struct Reading: StoredAsJSON, Equatable { var value: Double }

    @Model struct Gauge {
        var label: String
        var last: Reading?
    }

    @Model struct Post {
        var title: String
        var status: Status
        var priority: Priority?
        var address: Address
    }

    static let schema = Schema(version: 1, entities: [Post.entity])

    @Test("the entity stores an enum as its raw value's type and a JSON value as text")
    func entity() {
        #expect(Post.entity.attributes.map(\.type) == [.string, .string, .int, .string])
        #expect(Post.entity.attributes.map(\.isOptional) == [false, false, true, false])
    }

    @Test("enums and JSON values round-trip, and enums compare in predicates by raw value")
    func roundTrip() throws {
        let store = try Store.inMemory(schema: Self.schema)
        let home = Address(street: "1 Main St", city: "Springfield")
        try store.write { objects in
            try objects.insert(Post(title: "a", status: .draft, priority: .high, address: home))
            try objects.insert(
                Post(title: "b", status: .published, priority: nil, address: Address(street: "2 Elm", city: "X")))
        }
        let published = try store.read { try $0.fetch(Post.self, where: \.status == .published) }
        #expect(published.map(\.title) == ["b"])
        let first = try #require(try store.read { try $0.fetch(Post.self, where: \.address == home) }.first)
        #expect(first.priority == .high && first.address == home)
        let stored = try store.read { try $0.fetch("Post").map { $0["address"] } }
        #expect(stored.first == .string(#"{"city":"Springfield","street":"1 Main St"}"#))
    }

    @Test("a stored raw value that no case has is reported when read, naming the attribute")
    func unknownRawValue() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.write { objects in
            try objects.insert("Post", ["title": "a", "status": "archived", "address": #"{"city":"c","street":"s"}"#])
        }
        let error = #expect(throws: MoltError.self) { try store.read { try $0.fetch(Post.self) } }
        #expect(error?.message == "Attribute 'Post.status' holds \"archived\", which is not a Status.")
    }

    @Test("a JSON value that cannot be encoded (a NaN inside) is refused, not stored as null, even when optional")
    func unencodableJSON() throws {
        let store = try Store.inMemory(schema: Schema(version: 1, entities: [Gauge.entity]))
        let error = #expect(throws: MoltError.self) {
            try store.write { objects in try objects.insert(Gauge(label: "a", last: Reading(value: .nan))) }
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.hasPrefix("A value of type Reading cannot be stored as JSON") == true)
        #expect(try store.read { try $0.count(Gauge.self) } == 0)
    }
}
