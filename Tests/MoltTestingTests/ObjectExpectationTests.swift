import Foundation
import Testing
@testable import MoltTesting

@Suite("Object expectations and diffs")
struct ObjectExpectationTests {
    static let v0 = Schema(version: 0) {
        Entity("Item") {
            Attribute("name", .string)
            Attribute("count", .int, isOptional: true)
            Attribute("done", .bool, default: false)
            Attribute("code", .uuid, isOptional: true)
        }
    }
    static let v1 = Schema(version: 1) {
        Entity("Item") {
            Attribute("label", .string, originalName: "name")
            Attribute("count", .double, default: 1)
            Attribute("done", .int)
            Attribute("code", .string, isOptional: true)
            Attribute("note", .string, isOptional: true)
            Attribute("rank", .int, default: 5)
        }
    }
    static let v2 = Schema(version: 2) {
        Entity("Thing", originalName: "Item") {
            Attribute("label", .string)
            Attribute("count", .double, default: 1)
            Attribute("done", .int)
            Attribute("code", .string, isOptional: true)
            Attribute("rank", .int, default: 5)
        }
    }

    @Test("carried values follow renames, widen as Molt converts them, and take defaults")
    func carriedValues() throws {
        let code = UUID()
        let object = FixtureObject(
            key: "a", entity: "Item", version: 0, id: 1,
            values: ["name": "A", "count": .null, "done": true, "code": .uuid(code)], links: [:])
        let carried = Carried(object, through: [Self.v0, Self.v1, Self.v2])
        #expect(carried.entity == "Thing")
        #expect(carried.values == ["label": "A", "count": 1.0, "done": 1, "code": .string(code.uuidString), "rank": 5])
        #expect(carried.unpredictable.isEmpty)
        let counted = Carried(
            FixtureObject(
                key: "b", entity: "Item", version: 0, id: 2, values: ["name": "B", "count": 7, "done": false],
                links: [:]),
            through: [Self.v0, Self.v1])
        #expect(counted.values["count"] == 7.0)
        #expect(counted.values["done"] == 0)
    }

    @Test("a conversion Molt does not infer, or a required attribute without default, is not predicted")
    func unpredictable() {
        let v1 = Schema(version: 1) {
            Entity("Item") {
                Attribute("name", .int)
                Attribute("count", .int, isOptional: true)
                Attribute("done", .bool, default: false)
                Attribute("code", .uuid, isOptional: true)
                Attribute("priority", .int)
            }
        }
        let carried = Carried(
            FixtureObject(
                key: "a", entity: "Item", version: 0, id: 1, values: ["name": "A", "count": 3, "done": true], links: [:]
            ),
            through: [Self.v0, v1])
        #expect(carried.unpredictable == ["name", "priority"])
        #expect(carried.values == ["count": 3, "done": true, "code": .null])
    }

    @Test("an entity removed by a version takes its objects with it")
    func removedEntity() {
        let v1 = Schema(version: 1) { Entity("Other") { Attribute("x", .int, isOptional: true) } }
        let carried = Carried(
            FixtureObject(key: "a", entity: "Item", version: 0, id: 1, values: [:], links: [:]), through: [Self.v0, v1])
        #expect(carried.entity == nil)
    }

    @Test("a diff reads as one line per attribute under the object")
    func diffDescription() {
        let object = FixtureObject(key: "groceries", entity: "UserMemo", version: 0, id: 1, values: [:], links: [:])
        let changed = ObjectDiff(
            object: object, entity: "Memo", kind: .changed,
            differences: [
                PropertyDifference(property: "title", expected: .value("Milk"), found: .value(.null)),
                PropertyDifference(property: "tags", expected: .links(["errand"]), found: .links([])),
            ])
        #expect(
            changed.description == """
                'Memo' object "groceries" (_id 1, stored at version 0 as 'UserMemo'):
                  title: expected "Milk", found null
                  tags: expected ["errand"], found []
                """)
        #expect(
            ObjectDiff(object: object, entity: "UserMemo", kind: .missing).description
                == "'UserMemo' object \"groceries\" (_id 1, stored at version 0) is missing.")
    }

    @Test("compare lists the attributes that differ, in the entity's order")
    func compare() {
        let object = DynamicObject(entity: "Item", values: ["label": "A", "count": 2.0, "done": 1])
        let differences = PropertyDifference.compare(
            expected: ["done": 0, "label": "A", "count": 3.0, "rank": 5], with: object,
            order: ["label", "count", "done", "rank"])
        #expect(
            differences.map(\.description) == [
                "count: expected 3.0, found 2.0", "done: expected 0, found 1", "rank: expected 5, found null",
            ])
    }

    @Test("differences(of:in:) compares stored fixtures with a store migrated by hand")
    func standaloneDifferences() throws {
        let dir = TemporaryDirectory()
        let tester = MigrationTester(schemas: [Memo.v0, Memo.v1, Memo.v2, Memo.v3Lossy])
        let start = try tester.makeStore(version: 2, fixtures: Memo.fixtures(at: 2), at: dir.file())
        try start.close()
        let plan = try MigrationPlan(schemas: tester.schemas)
        let store = try Store.open(
            at: dir.file(), schema: tester.newest, options: Store.Options().migrating(with: plan))
        defer { try? store.close() }
        let diffs = try store.read { objects in
            try tester.differences(of: start.objects, in: objects) { old in
                old.entity == "UserMemo" ? .survives(["title": old["memoTitle"]], dropping: ["memoTitle"]) : .survives()
            }
        }
        #expect(diffs.map(\.object.key) == ["groceries", "work"])
        #expect(diffs.map(\.kind) == [.changed, .changed])
        #expect(diffs[0].differences.map(\.description) == [#"title: expected "Milk", found null"#])
        // Without an expectation, the titles that version 3 drops are losses the test does not declare.
        let undeclared = try store.read { try tester.differences(of: start.objects, in: $0) }
        #expect(undeclared.map(\.kind) == [.valuesDropped, .valuesDropped])
        #expect(
            undeclared[0].description == """
                'UserMemo' object "groceries" (_id 1, stored at version 2):
                  memoTitle: expected "Milk", found nothing: version 3 removes it
                """)
    }
}
