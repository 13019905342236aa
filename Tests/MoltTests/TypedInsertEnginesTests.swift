import Foundation
import Testing
@testable import Molt

/// A typed insert whose to-one has a to-many inverse writes the inverse's join-table row in the dialect of the
/// store it runs on, even when the same model type and schema value were used with the other engine first.
@Suite("Typed inserts on both engines with one schema value")
struct TypedInsertEnginesTests {
    /// What `@Model struct Shelf { var name: String; @Relationship(inverse: "shelf") var books: ToMany<Book> }` expands to.
    struct Shelf: PersistentModel {
        var name: String
        var books: ToMany<Book> = []
        var persistentID: Int64? = nil

        init(name: String) { self.name = name }

        static let entity = Entity(
            "Shelf", attributes: [Attribute("name", .string)],
            relationships: [Relationship("books", toMany: "Book", inverse: "shelf")])

        init(row: ModelRow) throws {
            persistentID = row.id
            name = try row.value(at: 0)
            books = .init(ownerID: row.id)
        }

        func encode(to columns: inout ModelColumns) { columns.append(name) }

        static func propertyName(for keyPath: PartialKeyPath<Shelf>) -> String? {
            keyPath == \Shelf.name ? "name" : nil
        }
    }

    /// What `@Model struct Book { var title: String; @Relationship(inverse: "books") var shelf: ToOne<Shelf> }` expands to.
    struct Book: PersistentModel {
        var title: String
        var shelf: ToOne<Shelf>
        var persistentID: Int64? = nil

        init(title: String, shelf: ToOne<Shelf>) { (self.title, self.shelf) = (title, shelf) }

        static let entity = Entity(
            "Book", attributes: [Attribute("title", .string)],
            relationships: [Relationship("shelf", to: "Shelf", inverse: "books")])

        init(row: ModelRow) throws {
            persistentID = row.id
            title = try row.value(at: 0)
            shelf = try .read(from: row, at: 1)
        }

        func encode(to columns: inout ModelColumns) {
            columns.append(title)
            shelf.write(to: &columns)
        }

        static func propertyName(for keyPath: PartialKeyPath<Book>) -> String? {
            keyPath == \Book.title ? "title" : nil
        }
    }

    static let schema = Schema(version: 1, entities: [Shelf.entity, Book.entity])

    @Test("SQLite first, then PostgreSQL, then SQLite again: each store gets the book and its inverse link")
    func bothEngines() throws {
        let dir = TemporaryDirectory()
        for kind in [StoreKind.wal, .postgres, .rollback] {
            let store = try Store.open(
                at: try kind.location(in: dir, name: "\(kind.rawValue).sqlite"), schema: Self.schema,
                options: kind.options)
            defer { try? store.close() }
            try store.write { objects in
                let shelf = try objects.insert(Shelf(name: "A"))
                _ = try objects.insert(Book(title: "Dune", shelf: ToOne(id: shelf.persistentID!)))
            }
            let linked = try store.read { objects in
                try objects.destinations("books", of: try objects.fetch("Shelf")[0]).map { $0["title"] }
            }
            #expect(linked == ["Dune"], "\(kind)")
        }
    }
}
