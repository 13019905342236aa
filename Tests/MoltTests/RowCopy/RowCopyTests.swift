import Foundation
import GRDB
import Testing
@testable import Molt

/// The bulk copy (``RowCopy``) is the one writer of Molt's format for rows that come from another file: its caller
/// says what each source column means, the engine writes and proves. Run on every durable kind: SQLite copies in
/// SQL, PostgreSQL has no bulk copy and says so, writing nothing.
@Suite("Bulk copy: rows described by meaning, written and proved by the engine")
struct RowCopyTests {
    static let schema = Schema(version: 1) {
        Entity("Folder") {
            Attribute("name", .string)
            Attribute("created", .date)
            Attribute("token", .uuid, isOptional: true)
            Relationship("notes", toMany: "Note", inverse: "folder")
        }
        Entity("Note") {
            Attribute("title", .string)
            Attribute("rating", .int32)
            Attribute("price", .decimal, isOptional: true)
            Relationship("folder", to: "Folder", inverse: "notes")
            Relationship("tags", toMany: "Tag", inverse: "notes")
        }
        Entity("Tag") {
            Attribute("label", .string)
            Relationship("notes", toMany: "Note", inverse: "tags")
        }
    }

    /// A source file in the shape of a Core Data store: dates in seconds since 2001, UUIDs as 16 bytes, a decimal
    /// as a real, a join table.
    static func writeSource(in directory: TemporaryDirectory, rating: String = "4") throws -> String {
        let path = directory.file("source.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZFOLDER (Z_PK INTEGER PRIMARY KEY, ZNAME, ZCREATED, ZTOKEN);
                    CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, ZTITLE, ZRATING, ZPRICE, ZFOLDER);
                    CREATE TABLE ZTAG (Z_PK INTEGER PRIMARY KEY, ZLABEL);
                    CREATE TABLE Z_TAGS (Z_NOTE, Z_TAG);
                    INSERT INTO ZFOLDER VALUES (1, 'Inbox', 1.5, x'00112233445566778899AABBCCDDEEFF');
                    INSERT INTO ZFOLDER VALUES (2, 'Belém 😀', 7, NULL);
                    INSERT INTO ZNOTE VALUES (3, 'a' || char(0) || 'b', \(rating), 12.5, 1);
                    INSERT INTO ZNOTE VALUES (5, 'second', -2, NULL, 1);
                    INSERT INTO ZNOTE VALUES (8, 'third', 0, '0.1', NULL);
                    INSERT INTO ZTAG VALUES (1, 'red'), (2, 'blue');
                    INSERT INTO Z_TAGS VALUES (3, 1), (3, 2), (5, 2);
                    """)
        }
        return path
    }

    /// The copy of the source above: only the source's names; the engine writes Molt's.
    static func copy(source: String) -> RowCopy {
        let from = { (table: String) in "FROM \(RowCopy.sourceSchema).\"\(table)\" AS c" }
        return RowCopy(
            source: source,
            entities: [
                .init(
                    entity: "Folder", rows: from("ZFOLDER"), key: "c.Z_PK",
                    columns: [
                        .init(member: "name", source: "c.ZNAME", meaning: .text),
                        .init(member: "created", source: "c.ZCREATED", meaning: .secondsSince2001),
                        .init(member: "token", source: "c.ZTOKEN", meaning: .uuidBytes),
                    ]),
                .init(
                    entity: "Note", rows: from("ZNOTE"), key: "c.Z_PK",
                    columns: [
                        .init(member: "title", source: "c.ZTITLE", meaning: .text),
                        .init(member: "rating", source: "c.ZRATING", meaning: .int32),
                        .init(member: "price", source: "c.ZPRICE", meaning: .converted(0, from: .numberOrASCIIText)),
                        .init(member: "folder", source: "c.ZFOLDER", meaning: .link),
                    ],
                    links: [
                        .init(
                            relationship: "tags",
                            pairs:
                                "SELECT j.Z_NOTE AS owner, j.Z_TAG AS target FROM \(RowCopy.sourceSchema).Z_TAGS AS j")
                    ]),
                .init(
                    entity: "Tag", rows: from("ZTAG"), key: "c.Z_PK",
                    columns: [.init(member: "label", source: "c.ZLABEL", meaning: .text)]),
            ],
            conversions: [
                RowCopy.Conversion { key, stored in
                    switch stored {
                    case .double(let real): return .decimal(Decimal(string: "\(real)")!)
                    case .string(let text):
                        guard let decimal = Decimal(string: text) else {
                            throw MoltError(.invalidValue, "object \(key) holds the text '\(text)'")
                        }
                        return .decimal(decimal)
                    default: throw MoltError(.invalidValue, "object \(key) holds \(stored)")
                    }
                }
            ])
    }

    /// Creates the store of `kind` in `directory` by `copy`; returns the outcome.
    static func create(
        _ kind: StoreKind, in directory: TemporaryDirectory, _ copy: RowCopy
    ) throws -> RowCopy.Outcome {
        var outcome: RowCopy.Outcome?
        let location = try kind.location(in: directory)
        let attachment = kind == .postgres ? nil : (path: copy.source, name: RowCopy.sourceSchema)
        try Store.create(at: location, schema: schema, attaching: attachment) { objects in
            outcome = try objects.copyRows(copy, identifierMarks: ["Note": 20])
        }
        return try #require(outcome)
    }

    @Test(
        "Every value and link arrives as its meaning says, proved, and reads back through the object API",
        arguments: StoreKind.durable)
    func copies(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let outcome = try Self.create(kind, in: directory, Self.copy(source: try Self.writeSource(in: directory)))
        let store = try kind.open(in: directory, schema: Self.schema)
        guard kind != .postgres else {
            guard case .unfit(let reason) = outcome else { Issue.record("\(outcome)"); return }
            #expect(reason == "the store's engine has no bulk copy")
            #expect(try store.read { try $0.count("Note") } == 0)
            return
        }
        guard case .copied(let lines) = outcome else { Issue.record("\(outcome)"); return }
        #expect(lines.map(\.entity) == ["Folder", "Note", "Tag"])
        #expect(lines.map(\.copiedCount) == [2, 3, 2])
        #expect(lines.allSatisfy { $0.holds })
        try store.read { objects in
            let inbox = try #require(try objects.object("Folder", id: 1))
            #expect(inbox["created"] == .date(Date(timeIntervalSinceReferenceDate: 1.5)))
            #expect(inbox["token"] == .uuid(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!))
            #expect(try objects.object("Folder", id: 2)?["name"] == .string("Belém 😀"))
            // Filled from the inverse by the import's finish.
            #expect(try objects.destinations("notes", of: inbox).compactMap(\.id).sorted() == [3, 5])
            let first = try #require(try objects.object("Note", id: 3))
            #expect(first["title"] == .string("a\u{0}b"))
            #expect(first["price"] == .decimal(Decimal(string: "12.5")!))
            #expect(try objects.object("Note", id: 8)?["price"] == .decimal(Decimal(string: "0.1")!))
            #expect(try objects.destinations("tags", of: first).compactMap(\.id).sorted() == [1, 2])
            let blue = try #require(try objects.object("Tag", id: 2))
            #expect(try objects.destinations("notes", of: blue).compactMap(\.id).sorted() == [3, 5])
        }
        // The source's identifier marks hold: the next note is past 20.
        let next = try store.write { try $0.insert("Note", ["title": "new", "rating": 1]).id }
        #expect(next == 21)
    }

    static let unfit: [(rating: String, reason: String)] = [
        ("3000000000", "'Note' holds a value the copy in SQL does not convert ('rating' of object 3)"),
        ("'4'", "'Note' holds a value the copy in SQL does not convert ('rating' of object 3)"),
        // Stopped by the column's constraint before the proof's scan names it.
        ("NULL", "NOT NULL constraint failed: Note.rating"),
    ]

    @Test(
        "A value that is not what its meaning says makes the copy unfit, naming it; nothing is kept", arguments: unfit)
    func refusesUnfitValue(_ item: (rating: String, reason: String)) throws {
        let directory = TemporaryDirectory()
        let source = try Self.writeSource(in: directory, rating: item.rating)
        let outcome = try Self.create(.wal, in: directory, Self.copy(source: source))
        guard case .unfit(let reason) = outcome else { Issue.record("\(outcome)"); return }
        #expect(reason.contains(item.reason), "\(reason)")
        try Self.expectEmpty(directory)
    }

    @Test("A conversion that throws, or a link to a row that is not there, stops the copy; nothing is kept")
    func stops() throws {
        let directory = TemporaryDirectory()
        let source = try Self.writeSource(in: directory)
        try DatabaseQueue(path: source).write { try $0.execute(sql: "UPDATE ZNOTE SET ZPRICE = 'many' WHERE Z_PK = 8") }
        guard case .unfit(let reason) = try Self.create(.rollback, in: directory, Self.copy(source: source)) else {
            Issue.record("copied")
            return
        }
        #expect(reason.hasPrefix("the copy in SQL stopped ("), "\(reason)")
        #expect(reason.contains("object 8 holds the text 'many'"), "\(reason)")
        try Self.expectEmpty(directory)

        let other = TemporaryDirectory()
        let linked = try Self.writeSource(in: other)
        try DatabaseQueue(path: linked).write { try $0.execute(sql: "UPDATE ZNOTE SET ZFOLDER = 9 WHERE Z_PK = 5") }
        guard case .unfit(let missing) = try Self.create(.wal, in: other, Self.copy(source: linked)) else {
            Issue.record("copied")
            return
        }
        #expect(missing.contains("_id 9"), "\(missing)")
        try Self.expectEmpty(other)
    }

    @Test("A row changed between the copy and its proof makes the entity's line disagree; nothing is kept")
    func disagreement() throws {
        let directory = TemporaryDirectory()
        var copy = Self.copy(source: try Self.writeSource(in: directory))
        copy.beforeProof = #"UPDATE "Tag" SET "label" = 'green' WHERE "_id" = 1"#
        guard case .disagreed(let lines) = try Self.create(.wal, in: directory, copy) else {
            Issue.record("not refused")
            return
        }
        #expect(lines.filter { !$0.holds }.map(\.entity) == ["Tag"])
        try Self.expectEmpty(directory)
    }

    @Test("A copy that does not fit the schema is refused before it writes, naming the column")
    func misfit() throws {
        var copy = Self.copy(source: "unused")
        copy.entities[1].columns[1].meaning = .text
        #expect(copy.misfit(in: Self.schema) == "'Note.rating' is int32, not string")
        copy = Self.copy(source: "unused")
        copy.entities[0].columns.append(.init(member: "colour", source: "c.ZCOLOUR", meaning: .text))
        #expect(copy.misfit(in: Self.schema) == "'Folder' has no attribute 'colour'")
        copy = Self.copy(source: "unused")
        copy.entities[1].columns[2].meaning = .converted(3, from: .bytes)
        #expect(copy.misfit(in: Self.schema) == "'Note.price' names conversion 3, which the copy lacks")
        copy = Self.copy(source: "unused")
        copy.entities[2].links = [.init(relationship: "label", pairs: "SELECT 1, 1")]
        #expect(copy.misfit(in: Self.schema) == "'Tag.label' is not a to-many relationship")
        copy = Self.copy(source: "unused")
        copy.entities[1].columns.remove(at: 2)
        #expect(copy.misfit(in: Self.schema) == "'Note.price' has no column in the copy: every object would lose it")
        #expect(Self.copy(source: "unused").misfit(in: Self.schema) == nil)
    }

    private static func expectEmpty(_ directory: TemporaryDirectory) throws {
        let store = try StoreKind.wal.open(in: directory, schema: schema)
        try store.read { objects in
            for entity in ["Folder", "Note", "Tag"] {
                let count = try objects.count(entity)
                #expect(count == 0, "\(entity)")
            }
        }
    }
}
