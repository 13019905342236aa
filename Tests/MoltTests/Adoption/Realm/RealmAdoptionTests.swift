import Foundation
import Molt
import Testing

@testable import MoltAdoption

/// Adoption of the Realm files realm-core 14.14.0 wrote (`../shared/foreign-stores/realm/`), on every durable store
/// kind: the schema read from the file, every object with the values and links its README states, the adoption
/// record, and LinkingObjects kept as an inverse when the app's schema declares it.
@Suite("Realm files: adoption", .enabled(if: ForeignStores.isPresent, "needs ../shared/foreign-stores"))
struct RealmAdoptionTests {
    static func url(_ name: String) -> URL { ForeignStores.url("realm/" + name) }

    /// Adopts the Realm file `name` into a new store of `kind`, at the schema the adoption reads (or `schema`).
    static func adopt(
        _ name: String, into kind: StoreKind, in directory: TemporaryDirectory, schema: Schema? = nil,
        renaming: [String: String] = [:]
    ) throws -> (Store, AdoptionReport) {
        let adoption = RealmAdoption(schema: schema, renaming: renaming, from: url(name))
        let target = try adoption.matchedVersion(of: url(name)).schema
        let location = try kind.location(in: directory)
        let report = try #require(try adoption.adopt(at: location, schema: target, options: kind.options))
        return (try Store.open(at: location, schema: target, options: kind.options), report)
    }

    @Test("the memo app's first file: 300 memos, each value as the README states it", arguments: StoreKind.durable)
    func memos(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (store, report) = try Self.adopt("memo_v0.realm", into: kind, in: directory)
        defer { try? store.close() }
        #expect(store.schema.version == 0)
        let memo = try #require(store.schema.entity(named: "UserMemo"))
        #expect(memo.primaryKey == "objectID")
        #expect(
            memo.attributes.map(\.name) == [
                "objectID", "memoTitle", "memoDate", "memoSubtitle", "memoContent", "favorite",
            ])
        #expect(memo.attributes.map(\.type) == [.string, .string, .date, .string, .string, .bool])
        #expect(memo.attributes.map(\.isOptional) == [false, false, false, true, true, false])
        #expect(report.record.engine == "Realm")
        #expect(report.record.sourceVersions == ["Realm schema version 0", "file format 24"])
        #expect(report.record.objectCounts == ["UserMemo": 300])
        #expect(report.comparison.agrees)
        try store.read { (objects: Objects) throws in
            let memos = try objects.fetch("UserMemo", orderBy: [.ascending("memoTitle")])
            #expect(memos.count == 300)
            // Every 3rd subtitle nil, every 5th content nil (memo 0 included).
            #expect(memos.filter { $0["memoSubtitle"].isNull }.count == 100)
            #expect(memos.filter { $0["memoContent"].isNull }.count == 60)
            for memo in memos {
                let number = try #require(Int(memo["memoTitle"].string?.dropFirst(5) ?? ""))
                // The identity is the Realm object key + 1; the ObjectId its 24 hex digits.
                #expect(memo.id == Int64(number) + 1)
                let objectID = try #require(memo["objectID"].string)
                #expect(objectID.count == 24 && objectID.allSatisfy(\.isHexDigit) && objectID == objectID.lowercased())
                #expect(objectID.hasPrefix(String(format: "6554%04x", number)))
                // The generator's dates: from 1,700,000,000 s, in whole milliseconds (as Realm Swift reads them:
                // within a microsecond of the millisecond).
                let seconds = try #require(memo["memoDate"].date).timeIntervalSince1970
                #expect(seconds >= 1_700_000_000 && abs(seconds * 1000 - (seconds * 1000).rounded()) < 1e-3)
                if number == 1 { #expect(seconds == 1_700_003_637.919) }
                #expect((memo["memoSubtitle"].isNull) == (number % 3 == 0))
                #expect((memo["memoContent"].isNull) == (number % 5 == 0))
            }
        }
    }

    @Test("each memo file adopts at its Realm schema version, with its memos", arguments: 1...6)
    func memoVersions(version: Int) throws {
        let directory = TemporaryDirectory()
        let (store, report) = try Self.adopt("memo_v\(version).realm", into: .wal, in: directory)
        defer { try? store.close() }
        #expect(store.schema.version == version)
        #expect(report.record.objectCounts == ["UserMemo": 300 + 4 * version])
        let names = try #require(store.schema.entity(named: "UserMemo")).attributes.map(\.name)
        #expect(names.contains("title") == (version >= 3))
        if version == 6 {
            let count = try #require(store.schema.entity(named: "UserMemo")?.attribute(named: "count"))
            #expect(count.type == .double)
        }
    }

