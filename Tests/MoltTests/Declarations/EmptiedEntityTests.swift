import Foundation
import Testing
import Molt

/// A mapping stage that empties an entity the new version keeps (`EntityMapping.emptying`), as Core Data mapping
/// models did in five WooCommerce steps: every object deleted and unlinked, no delete rule run (a cascade would
/// delete objects of entities the mapping does not name).
@Suite("Emptied entities")
struct EmptiedEntityTests {
    static func v1(_ change: (inout Schema) -> Void = { _ in }) -> Schema { Library.v0().next(1, change) }

    static func migrate(
        _ kind: StoreKind, to v1: Schema, _ mappings: [EntityMapping], in dir: TemporaryDirectory
    ) throws -> (before: StoreDump, after: StoreDump, history: [MigrationRecord]) {
        let location = try kind.location(in: dir)
        let before = try Library.makeStore(at: location, schema: Library.v0(), kind: kind)
        let plan = try MigrationPlan(schemas: [Library.v0(), v1], stages: [.mapping(from: 0, to: 1, mappings)])
        let store = try Store.open(at: location, schema: v1, options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        return (before, try StoreDump(store), try store.history())
    }

    @Test(
        "WooCommerce: a mapping empties an entity the new version keeps; links to its objects go",
        arguments: StoreKind.durable)
    func emptyKeptEntity(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let (before, after, history) = try Self.migrate(kind, to: Self.v1(), [.emptying("Tag")], in: dir)
        var expected = before.mapping("Book") { $0.links["tags"] = [] }
        expected.entities["Tag"] = [:]
        #expect(after == expected)
        #expect(history.map(\.steps) == [["0 → 1 mapping (1 entity mapping(s)): no change"]])
        #expect(history.last?.stepRecords.map(\.summary) == ["0 → 1 mapping: 4 objects deleted"])
        // The kept entity takes new objects.
        let store = try Store.open(at: try kind.location(in: dir), schema: Self.v1(), options: kind.options)
        defer { try? store.close() }
        #expect(try store.write { objects in try objects.insert("Tag", ["label": "new"]).id } != nil)
    }

    @Test("emptying an entity unlinks the to-one links to its objects (nullify)", arguments: StoreKind.durable)
    func nullifiesToOne(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let (before, after, _) = try Self.migrate(kind, to: Self.v1(), [.emptying("Author")], in: dir)
        var expected = before.mapping("Book") { $0.links["author"] = [] }
        expected.entities["Author"] = [:]
        #expect(after == expected)
    }

    @Test(
        "no delete rule runs: a cascade of the emptied entity deletes nothing else, the objects it pointed to stay, unlinked",
        arguments: StoreKind.durable)
    func cascadeDoesNotFollow(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Self.v1 { $0.edit("Author") { $0.editRelationship("books") { $0.deleteRule = .cascade } } }
        let (before, after, history) = try Self.migrate(kind, to: v1, [.emptying("Author")], in: dir)
        var expected = before.mapping("Book") { $0.links["author"] = [] }
        expected.entities["Author"] = [:]
        #expect(after == expected)
        #expect(history.last?.stepRecords.map(\.objectsDeleted) == [3])
    }

    @Test(
        "a deny rule does not stop the emptying: as in Core Data, the links go with the objects",
        arguments: StoreKind.durable)
    func denyDoesNotStop(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Self.v1 { $0.edit("Author") { $0.editRelationship("books") { $0.deleteRule = .deny } } }
        let (before, after, _) = try Self.migrate(kind, to: v1, [.emptying("Author")], in: dir)
        var expected = before.mapping("Book") { $0.links["author"] = [] }
        expected.entities["Author"] = [:]
        #expect(after == expected)
    }

    @Test(
        "an emptying mapping names only a kept entity, and is not mixed with an in-place mapping of it",
        arguments: StoreKind.durable)
    func misuse(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        try Library.makeStore(at: location, schema: Library.v0(), kind: kind)
        let state = FileState(location)
        let v1 = Self.v1 { $0.entities.append(Entity("Shelf") { Attribute("name", .string) }) }
        func refusal(_ mappings: [EntityMapping]) throws -> String? {
            let plan = try MigrationPlan(schemas: [Library.v0(), v1], stages: [.mapping(from: 0, to: 1, mappings)])
            return moltError {
                _ = try Store.open(at: location, schema: v1, options: kind.options.migrating(with: plan))
            }?.message
        }
        #expect(
            try refusal([.emptying("Shelf")])
                == "A mapping empties 'Shelf', but 'Shelf' is new in version 1: it has no objects to delete. Remove that mapping."
        )
        var filtered = EntityMapping.emptying("Tag")
        filtered.filter = "label = 'sf'"
        #expect(
            try refusal([filtered])
                == "The mapping that empties 'Tag' also gives a source, a filter, attributes, links or overrides; an emptying mapping names only its entity (\"destination\" and \"empty\"). Put the rest in a mapping of its own."
        )
        #expect(
            try refusal([.emptying("Tag"), EntityMapping(destination: "Tag", attributes: ["label": "upper(label)"])])
                == "'Tag' is emptied, and another mapping of the stage 0 → 1 updates its objects in place; remove one of the two."
        )
        #expect(FileState(location) == state)
    }
}
