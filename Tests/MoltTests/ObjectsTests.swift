import Foundation
import Testing
import Molt

/// The dynamic Objects API: insert, fetch, count, update, delete, and the messages for bad values.
@Suite("Objects")
struct ObjectsTests {
    static func book(_ isbn: String, _ title: String, pages: Int64, price: Value = .null) -> [String: Value] {
        [
            "isbn": .string(isbn), "title": .string(title), "pages": .int(pages), "price": price,
            "published": .date(Library.dates[0]), "code": .uuid(Library.codes[0]),
        ]
    }

    @Test("insert fills defaults and returns the stored values with an identifier", arguments: StoreKind.allCases)
    func insert(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        let (inserted, fetched) = try store.write { objects in
            let book = try objects.insert("Book", Self.book("b1", "One", pages: 10, price: 3))
            return (book, try objects.object("Book", id: book.id!))
        }
        #expect(inserted.id != nil)
        #expect(inserted["inPrint"] == true)
        #expect(inserted["price"] == 3.0)
        #expect(inserted["cover"] == .null)
        #expect(fetched == inserted)
        #expect(fetched?["title", as: String.self] == "One")
        #expect(fetched?["pages", as: Int.self] == 10)
        #expect(fetched?["published", as: Date.self] == Library.dates[0])
        #expect(fetched?["code", as: UUID.self] == Library.codes[0])
        #expect(fetched?["title", as: Int.self] == nil)
    }

