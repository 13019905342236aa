import Foundation
import Molt
import Testing

/// The typed upsert, by primary key and by a unique attribute, on every store kind: one statement per model,
/// the identifier kept, to-one inverses kept in step, observations told.
@Suite("Typed upsert")
struct TypedUpsertTests {
    /// What `@Model struct Shelf { @Attribute(.unique) var name: String; var floor: Int;
    /// @Relationship(inverse: "shelf") var books: ToMany<Book> }` expands to.
    struct Shelf: PersistentModel {
        var name: String
        var floor: Int
        var books: ToMany<Book> = []
        var persistentID: Int64? = nil

        init(name: String, floor: Int) { (self.name, self.floor) = (name, floor) }

        static let entity = Entity(
            "Shelf", attributes: [Attribute("name", .string), Attribute("floor", .int)],
            relationships: [Relationship("books", toMany: "Book", inverse: "shelf")],
            indexes: [Index(["name"], unique: true)])

        init(row: ModelRow) throws {
            persistentID = row.id
            name = try row.value(at: 0)
            floor = try row.value(at: 1)
            books = .init(ownerID: row.id)
        }

        func encode(to columns: inout ModelColumns) {
            columns.append(name)
            columns.append(floor)
        }

        static func propertyName(for keyPath: PartialKeyPath<Shelf>) -> String? {
            keyPath == \Shelf.name ? "name" : keyPath == \Shelf.floor ? "floor" : nil
        }
    }

    /// What `@Model struct Book { @Attribute(.primaryKey) var isbn: String; @Attribute(.unique) var title: String?;
    /// @Relationship(inverse: "books") var shelf: ToOne<Shelf> }` expands to.
    struct Book: PersistentModel {
        var isbn: String
        var title: String?
        var shelf: ToOne<Shelf>
        var persistentID: Int64? = nil

        init(isbn: String, title: String?, shelf: ToOne<Shelf> = nil) {
            (self.isbn, self.title, self.shelf) = (isbn, title, shelf)
        }

        static let entity = Entity(
            "Book", primaryKey: "isbn",
            attributes: [Attribute("isbn", .string), Attribute("title", .string, isOptional: true)],
            relationships: [Relationship("shelf", to: "Shelf", inverse: "books")],
            indexes: [Index(["title"], unique: true)])

        init(row: ModelRow) throws {
            persistentID = row.id
            isbn = try row.value(at: 0)
            title = try row.value(at: 1)
            shelf = try .read(from: row, at: 2)
        }

        func encode(to columns: inout ModelColumns) {
            columns.append(isbn)
            columns.append(title)
            shelf.write(to: &columns)
        }

        static func propertyName(for keyPath: PartialKeyPath<Book>) -> String? {
            keyPath == \Book.isbn ? "isbn" : keyPath == \Book.title ? "title" : nil
        }
    }

    static let schema = Schema(version: 1, entities: [Shelf.entity, Book.entity])

    @Test(
        "upsert by a unique attribute inserts, then updates in place keeping the identifier",
        arguments: StoreKind.allCases)
    func byUniqueAttribute(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let first = try store.write { try $0.upsert(Shelf(name: "A", floor: 1), uniqueBy: \.name) }
        let other = try store.write { try $0.upsert(Shelf(name: "B", floor: 1), uniqueBy: \.name) }
        let again = try store.write { try $0.upsert(Shelf(name: "A", floor: 3), uniqueBy: \.name) }
        #expect(first.persistentID != nil)
        #expect(again.persistentID == first.persistentID)
        #expect(other.persistentID != first.persistentID)
        let shelves = try store.read { try $0.fetch(Shelf.self, orderBy: [.ascending(\.name)]) }
        #expect(shelves.map(\.name) == ["A", "B"])
        #expect(shelves.map(\.floor) == [3, 1])
        #expect(shelves.map(\.persistentID) == [first.persistentID, other.persistentID])
        let next = try store.write { try $0.insert(Shelf(name: "C", floor: 0)) }
        #expect(next.persistentID! > other.persistentID!)
    }

    @Test(
        "upsert by primary key replaces every stored property, nil included, and keeps to-one inverses in step",
        arguments: StoreKind.allCases)
    func byPrimaryKey(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let (a, b) = try store.write {
            (try $0.insert(Shelf(name: "A", floor: 1)), try $0.insert(Shelf(name: "B", floor: 2)))
        }
        let dune = try store.write {
            try $0.upsert(Book(isbn: "978-0441", title: "Dune", shelf: ToOne(id: a.persistentID!)))
        }
        let moved = try store.write {
            try $0.upsert(Book(isbn: "978-0441", title: nil, shelf: ToOne(id: b.persistentID!)))
        }
        #expect(moved.persistentID == dune.persistentID)
        let stored = try store.read { try $0.model(Book.self, primaryKey: "978-0441") }
        #expect(stored?.title == nil)
        #expect(stored?.shelf.id == b.persistentID)
        let onShelves = try store.read { objects in
            try objects.fetch("Shelf").map { shelf in try objects.destinations("books", of: shelf).map(\.id) }
        }
        #expect(onShelves == [[], [dune.persistentID]], "the old shelf let go of the book, the new one has it")
        #expect(try store.read { try $0.count(Book.self) } == 1)
    }

    @Test("an upsert without a primary key, by an attribute not unique, or by nil, is refused naming the fix")
    func refusals() throws {
        let store = try Store.inMemory(schema: Self.schema)
        let noKey = #expect(throws: MoltError.self) { try store.write { try $0.upsert(Shelf(name: "A", floor: 1)) } }
        #expect(
            noKey?.message
                == "Entity 'Shelf' declares no primary key, so an upsert cannot tell which object a 'Shelf' value means; upsert by a unique attribute with `upsert(_:uniqueBy:)`, or declare one with `@Attribute(.primaryKey)` (a new schema version)."
        )
        let notUnique = #expect(throws: MoltError.self) {
            try store.write { try $0.upsert(Shelf(name: "A", floor: 1), uniqueBy: \.floor) }
        }
        #expect(notUnique?.message.contains(#"declare `Index(["floor"], unique: true)` on 'Shelf'"#) == true)
        let noValue = #expect(throws: MoltError.self) {
            try store.write { try $0.upsert(Book(isbn: "1", title: nil), uniqueBy: \.title) }
        }
        #expect(
            noValue?.message
                == "An upsert of 'Book' needs a value of 'title' to find the object by; add it to the values.")
        #expect(try store.read { try $0.count(Shelf.self) + $0.count(Book.self) } == 0)
    }

    @Test(
        "an observed typed fetch sees each upsert once, whether it inserted or updated", arguments: StoreKind.allCases)
    func observed(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let floors = ObservationRecorder<[Int]>()
        let token = floors.start(store, dedupe: false) { try $0.fetch(Shelf.self).map(\.floor) }
        try await floors.wait { $0 == [[]] }
        try await store.write { _ = try $0.upsert(Shelf(name: "A", floor: 1), uniqueBy: \.name) }
        try await floors.wait { $0 == [[], [1]] }
        try await store.write { _ = try $0.upsert(Shelf(name: "A", floor: 4), uniqueBy: \.name) }
        try await floors.wait { $0 == [[], [1], [4]] }
        token.cancel()
    }
}
