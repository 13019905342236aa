import Foundation
import MoltTooling
import Testing
@testable import Molt

/// The import path (`ObjectImporter`: `molt import`, and every adoption) keeps a to-one side single: a side the
/// file leaves out is filled from its inverse only when each object would get one target, never by picking
/// one of two (which left the store with two sides that disagree, found only later by `molt check`).
@Suite("Imports keep one-to-ones and to-one inverses single")
struct OneToOneImportTests {
    static let schema = Schema(version: 1) {
        Entity("Member") {
            Attribute("name", .string)
            Relationship("user", to: "User", inverse: "membership")
        }
        Entity("User") {
            Attribute("name", .string)
            Relationship("membership", to: "Member", inverse: "user")
        }
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("pets", toMany: "Pet", inverse: "owner")
        }
        Entity("Pet") {
            Attribute("name", .string)
            Relationship("owner", to: "Owner", inverse: "pets")
        }
    }

    /// One object to import: its entity, file `_id` and links.
    struct Row: Sendable {
        var entity: String
        var id: Int64
        var links: [String: [Int64]] = [:]
    }

    static func importing(_ rows: [Row], into store: Store) throws {
        try store.write { objects in
            let importer = try ObjectImporter(objects, keepingIDs: true)
            for row in rows {
                try importer.insert(
                    store.schema.entity(named: row.entity)!, fileID: row.id,
                    values: ["name": .string("\(row.entity) \(row.id)")], links: row.links)
            }
            try importer.finish()
        }
    }

    static let refusals: [([Row], String)] = [
        (
            [
                Row(entity: "User", id: 1), Row(entity: "Member", id: 1, links: ["user": [1]]),
                Row(entity: "Member", id: 2, links: ["user": [1]]),
            ],
            "'Member' _id 1 and _id 2 both name 'User' _id 1 in 'user', but its inverse 'User.membership' is to-one: it can name only one of them. Link 'User' _id 1 from one 'Member' only; nothing was written."
        ),
        (
            [
                Row(entity: "Member", id: 1), Row(entity: "User", id: 1, links: ["membership": [1]]),
                Row(entity: "User", id: 2, links: ["membership": [1]]),
            ],
            "'User' _id 1 and _id 2 both name 'Member' _id 1 in 'membership', but its inverse 'Member.user' is to-one: it can name only one of them. Link 'Member' _id 1 from one 'User' only; nothing was written."
        ),
        (
            [
                Row(entity: "Pet", id: 1), Row(entity: "Owner", id: 1, links: ["pets": [1]]),
                Row(entity: "Owner", id: 2, links: ["pets": [1]]),
            ],
            "'Owner' _id 1 and _id 2 both list 'Pet' _id 1 in 'pets', but its inverse 'Pet.owner' is to-one: it can name only one of them. Link 'Pet' _id 1 from one 'Owner' only; nothing was written."
        ),
        (
            [
                Row(entity: "User", id: 1, links: ["membership": [1]]), Row(entity: "User", id: 2),
                Row(entity: "Member", id: 1, links: ["user": [1]]), Row(entity: "Member", id: 2, links: ["user": [1]]),
            ],
            "The two sides of 'Member.user' and its inverse 'User.membership' disagree: 'Member' _id 2 lists 'User' _id 1 in 'user', but 'User' _id 1 does not list it back in 'membership'. Make both sides say the same, or leave one side out of the file."
        ),
    ]

    @Test(
        "two objects naming one object whose inverse is to-one are refused, naming both, with nothing written",
        arguments: StoreKind.allCases, refusals.indices)
    func refused(kind: StoreKind, index: Int) throws {
        let (rows, message) = Self.refusals[index]
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let error = #expect(throws: MoltError.self) { try Self.importing(rows, into: store) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message == message)
        for entity in ["Member", "User", "Owner", "Pet"] {
            #expect(try store.read { try $0.count(entity) } == 0, "\(entity)")
        }
        try store.verify()
    }

    @Test("a one-to-one given from either side is filled on the other, one target each", arguments: StoreKind.allCases)
    func filled(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try Self.importing(
            [
                Row(entity: "User", id: 1), Row(entity: "User", id: 2), Row(entity: "User", id: 3),
                Row(entity: "Member", id: 1, links: ["user": [2]]), Row(entity: "Member", id: 2, links: ["user": [1]]),
                Row(entity: "Member", id: 3),
                Row(entity: "Pet", id: 1), Row(entity: "Pet", id: 2),
                Row(entity: "Owner", id: 1, links: ["pets": [2, 1]]),
            ], into: store)
        try store.read { objects in
            let users = try objects.fetch("User").map { try objects.destination("membership", of: $0)?.id }
            #expect(users == [2, 1, nil])
            let pets = try objects.fetch("Pet").map { try objects.destination("owner", of: $0)?.id }
            #expect(pets == [1, 1])
        }
        try store.verify()
    }
}
