import Foundation
import Molt

/// A small library model with every attribute type and every kind of relationship, and data to fill it.
enum Library {
    /// Version 0: authors, books, tags.
    static func v0(
        orderedTags: Bool = false, bookIndexes: [Index] = [], extraBookAttributes: [Attribute] = []
    ) -> Schema {
        Schema(version: 0) {
            Entity("Author") {
                Attribute("name", .string)
                Attribute("born", .int, isOptional: true)
                Relationship("books", toMany: "Book", inverse: "author")
            }
            Entity(
                "Book", primaryKey: "isbn",
                attributes: [
                    Attribute("isbn", .string),
                    Attribute("title", .string),
                    Attribute("pages", .int),
                    Attribute("price", .double, isOptional: true),
                    Attribute("inPrint", .bool, default: true),
                    Attribute("published", .date),
                    Attribute("code", .uuid),
                    Attribute("cover", .data, isOptional: true),
                ] + extraBookAttributes,
                relationships: [
                    Relationship("author", to: "Author", inverse: "books"),
                    Relationship("tags", toMany: "Tag", ordered: orderedTags),
                ],
                indexes: bookIndexes)
            Entity("Tag") {
                Attribute("label", .string)
            }
        }
    }

    static let codes = (0..<6).map { UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", $0 + 1))! }
    static let dates = (0..<6).map { Date(timeIntervalSince1970: 1_700_000_000.5 + Double($0) * 86_400.25) }

    /// Fills a version-0-shaped store: 3 authors, 6 books, 4 tags; books link tags in a non-sorted order.
    static func fill(_ objects: Objects) throws {
        let authors = try [("Ursula", Value.int(1929)), ("Italo", .int(1923)), ("Anonymous", .null)].map { name, born in
            try objects.insert("Author", ["name": .string(name), "born": born])
        }
        let tags = try ["classic", "short", "sf", "italian"].map { try objects.insert("Tag", ["label": .string($0)]) }
        let prices: [Value] = [.double(9.5), .null, .double(12.25), .double(0.1), .null, .double(1e20)]
        for i in 0..<6 {
            let book = try objects.insert(
                "Book",
                [
                    "isbn": .string("isbn-\(i)"), "title": .string("Book \(i)"), "pages": .int(Int64(100 * i - 50)),
                    "price": prices[i], "inPrint": .bool(i % 2 == 0), "published": .date(dates[i]),
                    "code": .uuid(codes[i]), "cover": i == 3 ? .data(Data([0, 1, 2, 255])) : .null,
                ])
            if i < 5 { try objects.set("author", of: book, to: authors[i % 3]) }
            for t in [(i + 2) % 4, i % 4, (i + 3) % 4].prefix(i % 3 + 1) {
                try objects.add(tags[t], to: "tags", of: book)
            }
        }
    }

    /// Creates a store at `schema` filled by `fill`, closes it, and returns what it holds.
    @discardableResult
    static func makeStore(
        at url: URL, schema: Schema, kind: StoreKind, fill: (Objects) throws -> Void = Library.fill
    ) throws -> StoreDump {
        try makeStore(at: .file(url), schema: schema, kind: kind, fill: fill)
    }

    /// Creates a store at `location` and `schema`, filled by `fill`, closes it, and returns what it holds.
    @discardableResult
    static func makeStore(
        at location: StoreLocation, schema: Schema, kind: StoreKind, fill: (Objects) throws -> Void = Library.fill
    ) throws -> StoreDump {
        let store = try Store.open(at: location, schema: schema, options: kind.options)
        defer { try? store.close() }
        try store.write(fill)
        return try StoreDump(store)
    }

    /// Creates a store at `old`, opens it at `new` (migrating it), and returns the data before and after and the
    /// migration history.
    static func migrate(
        _ kind: StoreKind, from old: Schema, to new: Schema, in directory: TemporaryDirectory,
        fill: (Objects) throws -> Void = Library.fill
    ) throws -> (before: StoreDump, after: StoreDump, history: [MigrationRecord]) {
        let location = try kind.location(in: directory)
        let before = try makeStore(at: location, schema: old, kind: kind, fill: fill)
        let store = try Store.open(at: location, schema: new, options: kind.options)
        defer { try? store.close() }
        return (before, try StoreDump(store), try store.history())
    }
}

extension Schema {
    /// A copy with version `version`, changed by `change`.
    func next(_ version: Int, _ change: (inout Schema) -> Void) -> Schema {
        var copy = withVersion(version)
        copy.deletions = []  // a deletion belongs to the version that declares it
        change(&copy)
        return copy
    }

    /// Changes the entity named `name`.
    mutating func edit(_ name: String, _ change: (inout Entity) -> Void) {
        let index = entities.firstIndex { $0.name == name }!
        change(&entities[index])
    }
}

extension Entity {
    /// Changes the attribute named `name`.
    mutating func editAttribute(_ name: String, _ change: (inout Attribute) -> Void) {
        let index = attributes.firstIndex { $0.name == name }!
        change(&attributes[index])
    }

    /// Changes the relationship named `name`.
    mutating func editRelationship(_ name: String, _ change: (inout Relationship) -> Void) {
        let index = relationships.firstIndex { $0.name == name }!
        change(&relationships[index])
    }
}