    /// The people app's classes as its Swift code declares them: `Pet.owner` is `LinkingObjects(Person.pets)`.
    static let people = Schema(version: 1) {
        Entity("Address") {
            Attribute("street", .string)
            Attribute("city", .string)
            Attribute("postalCode", .string, isOptional: true)
            Attribute("country", .string)
        }
        Entity("Person") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("age", .int)
            Relationship("pets", toMany: "Pet", ordered: true, inverse: "owner")
            Relationship("address", to: "Address", deleteRule: .cascade)
        }
        Entity("Pet") {
            Attribute("name", .string)
            Attribute("kind", .string)
            Relationship("owner", toMany: "Person", inverse: "pets")
        }
    }

    @Test(
        "people: lists in order, embedded addresses owned, LinkingObjects kept as the declared inverse",
        arguments: StoreKind.durable)
    func people(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (store, report) = try Self.adopt("people_v0.realm", into: kind, in: directory, schema: Self.people)
        defer { try? store.close() }
        #expect(store.schema.version == 1)
        #expect(report.record.objectCounts == ["Person": 1000, "Pet": 1510, "Address": 857])
        #expect(report.record.leftOut.contains { $0.contains("backlinks of 'Address'") })
        #expect(!report.record.leftOut.contains { $0.contains("backlinks of 'Pet'") })
        let original = try RealmFile(at: Self.url("people_v0.realm"))
        let persons = try #require(original.table(named: "class_Person"))
        let petsColumn = try #require(persons.columns.firstIndex { $0.name == "pets" })
        try store.read { (objects: Objects) throws in
            // 19 pets in two lists, 10 in none: from the inverse Molt filled.
            var owners: [Int: Int] = [:]
            for pet in try objects.fetch("Pet") {
                owners[try objects.destinations("owner", of: pet).count, default: 0] += 1
            }
            #expect(owners == [0: 10, 1: 1481, 2: 19])
            // Each list in its Realm order, read from the file.
            for person in try original.objects(in: persons) {
                guard case .list(let links) = person.values[petsColumn] else { Issue.record("no list"); return }
                let adopted = try #require(try objects.object("Person", id: person.key + 1))
                let pets = try objects.destinations("pets", of: adopted).map(\.id)
                #expect(pets == links.compactMap { if case .link(_, let key) = $0 { key + 1 } else { nil } })
            }
        }
        // An embedded address lives in its person: deleting the person deletes it.
        let withAddress = try store.read { objects in
            try objects.fetch("Person").first { try objects.destination("address", of: $0) != nil }
        }
        let person = try #require(withAddress)
        try store.write { objects in try objects.delete(person) }
        #expect(try store.read { try $0.count("Address") } == 856)
    }

    @Test("200,000 items, their values and their primary key", arguments: [StoreKind.wal])
    func large(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (store, report) = try Self.adopt("large_200k.realm", into: kind, in: directory)
        defer { try? store.close() }
        #expect(report.record.objectCounts == ["Item": 200_000])
        #expect(store.schema.entity(named: "Item")?.primaryKey == "id")
        try store.read { (objects: Objects) throws in
            let first = try #require(try objects.object("Item", id: 1))
            #expect(first["id"] == 0 && first["name"] == "item 0" && first["flag"] == true)
            #expect(first["value"] == .double(16161.579559326172) && first["note"] == "note 231")
            #expect(first["createdAt"] == .date(Date(timeIntervalSince1970: 1_600_000_000)))
            let second = try #require(try objects.object("Item", id: 2))
            #expect(second["note"].isNull && second["createdAt"] == .date(Date(timeIntervalSince1970: 1_600_000_060)))
        }
    }

    @Test("a compacted file adopts to what its uncompacted original does; a pinned reader's file to its 503 notes")
    func compactedAndPinned() throws {
        let directory = TemporaryDirectory()
        let notes = try ["churn_compacted.realm", "churn_uncompacted.realm"].map { name in
            let (store, _) = try Self.adopt(name, into: .wal, in: TemporaryDirectory())
            defer { try? store.close() }
            let names = try #require(store.schema.entity(named: "Note")).attributes.map(\.name)
            return try store.read { objects in
                try objects.fetch("Note").map { note in [Value.int(note.id ?? 0)] + names.map { note[$0] } }
            }
        }
        #expect(notes[0].count == 1_000)
        #expect(notes[0] == notes[1])
        let (pinned, _) = try Self.adopt("pinned_reader.realm", into: .wal, in: directory)
        defer { try? pinned.close() }
        #expect(try pinned.read { try $0.count("Note") } == 503)
    }

    @Test("a renamed property: the adoption's name, the Realm values")
    func renamed() throws {
        let directory = TemporaryDirectory()
        let (store, _) = try Self.adopt(
            "memo_v0.realm", into: .wal, in: directory, renaming: ["UserMemo.memoTitle": "headline"])
        defer { try? store.close() }
        #expect(
            try store.read { try $0.fetch("UserMemo").filter { $0["headline"].string?.hasPrefix("Memo ") == true } }
                .count == 300)
    }
}
