import Foundation
import Molt
import Testing

/// An update by predicate and an upsert by a unique attribute, one statement each, on every store kind.
@Suite("Batch update and upsert")
struct BatchWriteTests {
    static let schema = Schema(version: 1) {
        Entity("Tag") {
            Attribute("label", .string)
            Index(["label"], unique: true)
            Attribute("color", .string, default: "grey")
            Attribute("uses", .int, default: 0)
        }
        Entity("Note") {
            Attribute("text", .string)
            Attribute("archived", .bool, default: false)
            Attribute("year", .int)
        }
    }

    @Test(
        "updateAll sets the values on the matching objects only, and returns their count", arguments: StoreKind.allCases
    )
    func updateAll(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try store.write { (objects: Objects) throws in
            for (text, year) in [("a", 2019), ("b", 2020), ("c", 2024)] {
                try objects.insert("Note", ["text": .string(text), "year": .int(Int64(year))])
            }
        }
        let count = try store.write {
            try $0.updateAll("Note", where: ObjectPredicate.less("year", 2021), set: ["archived": true])
        }
        #expect(count == 2)
        let archived = try store.read {
            try $0.fetch("Note", where: ObjectPredicate.equal("archived", true)).map { $0["text"] }
        }
        #expect(archived == ["a", "b"])
        #expect(
            try store.write { try $0.updateAll("Note", where: ObjectPredicate.equal("text", "none"), set: ["year": 1]) }
                == 0)
        #expect(try store.write { try $0.updateAll("Note", set: ["year": 2000]) } == 3)
        #expect(try store.read { try $0.count("Note", where: ObjectPredicate.equal("year", 2000)) } == 3)
    }

    @Test("a value that does not fit, or a clash on a unique attribute, writes nothing", arguments: StoreKind.allCases)
    func updateAllRefusals(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try store.write { (objects: Objects) throws in
            try objects.insert("Tag", ["label": "red"])
            try objects.insert("Tag", ["label": "blue"])
        }
        let wrongType = #expect(throws: MoltError.self) {
            try store.write { try $0.updateAll("Tag", set: ["uses": "many"]) }
        }
        #expect(wrongType?.entity == "Tag")
        #expect(throws: MoltError.self) { try store.write { try $0.updateAll("Tag", set: ["label": "same"]) } }
        #expect(throws: MoltError.self) { try store.write { try $0.updateAll("Tag", set: ["label": Value.null]) } }
        let labels = try store.read { try $0.fetch("Tag").map { $0["label"] } }
        #expect(labels == ["red", "blue"])
    }

    @Test(
        "upsert inserts a new object, then updates it in place, keeping its identifier", arguments: StoreKind.allCases)
    func upsert(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let first = try store.write { try $0.upsert("Tag", ["label": "red", "uses": 1], uniqueBy: "label") }
        #expect(first["color"] == "grey")
        let second = try store.write { try $0.upsert("Tag", ["label": "red", "color": "#f00"], uniqueBy: "label") }
        #expect(second.id == first.id)
        let stored = try store.read { try $0.object("Tag", id: first.id!) }
        #expect(stored?["color"] == "#f00")
        #expect(stored?["uses"] == 1, "an attribute the upsert did not give keeps its value")
        let other = try store.write { try $0.upsert("Tag", ["label": "blue"], uniqueBy: "label") }
        #expect(other.id != first.id)
        let again = try store.write { try $0.upsert("Tag", ["label": "blue"], uniqueBy: "label") }
        #expect(again.id == other.id)
        #expect(try store.read { try $0.count("Tag") } == 2)
        let next = try store.write { try $0.insert("Tag", ["label": "green"]) }
        #expect(next.id! > other.id!)
    }

    @Test("an upsert by an attribute that is not unique, or without its value, is refused naming the fix")
    func upsertRefusals() throws {
        let store = try Store.inMemory(schema: Self.schema)
        let notUnique = #expect(throws: MoltError.self) {
            try store.write { try $0.upsert("Note", ["text": "a", "year": 1], uniqueBy: "text") }
        }
        #expect(notUnique?.message.contains(#"declare `Index(["text"], unique: true)`"#) == true)
        let missing = #expect(throws: MoltError.self) {
            try store.write { try $0.upsert("Tag", ["color": "red"], uniqueBy: "label") }
        }
        #expect(missing?.message.contains("needs a value of 'label'") == true)
        #expect(try store.read { try $0.count("Tag") } == 0)
    }
}
