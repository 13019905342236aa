import Foundation
import Testing
@testable import Molt
import MoltTooling

/// The import path (`ObjectImporter`, what `molt import` streams a file through): on PostgreSQL its rows are
/// queued and sent a table at a time (`PostgresInsertQueue`), on SQLite inserted one by one; both must keep every
/// value exactly, and a refused row must leave nothing behind.
@Suite("Batched imports")
struct BatchedImportTests {
    /// Strings that an array literal or a cast could bend.
    static let awkward = [
        "", "NULL", "null", "a,b", "{x}", "quote \" and \\ backslash", "tab\tnew\nline", "élan ✓ 𝄞", " padded ",
        "'single'",
    ]
    static let doubles: [Value] = [
        .double(0.1), .double(5e-324), .double(1e-300), .double(1.7976931348623157e308), .double(-2.5), .null,
    ]

    /// 3,000 tags and 600 books with every kind of value, each book linking up to three tags, by file `_id`.
    static func importAll(_ store: Store, duplicateTagAt duplicate: Int64? = nil) throws {
        let schema = store.schema
        try store.write { objects in
            let importer = try ObjectImporter(objects, keepingIDs: true)
            let tag = schema.entity(named: "Tag")!
            for id in Int64(1)...3_000 {
                try importer.insert(
                    tag, fileID: id == duplicate ? id - 1 : id,
                    values: ["label": .string(awkward[Int(id) % awkward.count] + "\(id)")], links: [:])
            }
            let book = schema.entity(named: "Book")!
            for id in Int64(1)...600 {
                let i = Int(id)
                try importer.insert(
                    book, fileID: id,
                    values: [
                        "isbn": .string("isbn-\(id)"), "title": .string(awkward[i % awkward.count]),
                        "pages": .int(id * 7 - 2_000),
                        "price": doubles[i % doubles.count], "inPrint": .bool(i % 3 == 0),
                        "published": .date(Date(timeIntervalSince1970: 1_700_000_000.123456 + Double(id) * 0.001)),
                        "code": .uuid(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", i))!),
                        "cover": i % 4 == 0 ? .data(Data([0, 1, 92, 34, 44, 123, 255] + [UInt8(i % 256)])) : .null,
                    ],
                    links: [
                        "tags": [Int64(i % 3_000 + 1), Int64((i * 7) % 3_000 + 1), Int64((i * 13) % 3_000 + 1)]
                            .uniqued()
                    ])
            }
            try importer.finish()
        }
    }

    /// What the store holds, as lines.
    static func dump(_ store: Store) throws -> [String] {
        try store.read { objects in
            let tags = try objects.fetch("Tag").map { "Tag \($0.id!) \($0["label"])" }
            let books = try objects.fetch("Book").map { book in
                let tags = try objects.destinations("tags", of: book).compactMap(\.id).sorted()
                let values = ["isbn", "title", "pages", "price", "inPrint", "published", "code", "cover"].map {
                    "\(book[$0])"
                }
                return "Book \(book.id!) \(values.joined(separator: "|")) \(tags)"
            }
            return tags + books
        }
    }

    @Test("every value imported in batches reads back exactly as on SQLite", arguments: [StoreKind.postgres])
    func exactValues(kind: StoreKind) throws {
        let (sqliteDir, dir) = (TemporaryDirectory(), TemporaryDirectory())
        let reference = try StoreKind.rollback.makeStore(schema: Library.v0(), in: sqliteDir)
        defer { try? reference.close() }
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        defer { try? store.close() }
        try Self.importAll(reference)
        try Self.importAll(store)
        let (expected, found) = (try Self.dump(reference), try Self.dump(store))
        #expect(found.count == 3_600)
        let differences = zip(expected, found).filter { $0 != $1 }.prefix(3).map { "expected \($0)\nfound    \($1)" }
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        // The identity sequence passed the imported identifiers.
        let next = try store.write { try $0.insert("Tag", ["label": "next"]).id }
        #expect(next == 3_001)
    }

    @Test(
        "an _id given twice in the middle of an import leaves nothing, and the error names the fix",
        arguments: [StoreKind.postgres])
    func failureLeavesNothing(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Library.v0(), in: dir)
        defer { try? store.close() }
        let error = moltError { try Self.importAll(store, duplicateTagAt: 1_500) }
        #expect(error?.code == .invalidValue)
        #expect(
            error?.message
                == "An object or link imported into table \"Tag\" is given twice, or collides with a unique value of another object (A constraint was violated: UNIQUE constraint failed: Tag._id.); each object needs its own `_id` and unique values, and each link is listed once."
        )
        #expect(try store.read { [try $0.count("Tag"), try $0.count("Book")] } == [0, 0])
        // The session is still usable, and numbering starts where it did.
        #expect(try store.write { try $0.insert("Tag", ["label": "first"]).id } == 1)
    }
}

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