    @Test("fetch filters, sorts, limits and offsets; count counts", arguments: StoreKind.allCases)
    func fetchAndCount(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        try store.write(Library.fill)
        try store.read { objects in
            func isbns(
                _ predicate: ObjectPredicate?, _ sort: [ObjectSort] = [], limit: Int? = nil, offset: Int? = nil
            ) throws -> [String] {
                try objects.fetch("Book", where: predicate, orderBy: sort, limit: limit, offset: offset).map {
                    $0["isbn"].string!
                }
            }
            #expect(try objects.object("Book", primaryKey: "isbn-3")?["title"] == "Book 3")
            #expect(try objects.object("Book", primaryKey: "nope") == nil)
            #expect(try isbns(nil) == (0..<6).map { "isbn-\($0)" })
            #expect(try isbns(.equal("inPrint", true)) == ["isbn-0", "isbn-2", "isbn-4"])
            #expect(try isbns(.notEqual("inPrint", true)) == ["isbn-1", "isbn-3", "isbn-5"])
            #expect(try isbns(.greater("pages", 150)) == ["isbn-3", "isbn-4", "isbn-5"])
            #expect(try isbns(.lessOrEqual("pages", 150)) == ["isbn-0", "isbn-1", "isbn-2"])
            #expect(try isbns(.less("price", 10)) == ["isbn-0", "isbn-3"])
            #expect(try isbns(.greaterOrEqual("price", 12.25)) == ["isbn-2", "isbn-5"])
            #expect(try isbns(.isNull("price")) == ["isbn-1", "isbn-4"])
            #expect(try isbns(.equal("price", nil)) == ["isbn-1", "isbn-4"])
            #expect(try isbns(.isNotNull("cover")) == ["isbn-3"])
            #expect(try isbns(.contains("title", "k 4")) == ["isbn-4"])
            #expect(try isbns(.contains("title", "book")) == [])
            #expect(try isbns(.hasPrefix("isbn", "isbn-1")) == ["isbn-1"])
            #expect(try isbns(.in("pages", [50, 250, 999])) == ["isbn-1", "isbn-3"])
            #expect(try isbns(.in("pages", [])) == [])
            #expect(try isbns(.equal("inPrint", true) && .greater("pages", 0)) == ["isbn-2", "isbn-4"])
            #expect(try isbns(.equal("pages", -50) || .equal("pages", 450)) == ["isbn-0", "isbn-5"])
            #expect(try isbns(!.equal("inPrint", true)) == ["isbn-1", "isbn-3", "isbn-5"])
            #expect(try isbns(.equal("published", .date(Library.dates[2]))) == ["isbn-2"])
            #expect(try isbns(.equal("code", .uuid(Library.codes[5]))) == ["isbn-5"])
            #expect(
                try isbns(nil, [.descending("pages")]) == ["isbn-5", "isbn-4", "isbn-3", "isbn-2", "isbn-1", "isbn-0"])
            #expect(
                try isbns(nil, [.ascending("inPrint"), .descending("pages")]) == [
                    "isbn-5", "isbn-3", "isbn-1", "isbn-4", "isbn-2", "isbn-0",
                ])
            #expect(try isbns(nil, [.descending("pages")], limit: 2) == ["isbn-5", "isbn-4"])
            #expect(try isbns(nil, [.descending("pages")], limit: 2, offset: 3) == ["isbn-2", "isbn-1"])
            #expect(try isbns(nil, offset: 4) == ["isbn-4", "isbn-5"])
            #expect(try objects.count("Book") == 6)
            #expect(try objects.count("Book", where: .equal("inPrint", false)) == 3)
            #expect(try objects.count("Author", where: .isNull("born")) == 1)
            var seen: [String] = []
            try objects.forEach("Tag", orderBy: [.ascending("label")]) { seen.append($0["label"].string!) }
            #expect(seen == ["classic", "italian", "sf", "short"])
        }
    }

    @Test("update writes values back; delete and deleteAll remove objects", arguments: StoreKind.allCases)
    func updateAndDelete(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        try store.write(Library.fill)
        try store.write { objects in
            var book = try objects.object("Book", primaryKey: "isbn-1")!
            book["title"] = "Renamed"
            book["price"] = 2.5
            book["cover"] = .data(Data([9, 8]))
            try objects.update(book)
            #expect(try objects.object("Book", id: book.id!) == book)
            try objects.delete(try objects.object("Book", primaryKey: "isbn-0")!)
            #expect(try objects.deleteAll("Book", where: .equal("inPrint", true)) == 2)
            #expect(try objects.fetch("Book").map { $0["isbn"] } == ["isbn-1", "isbn-3", "isbn-5"])
            #expect(try objects.deleteAll("Tag") == 4)
            #expect(try objects.count("Tag") == 0)
        }
        #expect(try store.read { try $0.object("Book", primaryKey: "isbn-1")?["title"] } == "Renamed")
    }

    @Test("a write that throws is rolled back whole", arguments: StoreKind.allCases)
    func writeIsAtomic(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        let error = moltError {
            try store.write { objects in
                _ = try objects.insert("Tag", ["label": "kept?"])
                _ = try objects.insert("Tag", ["label": 3])
            }
        }
        #expect(error?.code == .invalidValue)
        #expect(try store.read { try $0.count("Tag") } == 0)
    }

    /// A bad use of the API and its exact message.
    struct Misuse: CustomTestStringConvertible, Sendable {
        var name: String
        var code: MoltError.Code
        var message: String
        var body: @Sendable (Objects) throws -> Void
        var testDescription: String { name }
    }

    static let misuses: [Misuse] = [
        Misuse(
            name: "wrong type", code: .invalidValue, message: "Attribute 'Book.pages' holds int values, not \"many\"."
        ) {
            var values = book("x", "X", pages: 1)
            values["pages"] = "many"
            _ = try $0.insert("Book", values)
        },
        Misuse(
            name: "NaN, which SQLite would store as null", code: .invalidValue,
            message: "Attribute 'Book.price' holds double values, not nan."
        ) {
            _ = try $0.insert("Book", book("x", "X", pages: 1, price: .double(.nan)))
        },
        Misuse(
            name: "missing required value", code: .invalidValue,
            message: "Attribute 'Book.title' is required; give it a value (or a default in the schema)."
        ) {
            var values = book("x", "X", pages: 1)
            values["title"] = nil
            _ = try $0.insert("Book", values)
        },
        Misuse(
            name: "null in a required attribute on update", code: .invalidValue,
            message: "Attribute 'Book.pages' is required; give it a value (or a default in the schema)."
        ) {
            var object = try $0.insert("Book", book("x", "X", pages: 1))
            object["pages"] = nil
            try $0.update(object)
        },
        Misuse(
            name: "unknown attribute", code: .invalidValue,
            message: "Entity 'Tag' has no attribute 'color'; it has label."
        ) {
            _ = try $0.insert("Tag", ["label": "a", "color": "red"])
        },
        Misuse(
            name: "unknown entity", code: .invalidValue,
            message: "Schema version 0 has no entity 'Shelf'; it has Author, Book, Tag."
        ) {
            _ = try $0.insert("Shelf", [:])
        },
        Misuse(
            name: "duplicate primary key", code: .constraintViolation,
            message: "A constraint was violated: UNIQUE constraint failed: Book.isbn."
        ) {
            _ = try $0.insert("Book", book("same", "A", pages: 1))
            _ = try $0.insert("Book", book("same", "B", pages: 2))
        },
        Misuse(
            name: "update of a deleted object", code: .objectNotFound,
            message: "No 'Tag' object has _id 1; it was deleted."
        ) {
            let tag = try $0.insert("Tag", ["label": "gone"])
            try $0.delete(tag)
            try $0.update(tag)
        },
        Misuse(
            name: "update of an object never inserted", code: .objectNotFound,
            message: "This 'Tag' object was never inserted; insert it instead of updating it."
        ) {
            try $0.update(DynamicObject(entity: "Tag", values: ["label": "new"]))
        },
        Misuse(
            name: "filter on an unknown attribute", code: .invalidValue,
            message: "Entity 'Tag' has no attribute 'color' to filter on; it has label."
        ) {
            _ = try $0.fetch("Tag", where: .equal("color", "red"))
        },
        Misuse(
            name: "sort on an unknown attribute", code: .invalidValue,
            message: "Entity 'Tag' has no attribute 'color' to sort by."
        ) {
            _ = try $0.fetch("Tag", orderBy: [.ascending("color")])
        },
        Misuse(
            name: "primary key lookup without a primary key", code: .invalidValue,
            message: "Entity 'Tag' declares no primary key; fetch it with `object(_:id:)` or a predicate."
        ) {
            _ = try $0.object("Tag", primaryKey: "a")
        },
    ]

    @Test(
        "a bad value or a bad use is refused with its exact message, and nothing is kept",
        arguments: StoreKind.allCases, misuses)
    func misuse(kind: StoreKind, misuse: Misuse) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        let error = moltError { try store.write(misuse.body) }
        #expect(error?.code == misuse.code)
        #expect(error?.message == misuse.message)
        #expect(try store.read { try [$0.count("Book"), $0.count("Tag")] } == [0, 0])
    }

    @Test("writing inside read is refused", arguments: StoreKind.allCases)
    func readOnlyContext(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        let error = moltError { try store.read { _ = try $0.insert("Tag", ["label": "a"]) } }
        #expect(error?.code == .invalidValue)
        #expect(
            error?.message
                == "This context is read-only: write inside `store.write { … }` (or on the new side of a migration stage)."
        )
    }
}
