import Foundation
import Testing
import Molt

/// Inferred changes of relationships, indexes and uniqueness: links and values compared before and after.
@Suite("Inferred migration: relationships and indexes")
struct InferredRelationshipMigrationTests {
    @Test("renaming a relationship by its original name keeps every link and its inverse", arguments: StoreKind.durable)
    func renameRelationship(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Book") {
                $0.editRelationship("author") {
                    $0.name = "writer"; $0.originalName = "author"
                }
                $0.editRelationship("tags") {
                    $0.name = "labels"; $0.originalName = "tags"
                }
            }
            $0.edit("Author") { $0.editRelationship("books") { $0.inverse = "writer" } }
        }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(
            after
                == before.renamingRelationship("Book", "author", to: "writer").renamingRelationship(
                    "Book", "tags", to: "labels"))
        // The inverse is still kept in step after the rename.
        let store = try Store.open(at: try kind.location(in: dir), schema: v1, options: kind.options)
        let moved = try store.write { objects -> [Value] in
            let book = try objects.object("Book", primaryKey: "isbn-0")!
            let author = try objects.fetch("Author", where: .equal("name", "Italo")).first!
            try objects.set("writer", of: book, to: author)
            return try objects.destinations("books", of: author).map { $0["isbn"] }
        }
        #expect(moved == ["isbn-1", "isbn-4", "isbn-0"])
    }

    @Test("a to-one relationship made to-many keeps each link as its only element", arguments: StoreKind.durable)
    func toOneBecomesToMany(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Book") {
                $0.editRelationship("author") { $0 = Relationship("author", toMany: "Author", inverse: "books") }
            }
        }
        let (before, after, history) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(after == before)
        #expect(before.entities["Book"]!.values.filter { $0.links["author"] == [] }.count == 1)
        #expect(
            history.map(\.steps) == [["0 → 1 inferred: Relationship 'Book.author' has changed from to-one to to-many."]]
        )
        #expect(
            try RawSQL.strings(
                kind, dir, sqlite: "SELECT name FROM pragma_table_info('Book') WHERE name = 'author'",
                postgres: RawSQL.pgColumn("Book", "author")) == [])
    }

    @Test(
        "an unordered to-many relationship made ordered keeps its links in insertion order",
        arguments: StoreKind.durable)
    func unorderedToOrdered(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        _ = try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        let inserted = try RawSQL.strings(
            url,
            kind == .postgres
                ? #"SELECT string_agg(target::text, ',' ORDER BY _seq) FROM "Book_tags" GROUP BY owner ORDER BY owner"#
                : "SELECT group_concat(target) FROM (SELECT owner, target FROM Book_tags ORDER BY rowid) GROUP BY owner ORDER BY owner"
        )
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.editRelationship("tags") { $0.isOrdered = true } } }
        let after = try StoreDump(at: url, schema: v1, options: kind.options)
        let ordered = after.entities["Book"]!.keys.sorted().compactMap { id -> String? in
            let ids = after.entities["Book"]![id]!.links["tags"]!
            return ids.isEmpty ? nil : ids.map(String.init).joined(separator: ",")
        }
        #expect(ordered == inserted)
        #expect(ordered.first == "3")
        #expect(ordered.contains("4,2"))
    }

    @Test("an ordered to-many relationship made unordered keeps every link", arguments: StoreKind.durable)
    func orderedToUnordered(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v0 = Library.v0(orderedTags: true)
        let v1 = Library.v0(orderedTags: false).withVersion(1)
        let (before, after, _) = try Library.migrate(kind, from: v0, to: v1, in: dir)
        #expect(before.entities["Book"]!.values.contains { $0.links["tags"]! != $0.links["tags"]!.sorted() })
        #expect(after == before.mapping("Book") { $0.links["tags"]!.sort() })
        #expect(
            try RawSQL.strings(
                kind, dir, sqlite: "SELECT name FROM pragma_table_info('Book_tags') WHERE name = 'position'",
                postgres: RawSQL.pgColumn("Book_tags", "position")) == [])
    }

    @Test("adding and removing an index keeps the data and never rewrites the table", arguments: StoreKind.durable)
    func addAndRemoveIndex(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let v0 = Library.v0(bookIndexes: [Index(["pages"])])
        let before = try Library.makeStore(at: url, schema: v0, kind: kind)
        let pages = try RawSQL.rootPages(url)
        let v1 = v0.next(1) { $0.edit("Book") { $0.indexes = [Index(["title", "published"])] } }
        let store = try Store.open(at: url, schema: v1, options: kind.options)
        #expect(try StoreDump(store) == before)
        #expect(
            try store.history().map(\.steps) == [
                [
                    "0 → 1 inferred: Index on 'Book'(title, published) has been added. Index on 'Book'(pages) has been removed."
                ]
            ])
        try store.close()
        #expect(try RawSQL.rootPages(url) == pages)
        let indexes = try RawSQL.strings(
            kind, dir,
            sqlite:
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Book' AND sql IS NOT NULL ORDER BY name",
            postgres:
                "SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'Book' AND indexname NOT LIKE '%pkey' ORDER BY 1"
        )
        #expect(indexes == ["Book_isbn_unique", "Book_title_published_index"])
    }

    @Test("adding a uniqueness constraint on unique data keeps the data and enforces it", arguments: StoreKind.durable)
    func addUniquenessOnUniqueData(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.indexes = [Index(["title"], unique: true)] } }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(after == before)
        let store = try Store.open(at: try kind.location(in: dir), schema: v1, options: kind.options)
        let error = moltError {
            try store.write { objects in
                _ = try objects.insert(
                    "Book",
                    [
                        "isbn": "x", "title": "Book 1", "pages": 1, "published": .date(Library.dates[0]),
                        "code": .uuid(UUID()),
                    ])
            }
        }
        #expect(error?.code == .constraintViolation)
        #expect(error?.message == "A constraint was violated: UNIQUE constraint failed: Book.title.")
    }

    @Test(
        "adding a uniqueness constraint on duplicate data is refused and leaves the store untouched",
        arguments: StoreKind.durable)
    func addUniquenessOnDuplicates(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let v0 = Library.v0()
        let before = try Library.makeStore(at: url, schema: v0, kind: kind) { objects in
            try Library.fill(objects)
            var book = try objects.object("Book", primaryKey: "isbn-4")!
            book["title"] = "Book 1"
            try objects.update(book)
        }
        let bytes = FileState(url)
        let v1 = v0.next(1) { $0.edit("Book") { $0.indexes = [Index(["pages"]), Index(["title"], unique: true)] } }
        let error = moltError { _ = try Store.open(at: url, schema: v1, options: kind.options) }
        #expect(error?.code == .constraintViolation)
        #expect(
            error?.message
                == "Cannot add the uniqueness constraint on 'Book'(title) in version 1: the value (\"Book 1\") is held by 2 objects. Make the values unique in a custom stage before this version, or drop the constraint."
        )
        #expect(FileState(url) == bytes)
        #expect(try Store.version(at: url) == 0)
        #expect(try StoreDump(at: url, schema: v0, options: kind.options) == before)
    }
}
