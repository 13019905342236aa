import Foundation
import MoltMacros
import MoltTesting
import Testing

/// A bookshelf app with typed models: version 2 renames `title`, adds `rating`, and needs a stage for `pages`.
enum ShelfV1: VersionedSchema {
    static let version = 1
    static let models: [any PersistentModel.Type] = [Shelf.self, Book.self]
    @Model struct Shelf {
        var name: String
        @Relationship(inverse: "shelf") var books: ToMany<Book> = []
    }
    @Model struct Book {
        var title: String
        var pages: Int = 0
        @Relationship(inverse: "books") var shelf: ToOne<Shelf> = nil
    }
}

enum ShelfV2: VersionedSchema {
    static let version = 2
    static let models: [any PersistentModel.Type] = [Shelf.self, Book.self]
    @Model struct Shelf {
        var name: String
        @Relationship(inverse: "shelf") var books: ToMany<Book> = []
    }
    @Model struct Book {
        @Attribute(originalName: "title") var name: String
        var pages: Int
        var rating: Double = 0
        @Relationship(inverse: "books") var shelf: ToOne<Shelf> = nil
    }
}

enum ShelfPlan: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [ShelfV1.self, ShelfV2.self]
    /// Books without a page count get 100 pages; each stays on its shelf (the model returned sets the link).
    static let stages: [MigrationStage] = [
        .custom(from: 1, to: 2) { migration in
            try migration.enumerateObjects(ShelfV1.Book.self, to: ShelfV2.Book.self) { old in
                ShelfV2.Book(name: old.title, pages: old.pages == 0 ? 100 : old.pages, shelf: ToOne(id: old.shelf.id))
            }
        }
    ]
}

@Suite("Typed fixtures")
struct TypedFixtureTests {
    static func fixtures(at version: Int) -> [Fixture] {
        switch version {
        case 1:
            return [
                Fixture("home", ShelfV1.Shelf(name: "Home")),
                Fixture("dune", ShelfV1.Book(title: "Dune"), links: ["shelf": "home"]),
            ]
        default:
            return [
                Fixture("home", ShelfV2.Shelf(name: "Home")),
                Fixture("dune", ShelfV2.Book(name: "Dune", pages: 412), links: ["shelf": "home"]),
            ]
        }
    }

    @Test("fixtures written as models of their version migrate, and the result reads as the newest models")
    func typedFixtures() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(ShelfPlan.schemas.map { $0.schema })
        let tester = try MigrationTester(plan: ShelfPlan.self, snapshots: snapshots)
        try tester.migrate(from: 1, fixtures: Self.fixtures(at: 1)) { old in
            old.key == "dune" ? .model(ShelfV2.Book(name: "Dune", pages: 100)) : .survives()
        } check: { migrated in
            let dune = try #require(try migrated.model("dune", as: ShelfV2.Book.self))
            #expect((dune.name, dune.pages, dune.rating) == ("Dune", 100, 0))
            #expect(try migrated.objects.destination(\.shelf, of: dune)?.name == "Home")
        }
        let stored = try tester.makeStore(version: 1, fixtures: Self.fixtures(at: 1), at: dir.file())
        defer { try? stored.close() }
        #expect(stored.object("dune")?.values == ["title": "Dune", "pages": 0])
        #expect(stored.object("dune")?.links == ["shelf": ["home"]])
    }

    @Test("a model of another version, or one that sets a to-one by identifier, is refused naming the fixture")
    func wrongModel() throws {
        let tester = try MigrationTester(plan: ShelfPlan.self)
        let wrong = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 1, fixtures: [Fixture("dune", ShelfV2.Book(name: "Dune", pages: 1))])
        }
        #expect(wrong.code == .invalidFixture)
        #expect(wrong.object == "dune")
        #expect(
            wrong.message.hasPrefix(
                "Fixture \"dune\" does not fit schema version 1: its model 'ShelfV2.Book' does not match entity 'Book' of version 1:\n- "
            ))
        let linked = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 1, fixtures: [Fixture("dune", ShelfV1.Book(title: "Dune", shelf: ToOne(id: 1)))])
        }
        #expect(linked.attribute == "shelf")
        #expect(
            linked.message
                == "Fixture \"dune\" does not fit schema version 1: its model 'ShelfV1.Book' sets the to-one relationship 'shelf', an identifier that means nothing before the store exists. Leave it nil and link fixtures by key: `links: [\"shelf\": \"<key>\"]`. Fix the fixtures of version 1."
        )
    }

    @Test("a typed stage that reads the old side with the new version's model is told the typed call to make")
    func typedStageErrors() throws {
        let confused = MigrationStage.custom(from: 1, to: 2) { migration in
            try migration.enumerateObjects(ShelfV2.Book.self, to: ShelfV2.Book.self) { $0 }
        }
        let tester = MigrationTester(
            plan: try MigrationPlan(schemas: ShelfPlan.schemas.map { $0.schema }, stages: [confused]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 1, fixtures: Self.fixtures(at: 1))
        }
        #expect(error.code == .migrationFailed)
        #expect(
            error.message.hasSuffix(
                "In the stage 1 → 2, `migration.old` reads version 1: read it with a model of version 1 (`migration.enumerateObjects(<model of 1>.self, to: <model of 2>.self)`); an entity new in version 2 has no old objects: insert its objects with `migration.new.insert(…)`."
            ))
        let crossed = MigrationStage.custom(from: 1, to: 2) { migration in
            try migration.enumerateObjects(ShelfV1.Shelf.self, to: ShelfV2.Book.self) {
                ShelfV2.Book(name: $0.name, pages: 0)
            }
        }
        let crossing = MigrationTester(
            plan: try MigrationPlan(schemas: ShelfPlan.schemas.map { $0.schema }, stages: [crossed]))
        let moved = try #require(throws: MigrationTestError.self) {
            try crossing.migrate(from: 1, fixtures: Self.fixtures(at: 1))
        }
        #expect(
            moved.message
                == "From version 1 (path 1 → 2): the migration to version 2 failed: Entity 'Shelf' becomes 'Shelf' in version 2, not 'Book', so `enumerateObjects(ShelfV1.Shelf.self, to: ShelfV2.Book.self)` cannot turn its objects into 'Book' objects in place. Read them with `migration.enumerateOldObjects(ShelfV1.Shelf.self) { old in … }` and insert what replaces them with `migration.new.insert(ShelfV2.Book(…))`."
        )
    }
}
