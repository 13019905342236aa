import Foundation
import Molt
import MoltMacros
import Testing

/// Typed models declare indexes: `@Attribute(.indexed)`, `@Relationship(indexed: true)` on a to-one link, and
/// indexes over several properties, unique or not, listed on `@Model(indexes:)`.
@Suite("Typed models: indexes")
struct TypedIndexTests {
    @Model struct Shelf {
        var name: String
        @Relationship(inverse: "shelf") var books: ToMany<Book> = []
    }

    @Model(indexes: [Index(["shelf", "title"]), Index(["title", "edition"], unique: true)])
    struct Book {
        var title: String
        @Attribute(.indexed) var published: Date
        @Attribute(.unique) var isbn: String
        var edition: Int
        @Relationship(inverse: "books", indexed: true) var shelf: ToOne<Shelf> = nil
    }

    static let schema = Schema(version: 1, entities: [Shelf.entity, Book.entity])

    @Test("the entity lists each property's index, then the model's")
    func entity() throws {
        #expect(
            Book.entity.indexes == [
                Index(["published"]), Index(["isbn"], unique: true), Index(["shelf"]), Index(["shelf", "title"]),
                Index(["title", "edition"], unique: true),
            ])
        #expect(Shelf.entity.indexes.isEmpty)
        try Self.schema.validate()
    }

    @Test(
        "the store has the indexes: a unique one over two properties refuses a second pair",
        arguments: TypedStoreKind.allCases)
    func enforced(kind: TypedStoreKind) throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(Self.schema, in: folder.url)
        defer { try? store.close() }
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        try store.write { objects in
            let shelf = try objects.insert(Shelf(name: "Novels"))
            _ = try objects.insert(Book(title: "Emma", published: day, isbn: "1", edition: 1, shelf: .init(shelf)))
            _ = try objects.insert(Book(title: "Emma", published: day, isbn: "2", edition: 2, shelf: .init(shelf)))
        }
        let error = try #require(throws: MoltError.self) {
            try store.write { objects in
                _ = try objects.insert(Book(title: "Emma", published: day, isbn: "3", edition: 2))
            }
        }
        #expect(error.code == .constraintViolation, "\(error)")
        #expect(try store.read { try $0.count(Book.self) } == 2)
        try store.verify()
    }
}
