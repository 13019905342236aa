import Foundation
import Testing
import Molt

/// Inferred changes of entities and attributes: the data is compared value by value before and after.
@Suite("Inferred migration: entities and attributes")
struct InferredAttributeMigrationTests {
    @Test("adding an entity keeps every object and creates an empty, usable entity", arguments: StoreKind.durable)
    func addEntity(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) { $0.entities.append(Entity("Shelf") { Attribute("room", .string) }) }
        let (before, after, history) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        var expected = before
        expected.entities["Shelf"] = [:]
        #expect(after == expected)
        #expect(history.map(\.steps) == [["0 → 1 inferred: Entity 'Shelf' has been added."]])
        let store = try Store.open(at: try kind.location(in: dir), schema: v1, options: kind.options)
        try store.write { _ = try $0.insert("Shelf", ["room": "attic"]) }
        #expect(try store.read { try $0.count("Shelf") } == 1)
    }

    @Test(
        "removing an entity declared deleted drops its objects and the links to them, and keeps everything else",
        arguments: StoreKind.durable)
    func removeEntity(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.entities.removeAll { $0.name == "Tag" }
            $0.deletions = [.entity("Tag")]
            $0.edit("Book") { $0.relationships.removeAll { $0.name == "tags" } }
        }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        var expected = before.mapping("Book") { $0.links["tags"] = nil }
        expected.entities["Tag"] = nil
        #expect(after == expected)
        #expect(
            try RawSQL.strings(
                kind, dir, sqlite: "SELECT name FROM sqlite_master WHERE name LIKE 'Tag%' OR name LIKE 'Book_tags%'",
                postgres: RawSQL.pgTables("table_name LIKE 'Tag%' OR table_name LIKE 'Book_tags%'")) == [])
    }

    @Test(
        "adding an optional attribute gives existing objects null, without rewriting the table",
        arguments: StoreKind.durable)
    func addOptionalAttribute(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let before = try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        let pages = try RawSQL.rootPages(url)
        let v1 = Library.v0().next(1) {
            $0.edit("Book") { $0.attributes.append(Attribute("subtitle", .string, isOptional: true)) }
        }
        let store = try Store.open(at: url, schema: v1, options: kind.options)
        #expect(try StoreDump(store) == before.setting("Book", "subtitle", to: .null))
        #expect(try store.history().map(\.objectsTouched) == [0])
        try store.close()
        #expect(try RawSQL.rootPages(url) == pages)
    }

    @Test("adding a required attribute with a default gives existing objects the default", arguments: StoreKind.durable)
    func addRequiredAttributeWithDefault(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Book") {
                $0.attributes.append(Attribute("rating", .int, default: 3))
                $0.attributes.append(Attribute("shelved", .date, default: .date(Date(timeIntervalSince1970: 86_400.5))))
            }
        }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        let expected = before.setting("Book", "rating", to: 3).setting(
            "Book", "shelved", to: .date(Date(timeIntervalSince1970: 86_400.5)))
        #expect(after == expected)
        let store = try Store.open(at: try kind.location(in: dir), schema: v1, options: kind.options)
        let added = try store.write { objects in
            try objects.insert(
                "Book",
                [
                    "isbn": "new", "title": "New", "pages": 1, "published": .date(Library.dates[0]),
                    "code": .uuid(UUID()),
                ])
        }
        #expect(added["rating"] == 3)
    }

    @Test("removing an attribute drops its values and keeps the others", arguments: StoreKind.durable)
    func removeAttribute(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.attributes.removeAll { $0.name == "cover" } } }
        let (before, after, history) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(after == before.removingAttribute("Book", "cover"))
        #expect(history.map(\.steps) == [["0 → 1 inferred: Attribute 'Book.cover' has been removed."]])
        #expect(
            try RawSQL.strings(
                kind, dir, sqlite: "SELECT name FROM pragma_table_info('Book') WHERE name = 'cover'",
                postgres: RawSQL.pgColumn("Book", "cover")) == [])
    }

    @Test("removing an indexed attribute drops its index too", arguments: StoreKind.durable)
    func removeIndexedAttribute(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v0 = Library.v0(bookIndexes: [Index(["pages"]), Index(["title", "pages"])])
        let v1 = v0.next(1) {
            $0.edit("Book") {
                $0.attributes.removeAll { $0.name == "pages" }
                $0.indexes = []
            }
        }
        let (before, after, _) = try Library.migrate(kind, from: v0, to: v1, in: dir)
        #expect(after == before.removingAttribute("Book", "pages"))
        #expect(
            try RawSQL.strings(
                kind, dir,
                sqlite: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Book' AND sql IS NOT NULL",
                postgres:
                    "SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'Book' AND indexname NOT LIKE '%pkey'"
            ) == ["Book_isbn_unique"])
    }

    @Test(
        "renaming an entity by its original name keeps its objects and the links to them", arguments: StoreKind.durable)
    func renameEntity(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Tag") {
                $0.name = "Label"
                $0.originalName = "Tag"
            }
            $0.edit("Book") { $0.editRelationship("tags") { $0.destination = "Label" } }
        }
        let (before, after, history) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(after == before.renamingEntity("Tag", to: "Label"))
        #expect(history.map(\.steps) == [["0 → 1 inferred: Entity 'Tag' has been renamed to 'Label'."]])
        #expect(
            try RawSQL.strings(
                kind, dir, sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('Tag', 'Label')",
                postgres: RawSQL.pgTables("table_name IN ('Tag', 'Label')")) == ["Label"])
    }

    @Test("renaming an entity that owns to-many relationships carries its join tables", arguments: StoreKind.durable)
    func renameEntityWithJoinTables(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Book") {
                $0.name = "Volume"
                $0.originalName = "Book"
            }
            $0.edit("Author") { $0.editRelationship("books") { $0.destination = "Volume" } }
        }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(after == before.renamingEntity("Book", to: "Volume"))
        let tables = try RawSQL.strings(
            kind, dir,
            sqlite:
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_molt%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
            postgres: RawSQL.pgTables("table_name NOT LIKE '\\_molt%'"))
        #expect(tables == ["Author", "Author_books", "Tag", "Volume", "Volume_tags"])
    }

    @Test(
        "renaming an attribute by its original name keeps its values, without rewriting the table",
        arguments: StoreKind.durable)
    func renameAttribute(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let v0 = Library.v0(bookIndexes: [Index(["title"])])
        let before = try Library.makeStore(at: url, schema: v0, kind: kind)
        let pages = try RawSQL.rootPages(url)
        let v1 = v0.next(1) {
            $0.edit("Book") {
                $0.editAttribute("title") {
                    $0.name = "name"
                    $0.originalName = "title"
                }
                $0.indexes = [Index(["name"])]
            }
        }
        let store = try Store.open(at: url, schema: v1, options: kind.options)
        #expect(try StoreDump(store) == before.renamingAttribute("Book", "title", to: "name"))
        #expect(
            try store.history().map(\.steps) == [["0 → 1 inferred: Attribute 'Book.title' has been renamed to 'name'."]]
        )
        #expect(
            try store.read { try $0.fetch("Book", where: .equal("name", "Book 2")).map { $0["isbn"] } } == ["isbn-2"])
        try store.close()
        #expect(try RawSQL.rootPages(url) == pages)
    }

    @Test(
        "swapping two attributes' names over three versions in one run swaps their values", arguments: StoreKind.durable
    )
    func swapAttributes(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v0 = Library.v0(bookIndexes: [Index(["title"])])
        let v1 = v0.next(1) {
            $0.edit("Book") {
                $0.editAttribute("title") {
                    $0.name = "swap"; $0.originalName = "title"
                }
                $0.indexes = [Index(["swap"])]
            }
        }
        let v2 = v1.next(2) {
            $0.edit("Book") {
                $0.editAttribute("swap") { $0.originalName = nil }
                $0.editAttribute("isbn") {
                    $0.name = "title"; $0.originalName = "isbn"
                }
                $0.primaryKey = "title"
            }
        }
        let v3 = v2.next(3) {
            $0.edit("Book") {
                $0.editAttribute("title") { $0.originalName = nil }
                $0.editAttribute("swap") {
                    $0.name = "isbn"; $0.originalName = "swap"
                }
                $0.indexes = [Index(["isbn"])]
            }
        }
        let url = try kind.location(in: dir)
        let before = try Library.makeStore(at: url, schema: v0, kind: kind)
        let plan = try MigrationPlan(schemas: [v0, v1, v2, v3])
        let store = try Store.open(at: url, schema: v3, options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        let expected = before.mapping("Book") { state in
            (state.values["title"], state.values["isbn"]) = (state.values["isbn"], state.values["title"])
        }
        #expect(try StoreDump(store) == expected)
        #expect(try store.read { try $0.object("Book", primaryKey: "isbn-4")?["isbn"] } == "Book 4")
    }

    @Test(
        "making a required attribute optional keeps its values and accepts null afterwards",
        arguments: StoreKind.durable)
    func requiredToOptional(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.editAttribute("pages") { $0.isOptional = true } } }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(after == before)
        let store = try Store.open(at: try kind.location(in: dir), schema: v1, options: kind.options)
        try store.write { objects in
            var book = try objects.object("Book", primaryKey: "isbn-1")!
            book["pages"] = nil
            try objects.update(book)
        }
        #expect(try store.read { try $0.object("Book", primaryKey: "isbn-1")?["pages"] } == .null)
    }

    @Test(
        "making an optional attribute required with a default gives the default to null values only",
        arguments: StoreKind.durable)
    func optionalToRequiredWithDefault(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Book") {
                $0.editAttribute("price") {
                    $0.isOptional = false
                    $0.defaultValue = 4.75
                }
            }
        }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(before.entities["Book"]!.values.contains { $0.values["price"] == .null })
        #expect(after == before.converting("Book", "price") { $0.isNull ? 4.75 : $0 })
        #expect(
            try RawSQL.strings(
                kind, dir, sqlite: "SELECT \"notnull\" FROM pragma_table_info('Book') WHERE name = 'price'",
                postgres:
                    "SELECT CASE WHEN is_nullable = 'NO' THEN '1' ELSE '0' END FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'Book' AND column_name = 'price'"
            ) == ["1"])
    }
}
