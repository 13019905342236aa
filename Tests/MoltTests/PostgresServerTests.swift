import Foundation
import Testing
import Molt
import MoltPostgres

/// The PostgreSQL server the suites' `.postgres` cases use: skipped, with the reason in the test output, when
/// `MOLT_POSTGRES_URL` is not set (every `.postgres` case is then cancelled at its start).
@Suite("PostgreSQL server")
struct PostgresServerTests {
    @Test(
        "the PostgreSQL cases run against MOLT_POSTGRES_URL",
        .enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipReason))
    func serverAnswers() throws {
        let dir = TemporaryDirectory()
        let store = try StoreKind.postgres.makeStore(schema: Library.v0(), in: dir)
        defer { try? store.close() }
        #expect(try store.read { try $0.count("Book") } == 0)
    }

    @Test("a postgres:// URL names its namespace, and its description hides the password")
    func urlDescription() throws {
        let location = try StoreLocation.postgres(
            URL(string: "postgres://app:secret@db.example:5433/notes?schema=memos")!)
        #expect(location.description == "postgres://app@db.example:5433/notes?schema=memos")
        #expect(location.url == nil)
        let plain = try StoreLocation.postgres(URL(string: "postgres://app@localhost/app")!, schema: "other")
        #expect(plain.description == "postgres://app@localhost/app?schema=other")
        #expect(throws: MoltError.self) { try StoreLocation.postgres(URL(string: "mysql://x/y")!) }
    }

    @Test(
        "PostgreSQL text cannot hold NUL: such a string is refused, naming the attribute; SQLite keeps it whole",
        arguments: StoreKind.allCases)
    func nulCharacter(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        defer { try? store.close() }
        let values: [String: Value] = [
            "isbn": "a\u{0}b", "title": "T", "pages": 1, "published": .date(Library.dates[0]),
            "code": .uuid(Library.codes[0]),
        ]
        if kind == .postgres {
            let error = moltError { try store.write { _ = try $0.insert("Book", values) } }
            #expect(error?.code == .invalidValue)
            #expect(
                error?.message
                    == "Attribute 'Book.isbn' cannot store a string with the NUL character (U+0000), which PostgreSQL text cannot hold. Remove the character, or store the bytes in a data attribute; nothing was written."
            )
            #expect(try store.read { try $0.count("Book") } == 0)
        } else {
            let book = try store.write { try $0.insert("Book", values) }
            #expect(try store.read { try $0.object("Book", id: book.id!)?["isbn"] } == "a\u{0}b")
        }
    }

    @Test(
        "a typed insert or save of a string with NUL is refused on PostgreSQL with the dynamic API's message",
        arguments: StoreKind.allCases)
    func nulCharacterTyped(kind: StoreKind) throws {
        typealias Shelf = TypedInsertEnginesTests.Shelf
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: TypedInsertEnginesTests.schema, in: dir)
        defer { try? store.close() }
        let refusal =
            "Attribute 'Shelf.name' cannot store a string with the NUL character (U+0000), which PostgreSQL text cannot hold. Remove the character, or store the bytes in a data attribute; nothing was written."
        var shelf = try store.write { try $0.insert(Shelf(name: "plain")) }
        shelf.name = "a\u{0}b"
        if kind == .postgres {
            #expect(moltError { try store.write { _ = try $0.insert(Shelf(name: "a\u{0}b")) } }?.message == refusal)
            #expect(moltError { try store.write { try $0.save(shelf) } }?.message == refusal)
            #expect(try store.read { try $0.fetch(Shelf.self).map(\.name) } == ["plain"])
        } else {
            try store.write { try $0.save(shelf) }
            #expect(try store.read { try $0.fetch(Shelf.self).map(\.name) } == ["a\u{0}b"])
        }
    }

    @Test(
        "async reads and writes, and an imported identifier never collides with the next one",
        arguments: StoreKind.allCases)
    func asyncAndExplicitIDs(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        defer { try? store.close() }
        try await store.write { objects in
            _ = try objects.insert("Tag", ["label": "kept"], keepingID: 40)
            _ = try objects.insert("Tag", ["label": "next"])
        }
        let tags = try await store.read { objects in
            try objects.fetch("Tag").map { "\($0.id!) \($0["label"].string ?? "")" }
        }
        #expect(tags == ["40 kept", "41 next"])
    }

    @Test(
        "kept identifiers move the numbering past them by the next numbered insert or the commit; a rollback leaves it",
        arguments: StoreKind.allCases)
    func keptIdentifiersAcrossTransactions(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        defer { try? store.close() }
        struct Undo: Error {}
        // A rolled-back import numbers nothing: the next object is the first.
        _ = try? store.write { objects in
            _ = try objects.insert("Tag", ["label": "gone"], keepingID: 500)
            throw Undo()
        }
        #expect(try store.write { try $0.insert("Tag", ["label": "first"]).id } == 1)
        // Kept in one transaction, numbered in the next: past the largest kept one.
        try store.write { objects in
            for id: Int64 in [70, 90, 80] {
                _ = try objects.insert("Tag", ["label": .string("kept \(id)")], keepingID: id)
            }
        }
        #expect(try store.write { try $0.insert("Tag", ["label": "next"]).id } == 91)
    }

    @Test("a migration moves identity sequences past the identifiers it wrote, and never back onto a deleted object's")
    func identitiesAfterMigrations() throws {
        let dir = TemporaryDirectory()
        let v0 = Library.v0()
        let v1 = v0.next(1) { $0.edit("Tag") { $0.attributes.append(Attribute("color", .string, default: "red")) } }
        let v2 = v1.next(2) { $0.entities.append(Entity("Label") { Attribute("text", .string) }) }
        var store = try StoreKind.postgres.open(in: dir, schema: v0)
        let ids = try store.write { objects in
            try (1...3).map { try objects.insert("Tag", ["label": .string("t\($0)")]).id! }
        }
        try store.write { objects in try objects.delete(objects.object("Tag", id: ids[2])!) }
        try store.close()
        // Columns only: the sequence stays where it was (it used to be set back to the largest _id, 2).
        store = try StoreKind.postgres.open(in: dir, schema: v1)
        #expect(try store.write { try $0.insert("Tag", ["label": "t4", "color": "blue"]).id } == ids[2] + 1)
        try store.close()
        // A mapping numbers the labels it makes itself: the next label is numbered past them.
        let plan = try MigrationPlan(
            schemas: [v0, v1, v2],
            stages: [
                .mapping(
                    from: 1, to: 2, [EntityMapping(destination: "Label", source: "Tag", attributes: ["text": "label"])])
            ])
        store = try StoreKind.postgres.open(
            in: dir, schema: v2, options: StoreKind.postgres.options.migrating(with: plan))
        defer { try? store.close() }
        let made = try store.read { try $0.fetch("Label").map { $0.id! } }
        #expect(made.count == 3)
        let next = try store.write { try $0.insert("Label", ["text": "new"]).id! }
        #expect(next > made.max()!)
    }

    @Test(
        "validation names what was added by hand: any collation, any type, a reference to another namespace",
        .enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipReason))
    func validationReadsUnusualColumns() throws {
        let dir = TemporaryDirectory()
        let v0 = Library.v0()
        try StoreKind.postgres.open(in: dir, schema: v0).close()
        let location = try StoreKind.postgres.location(in: dir)
        let (url, namespace) = try #require(RawSQL.postgres(location))
        let outside = "\(namespace)_outside"
        defer {
            try? PostgresMaintenance.execute(
                [#"DROP SCHEMA IF EXISTS "\#(outside)" CASCADE"#], namespace: namespace, at: url)
        }
        try RawSQL.execute(
            location, #"CREATE SCHEMA "\#(outside)""#,
            #"CREATE TABLE "\#(outside)"."Agency" ("_id" bigint PRIMARY KEY)"#,
            #"ALTER TABLE "Author" ADD COLUMN "nickname" character varying(20) COLLATE "POSIX""#,
            #"ALTER TABLE "Author" ADD COLUMN "motto" text COLLATE ucs_basic"#,
            #"ALTER TABLE "Author" ADD COLUMN "agent" bigint REFERENCES "\#(outside)"."Agency"("_id")"#)
        let v1 = v0.next(1) { $0.edit("Tag") { $0.attributes.append(Attribute("color", .string, isOptional: true)) } }
        let error = moltError { _ = try StoreKind.postgres.open(in: dir, schema: v1) }
        #expect(error?.code == .validationFailed)
        #expect(
            error?.message == """
                The migration to version 1 did not produce the expected store, so nothing was committed:
                Table 'Author':
                  Expected: _id bigint IDENTITY PRIMARY KEY, name text COLLATE "C" NOT NULL, born bigint
                  Found:    _id bigint IDENTITY PRIMARY KEY, name text COLLATE "C" NOT NULL, born bigint, agent bigint, \
                motto text COLLATE ucs_basic, nickname character varying(20) COLLATE "POSIX"; references: agent → Agency(_id)
                """)
        #expect(try Store.version(at: location) == 0)
    }

    @Test(
        "a type change locks its table before counting it: a live write waits for the commit, and cannot slip a value past the check"
    )
    func typeChangeLocksBeforeCounting() throws {
        let dir = TemporaryDirectory()
        let location = try StoreKind.postgres.location(in: dir)
        let v0 = Library.v0()
        let v1 = v0.next(1) { $0.edit("Book") { $0.editAttribute("pages") { $0.type = .double } } }
        try Library.makeStore(at: location, schema: v0, kind: .postgres)
        let before = try RawSQL.strings(location, #"SELECT pages::text FROM "Book" ORDER BY "_id""#)
        let live = LiveWrites()
        var options = StoreKind.postgres.options.migrating(with: try MigrationPlan(schemas: [v0, v1]))
        options.progress = { progress in
            // Counted and checked, not yet rewritten: another session writes an integer with no exact double.
            guard progress.phase == "rebuilding 'Book'", progress.completed == 0 else { return }
            live.attempt {
                try RawSQL.execute(
                    location, "SET LOCAL lock_timeout = '200ms'",
                    #"UPDATE "Book" SET pages = 9007199254740993 WHERE "_id" = 2"#)
            }
        }
        let store = try Store.open(at: location, schema: v1, options: options)
        defer { try? store.close() }
        #expect(live.outcomes.count == 1)
        #expect(live.outcomes.first?.contains("locked") == true, "\(live.outcomes)")
        // Every integer became its exact double; without the lock the write would have been rounded silently.
        let after = try RawSQL.strings(location, #"SELECT pages::bigint::text FROM "Book" ORDER BY "_id""#)
        #expect(after == before)
        #expect(try store.history().first?.stepRecords.map(\.objectsUpdated) == [before.filter { $0 != "NULL" }.count])
    }

    @Test(
        "the state a test compares to prove nothing was written sees a PostgreSQL store's tables, and a write changes it"
    )
    func storeStateSeesWrites() throws {
        let dir = TemporaryDirectory()
        let location = try StoreKind.postgres.location(in: dir)
        let store = try StoreKind.postgres.makeStore(schema: Library.v0(), in: dir)
        defer { try? store.close() }
        let before = FileState(location)
        #expect(before.tables?.contains { $0.hasPrefix("Tag ") } == true)
        try store.write { _ = try $0.insert("Tag", ["label": "new"]) }
        #expect(FileState(location) != before)
    }
}

/// What live traffic's writes did while a migration ran: "written", or the error's message.
private final class LiveWrites: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [String] = []

    func attempt(_ write: () throws -> Void) {
        let outcome: String
        do {
            try write()
            outcome = "written"
        } catch {
            outcome = (error as? MoltError)?.message ?? "\(error)"
        }
        lock.lock()
        results.append(outcome)
        lock.unlock()
    }

    var outcomes: [String] {
        lock.lock()
        defer { lock.unlock() }
        return results
    }
}
