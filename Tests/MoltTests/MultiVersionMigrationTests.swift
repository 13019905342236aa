import Foundation
import Testing
import Molt

/// Several consecutive versions crossed in one run: same data as stepping one by one, each table rebuilt once.
@Suite("Inferred migration: several versions at once")
struct MultiVersionMigrationTests {
    /// v0 → v1: pages int → double (rebuild), subtitle added. v1 → v2: price made required with a default
    /// (rebuild again), title renamed. v2 → v3: Tag renamed, subtitle made required with a default, index added.
    static func versions() -> [Schema] {
        let v0 = Library.v0()
        let v1 = v0.next(1) {
            $0.edit("Book") {
                $0.editAttribute("pages") { $0.type = .double }
                $0.attributes.append(Attribute("subtitle", .string, isOptional: true))
            }
        }
        let v2 = v1.next(2) {
            $0.edit("Book") {
                $0.editAttribute("price") {
                    $0.isOptional = false; $0.defaultValue = 1.5
                }
                $0.editAttribute("title") {
                    $0.name = "name"; $0.originalName = "title"
                }
            }
        }
        let v3 = v2.next(3) {
            $0.edit("Book") {
                $0.editAttribute("subtitle") {
                    $0.isOptional = false; $0.defaultValue = "none"
                }
                $0.editRelationship("tags") { $0.destination = "Label" }
                $0.indexes = [Index(["name"])]
            }
            $0.edit("Tag") {
                $0.name = "Label"; $0.originalName = "Tag"
            }
        }
        return [v0, v1, v2, v3]
    }

    @Test(
        "opening a version-0 store at version 3 through a plan gives the same data as stepping one version at a time",
        arguments: StoreKind.durable)
    func planEqualsSteps(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let schemas = Self.versions()
        let direct = dir.file("direct.sqlite")
        let stepped = dir.file("stepped.sqlite")
        let before = try Library.makeStore(at: direct, schema: schemas[0], kind: kind)
        try Library.makeStore(at: stepped, schema: schemas[0], kind: kind)

        let plan = try MigrationPlan(schemas: schemas)
        let store = try Store.open(at: direct, schema: schemas[3], options: kind.options.migrating(with: plan))
        let directDump = try StoreDump(store)
        let history = try store.history()
        try store.close()

        for schema in schemas.dropFirst() {
            try Store.open(at: stepped, schema: schema, options: kind.options).close()
        }
        let steppedDump = try StoreDump(at: stepped, schema: schemas[3], options: kind.options)

        let expected =
            before
            .converting("Book", "pages") { .double($0.double!) }
            .setting("Book", "subtitle", to: "none")
            .converting("Book", "price") { $0.isNull ? 1.5 : $0 }
            .renamingAttribute("Book", "title", to: "name")
            .renamingEntity("Tag", to: "Label")
        #expect(directDump == expected)
        #expect(steppedDump == expected)
        #expect(history.count == 1)
        #expect(history.first.map { [$0.fromVersion, $0.toVersion] } == [0, 3])
        #expect(history.first?.steps.count == 3)
        #expect(
            try Store.inspect(at: stepped).history.map { [$0.fromVersion, $0.toVersion] } == [
                [0, 1], [1, 2], [2, 3],
            ])
    }

    @Test("a run that rebuilds a table in several steps copies its rows once", arguments: StoreKind.durable)
    func rebuildsOnce(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let schemas = Self.versions()
        try Library.makeStore(at: url, schema: schemas[0], kind: kind) { objects in
            try Library.fill(objects)
            for i in 0..<200 {
                _ = try objects.insert(
                    "Book",
                    [
                        "isbn": .string("bulk-\(i)"), "title": "Bulk", "pages": .int(Int64(i)),
                        "published": .date(Library.dates[0]),
                        "code": .uuid(UUID()),
                    ])
            }
        }
        let plan = try MigrationPlan(schemas: schemas)
        let store = try Store.open(at: url, schema: schemas[3], options: kind.options.migrating(with: plan))
        let books = try store.read { try $0.count("Book") }
        let history = try store.history()
        try store.close()
        #expect(books == 206)
        // Each step's changed values, counted per step: pages converted (206), null prices filled (202), the
        // subtitle added empty then made required (206). The rebuild itself copies each row once (root pages below).
        #expect(history.first?.stepRecords.map(\.objectsUpdated) == [206, 202, 206])
        // Author and the join tables kept their pages: only Book got a new one.
        let stepped = dir.file("stepped.sqlite")
        try Library.makeStore(at: stepped, schema: schemas[0], kind: kind)
        let pagesBefore = try RawSQL.rootPages(stepped)
        try Store.open(at: stepped, schema: schemas[3], options: kind.options.migrating(with: plan)).close()
        let pagesAfter = try RawSQL.rootPages(stepped)
        #expect(pagesAfter["Author"] == pagesBefore["Author"])
        #expect(pagesAfter["Author_books"] == pagesBefore["Author_books"])
        #expect(pagesAfter["Label"] == pagesBefore["Tag"])
        #expect(pagesAfter["Book"] != pagesBefore["Book"])
    }

    @Test(
        "a lightweight shortcut stage over several versions gives the same data as the plan without it",
        arguments: StoreKind.durable)
    func lightweightShortcut(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let schemas = Self.versions()
        let url = try kind.location(in: dir)
        let before = try Library.makeStore(at: url, schema: schemas[0], kind: kind)
        let plan = try MigrationPlan(schemas: schemas, stages: [.lightweight(from: 0, to: 3)])
        let store = try Store.open(at: url, schema: schemas[3], options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        let expected =
            before
            .converting("Book", "pages") { .double($0.double!) }
            .setting("Book", "subtitle", to: "none")
            .converting("Book", "price") { $0.isNull ? 1.5 : $0 }
            .renamingAttribute("Book", "title", to: "name")
            .renamingEntity("Tag", to: "Label")
        #expect(try StoreDump(store) == expected)
        #expect(try store.history().map(\.objectsTouched) == [6])
    }
}
