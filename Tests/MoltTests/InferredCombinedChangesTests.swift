import Foundation
import Testing
import Molt

/// Inferred changes that meet in one step: a renamed destination, a rebuilt table with indexes, relationships
/// added and removed next to other changes.
@Suite("Inferred migration: combined changes")
struct InferredCombinedChangesTests {
    @Test(
        "removing a to-one relationship and its inverse keeps every other value and link", arguments: StoreKind.durable)
    func removeToOne(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Book") { $0.relationships.removeAll { $0.name == "author" } }
            $0.edit("Author") { $0.relationships.removeAll { $0.name == "books" } }
        }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(
            after == before.mapping("Book") { $0.links["author"] = nil }.mapping("Author") { $0.links["books"] = nil })
        #expect(
            try RawSQL.strings(
                kind, dir, sqlite: "SELECT name FROM pragma_table_info('Book') WHERE name = 'author'",
                postgres: RawSQL.pgColumn("Book", "author")) == [])
    }

    @Test(
        "renaming the destination of a to-one relationship keeps the links and the foreign key points to the new name",
        arguments: StoreKind.durable)
    func renameDestination(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Author") {
                $0.name = "Writer"; $0.originalName = "Author"
            }
            $0.edit("Book") { $0.editRelationship("author") { $0.destination = "Writer" } }
        }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(after == before.renamingEntity("Author", to: "Writer"))
        #expect(
            try RawSQL.strings(
                kind, dir, sqlite: "SELECT \"table\" FROM pragma_foreign_key_list('Book')",
                postgres:
                    "SELECT p.relname::text FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE k.contype = 'f' AND n.nspname = current_schema() AND c.relname = 'Book' ORDER BY 1"
            ) == ["Writer"])
        #expect(
            try RawSQL.strings(
                kind, dir, sqlite: "SELECT \"table\" FROM pragma_foreign_key_list('Writer_books') ORDER BY \"table\"",
                postgres:
                    "SELECT p.relname::text FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE k.contype = 'f' AND n.nspname = current_schema() AND c.relname = 'Writer_books' ORDER BY 1"
            ) == ["Book", "Writer"])
        // Deleting a writer still unlinks its books.
        let store = try Store.open(at: try kind.location(in: dir), schema: v1, options: kind.options)
        try store.write { objects in try objects.delete(try objects.fetch("Writer").first!) }
        #expect(try store.read { try $0.count("Book", where: .isNull("author")) } == 3)
    }

    @Test(
        "adding relationships of both kinds leaves existing objects unlinked and linkable", arguments: StoreKind.durable
    )
    func addRelationships(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Tag") {
                $0.relationships.append(Relationship("parent", to: "Tag", inverse: "children"))
                $0.relationships.append(Relationship("children", toMany: "Tag", inverse: "parent"))
            }
        }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(
            after
                == before.mapping("Tag") {
                    $0.links["parent"] = []; $0.links["children"] = []
                })
        let store = try Store.open(at: try kind.location(in: dir), schema: v1, options: kind.options)
        let children = try store.write { objects -> [Value] in
            let tags = try objects.fetch("Tag")
            try objects.set("parent", of: tags[1], to: tags[0])
            try objects.set("parent", of: tags[2], to: tags[0])
            return try objects.destinations("children", of: tags[0]).map { $0["label"] }
        }
        #expect(children == ["short", "sf"])
    }

    @Test(
        "an entity and its attribute renamed, a type widened and an index kept, in one step",
        arguments: StoreKind.durable)
    func renameAndWidenWithIndexes(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v0 = Library.v0(bookIndexes: [Index(["pages"]), Index(["title", "pages"], unique: true)])
        let v1 = v0.next(1) {
            $0.edit("Book") {
                $0.name = "Volume"
                $0.originalName = "Book"
                $0.editAttribute("pages") {
                    $0.name = "leaves"; $0.originalName = "pages"; $0.type = .string
                }
                $0.editAttribute("isbn") { $0.type = .string }
                $0.indexes = [Index(["leaves"]), Index(["title", "leaves"], unique: true)]
            }
            $0.edit("Author") { $0.editRelationship("books") { $0.destination = "Volume" } }
        }
        let (before, after, history) = try Library.migrate(kind, from: v0, to: v1, in: dir)
        let expected =
            before
            .converting("Book", "pages") { .string(String($0.int!)) }
            .renamingAttribute("Book", "pages", to: "leaves")
            .renamingEntity("Book", to: "Volume")
        #expect(after == expected)
        #expect(history.map(\.objectsTouched) == [6])
        let indexes = try RawSQL.strings(
            kind, dir,
            sqlite:
                "SELECT group_concat(name, ',') FROM (SELECT ii.name FROM pragma_index_list('Volume') il, pragma_index_info(il.name) ii WHERE il.origin = 'c' ORDER BY il.name, ii.seqno) ",
            postgres:
                "SELECT string_agg(regexp_replace(indexdef, '.*\\((.*)\\)', '\\1'), ',' ORDER BY indexname) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'Volume' AND indexname NOT LIKE '%pkey'"
        )
        #expect(
            indexes.map { $0.replacingOccurrences(of: "\"", with: "").replacingOccurrences(of: " ", with: "") } == [
                "isbn,leaves,title,leaves"
            ])
        // The uniqueness constraint survived the rebuild.
        let store = try Store.open(at: try kind.location(in: dir), schema: v1, options: kind.options)
        let error = moltError {
            try store.write { objects in
                _ = try objects.insert(
                    "Volume",
                    [
                        "isbn": "new", "title": "Book 2", "leaves": "150", "published": .date(Library.dates[0]),
                        "code": .uuid(UUID()),
                    ])
            }
        }
        #expect(error?.code == .constraintViolation)
    }

    @Test(
        "a to-one relationship made to-many while its table is rebuilt keeps every link", arguments: StoreKind.durable)
    func toManyDuringRebuild(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Book") {
                $0.editRelationship("author") {
                    $0 = Relationship("authors", toMany: "Author", inverse: "books", originalName: "author")
                }
                $0.editAttribute("pages") { $0.type = .double }
            }
            $0.edit("Author") { $0.editRelationship("books") { $0.inverse = "authors" } }
        }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        let expected =
            before
            .renamingRelationship("Book", "author", to: "authors")
            .converting("Book", "pages") { .double($0.double!) }
        #expect(after == expected)
    }

    @Test("a store created in one journal mode opens and migrates in the other", arguments: StoreKind.files)
    func switchJournalMode(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let before = try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        let other: StoreKind = kind == .wal ? .rollback : .wal
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.editAttribute("pages") { $0.type = .double } } }
        let store = try Store.open(at: url, schema: v1, options: other.options)
        #expect(try StoreDump(store) == before.converting("Book", "pages") { .double($0.double!) })
        try store.close()
        if other == .wal {
            #expect(try RawSQL.strings(url, "PRAGMA journal_mode") == ["wal"])
        }
    }

    @Test(
        "an originalName hint wins over a same name: an old name can be reused by a new entity or attribute",
        arguments: StoreKind.durable)
    func oldNamesReused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v0 = Library.v0()
        let v1 = v0.next(1) {
            $0.edit("Tag") {
                $0.name = "Label"; $0.originalName = "Tag"
            }
            $0.edit("Book") {
                $0.editRelationship("tags") { $0.destination = "Label" }
                $0.editAttribute("title") {
                    $0.name = "heading"; $0.originalName = "title"
                }
                $0.attributes.append(Attribute("title", .string, default: "untitled"))
            }
            $0.entities.append(Entity("Tag") { Attribute("label", .string) })
        }
        let (before, after, history) = try Library.migrate(kind, from: v0, to: v1, in: dir)
        var expected = before.renamingEntity("Tag", to: "Label").renamingAttribute("Book", "title", to: "heading")
            .setting("Book", "title", to: "untitled")
        expected.entities["Tag"] = [:]
        #expect(after == expected)
        #expect(history.first?.steps.first?.contains("Entity 'Tag' has been renamed to 'Label'.") == true)
    }

    @Test("two attributes that swap names by originalName swap their values", arguments: StoreKind.files)
    func swappedNames(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v0 = Library.v0()
        let v1 = v0.next(1) {
            $0.edit("Book") {
                $0.editAttribute("title") {
                    $0.name = "isbn"; $0.originalName = "title"
                }
                $0.editAttribute("isbn") {
                    $0.name = "title"; $0.originalName = "isbn"
                }
            }
        }
        let (before, after, _) = try Library.migrate(kind, from: v0, to: v1, in: dir)
        let expected = before.mapping("Book") { state in
            (state.values["isbn"], state.values["title"]) = (state.values["title"], state.values["isbn"])
        }
        #expect(after == expected)
    }

    @Test("widened and made required at once: converted values, the default for nulls", arguments: StoreKind.durable)
    func widenAndRequire(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Author") {
                $0.editAttribute("born") {
                    $0.type = .string; $0.isOptional = false; $0.defaultValue = "unknown"
                }
            }
        }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        #expect(after == before.converting("Author", "born") { $0.isNull ? "unknown" : .string(String($0.int!)) })
    }

    @Test(
        "removed in one version and added back in the next, renamed and renamed back: one run, the final data",
        arguments: StoreKind.durable)
    func removeThenAddBack(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v0 = Library.v0()
        let v1 = v0.next(1) {
            $0.entities.removeAll { $0.name == "Tag" }
            $0.deletions = [.entity("Tag")]
            $0.edit("Book") {
                $0.relationships.removeAll { $0.name == "tags" }
                $0.attributes.removeAll { $0.name == "pages" }
                $0.editRelationship("author") { $0.destination = "Writer" }
            }
            $0.edit("Author") {
                $0.name = "Writer"; $0.originalName = "Author"
            }
        }
        let v2 = v1.next(2) {
            $0.entities.append(
                Entity("Tag") {
                    Attribute("label", .string); Attribute("weight", .int, default: 1)
                })
            $0.edit("Book") {
                $0.relationships.append(Relationship("tags", toMany: "Tag"))
                $0.attributes.append(Attribute("pages", .string, default: "?"))
                $0.editRelationship("author") { $0.destination = "Author" }
            }
            $0.edit("Writer") {
                $0.name = "Author"; $0.originalName = "Writer"
            }
        }
        let url = try kind.location(in: dir)
        let before = try Library.makeStore(at: url, schema: v0, kind: kind)
        let store = try Store.open(
            at: url, schema: v2, options: kind.options.migrating(with: try MigrationPlan(schemas: [v0, v1, v2])))
        defer { try? store.close() }
        var expected = before.setting("Book", "pages", to: "?").mapping("Book") { $0.links["tags"] = [] }
        expected.entities["Tag"] = [:]
        #expect(try StoreDump(store) == expected)
        #expect(try store.history().count == 1)
    }
}
