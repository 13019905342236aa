import Foundation
import GRDB
import Molt
import MoltAdoption
import Testing

/// Texts of a GRDB, FMDB or plain SQLite database adopted byte for byte: GRDB's `String` stops at a NUL and
/// replaces bytes that are not UTF-8, so the adoption reads a text's bytes. Accents (composed and decomposed, equal
/// as Swift strings but not as bytes), an emoji, a byte-order mark and a NUL are kept; a text that is not UTF-8 is
/// refused naming table, row and column, the database left as it was. Checked on the bytes the adopted store holds
/// (`hex()`, PostgreSQL's `encode`), on every durable store kind.
@Suite("Adopting the texts of SQLite databases byte for byte")
struct SQLiteAdoptionTextTests {
    /// Adopts the FMDB database at `url` into `kind`'s store: in place for a file, from the file for PostgreSQL.
    static func adopt(_ url: URL, into kind: StoreKind, in directory: TemporaryDirectory) throws -> StoreLocation {
        let location = kind == .postgres ? try kind.location(in: directory) : .file(url)
        let adoption = SQLiteAdoption(SQLiteAdoptionTests.fmdbV1, from: kind == .postgres ? url : nil)
        let report = try #require(
            try adoption.adopt(at: location, schema: SQLiteAdoptionTests.fmdbV1, options: kind.options))
        #expect(report.comparison.agrees)
        return location
    }

    /// The bytes of the text in `column` of object `id` of the adopted store's `table`, in upper-case hex.
    static func hex(
        _ location: StoreLocation, _ kind: StoreKind, _ table: String, _ column: String, id: Int64
    ) throws -> String? {
        let sql =
            kind == .postgres
            ? #"SELECT upper(encode(convert_to("\#(column)", 'UTF8'), 'hex')) FROM "\#(table)" WHERE "_id" = \#(id)"#
            : #"SELECT hex("\#(column)") FROM "\#(table)" WHERE "_id" = \#(id)"#
        return try RawSQL.strings(location, sql).first
    }

    /// The UTF-8 bytes of a string attribute as Molt reads it back.
    static func utf8(_ store: Store, _ entity: String, id: Int64, _ attribute: String) throws -> [UInt8]? {
        try store.read { (objects: Objects) throws -> [UInt8]? in
            guard case .string(let text) = try objects.object(entity, id: id)?[attribute] else { return nil }
            return Array(text.utf8)
        }
    }

    @Test(
        "Texts beyond ASCII are adopted byte for byte, from a database in UTF-8 or UTF-16",
        arguments: StoreKind.durable, ["UTF-8", "UTF-16le"])
    func textsBeyondASCII(_ kind: StoreKind, encoding: String) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("notes.db")
        try SQLiteAdoptionTests.fmdbDatabase(at: url, encoding: encoding)
        // 'été' composed and decomposed, and a byte-order mark then an emoji, as SQL literals (which SQLite
        // stores in the database's encoding).
        try RawSQL.execute(
            url, "UPDATE folders SET display_name = '\u{E9}t\u{E9}' WHERE id = 7",
            "UPDATE folders SET display_name = 'e\u{301}te\u{301}' WHERE id = 9",
            "UPDATE notes SET title = '\u{FEFF}\u{1F600}' WHERE id = 1")
        let location = try Self.adopt(url, into: kind, in: directory)
        #expect(try Self.hex(location, kind, "Folder", "displayName", id: 7) == "C3A974C3A9")
        #expect(try Self.hex(location, kind, "Folder", "displayName", id: 9) == "65CC817465CC81")
        #expect(try Self.hex(location, kind, "Note", "title", id: 1) == "EFBBBFF09F9880")
        let store = try Store.open(at: location, schema: SQLiteAdoptionTests.fmdbV1, options: kind.options)
        defer { try? store.close() }
        #expect(try Self.utf8(store, "Folder", id: 9, "displayName") == [0x65, 0xCC, 0x81, 0x74, 0x65, 0xCC, 0x81])
        #expect(try Self.utf8(store, "Note", id: 1, "title") == [0xEF, 0xBB, 0xBF, 0xF0, 0x9F, 0x98, 0x80])
    }

    @Test(
        "A text with a NUL is adopted whole into SQLite, and refused by PostgreSQL, which cannot hold it",
        arguments: StoreKind.durable)
    func textWithNUL(_ kind: StoreKind) throws {
        if kind == .postgres { _ = try PostgresTestServer.requireURL() }  // skipped here, not inside #require(throws:)
        let directory = TemporaryDirectory()
        let url = directory.file("notes.db")
        try SQLiteAdoptionTests.fmdbDatabase(at: url)
        // 'a' NUL 'b', and 'un' NUL 'used' in a text key no row references: GRDB's `String` reads 'a' and 'un'.
        try RawSQL.execute(
            url, "UPDATE notes SET title = CAST(x'610062' AS TEXT) WHERE id = 1",
            "UPDATE tags SET label = 'un' || char(0) || 'used' WHERE id = 4")
        let before = FileManager.default.contents(atPath: url.path)
        guard kind != .postgres else {
            let error = try #require(throws: MoltError.self) { try Self.adopt(url, into: kind, in: directory) }
            #expect(
                error.message
                    == "Attribute 'Note.title' cannot store a string with the NUL character (U+0000), which PostgreSQL text cannot hold. Remove the character, or store the bytes in a data attribute; nothing was written."
            )
            #expect(FileManager.default.contents(atPath: url.path) == before)
            return
        }
        let location = try Self.adopt(url, into: kind, in: directory)
        #expect(try Self.hex(location, kind, "Note", "title", id: 1) == "610062")
        #expect(try Self.hex(location, kind, "Tag", "label", id: 4) == "756E0075736564")
        let store = try Store.open(at: location, schema: SQLiteAdoptionTests.fmdbV1, options: kind.options)
        defer { try? store.close() }
        #expect(try Self.utf8(store, "Note", id: 1, "title") == [0x61, 0x00, 0x62])
    }

    /// A change that makes one text of the FMDB database unadoptable, and the refusal's exact message.
    struct Damage: CustomTestStringConvertible, Sendable {
        var sql: String
        var message: String
        var testDescription: String { sql }
    }

    static let damages: [Damage] = [
        Damage(
            sql: "UPDATE notes SET title = CAST(x'61FF62' AS TEXT) WHERE id = 1",
            message:
                #"notes.title of the row 1 holds a text whose bytes are not UTF-8, which no Molt value of 'title' (string) can hold: reading it as a string would change it. Nothing was adopted and the database was left as it was. Correct the bytes in the database, or keep them as they are: make the column's texts blobs (UPDATE "notes" SET "title" = CAST("title" AS BLOB)) and adopt 'title' as a data attribute."#
        ),
        // UTF-8 up to a NUL, then a lone lead byte: GRDB's `String` would read 'Inbox' and see nothing wrong.
        Damage(
            sql: "UPDATE folders SET display_name = CAST(x'496E626F7800C3' AS TEXT) WHERE id = 9",
            message:
                #"folders.display_name of the row 9 holds a text whose bytes are not UTF-8, which no Molt value of 'displayName' (string) can hold: reading it as a string would change it. Nothing was adopted and the database was left as it was. Correct the bytes in the database, or keep them as they are: make the column's texts blobs (UPDATE "folders" SET "display_name" = CAST("display_name" AS BLOB)) and adopt 'displayName' as a data attribute."#
        ),
        Damage(
            sql: "UPDATE notes SET edited_at = CAST(x'323032342D30352D3031FF' AS TEXT) WHERE id = 1",
            message:
                #"notes.edited_at of the row 1 holds a text whose bytes are not UTF-8, which no Molt value of 'editedAt' (date) can hold: reading it as a string would change it. Nothing was adopted and the database was left as it was. Correct the bytes in the database, or keep them as they are: make the column's texts blobs (UPDATE "notes" SET "edited_at" = CAST("edited_at" AS BLOB)) and adopt 'editedAt' as a data attribute."#
        ),
        // A UUID's text, then a NUL and more: a parser that stops at the NUL would take the UUID and drop the rest.
        Damage(
            sql: "UPDATE notes SET uuid = uuid || char(0) || 'x' WHERE id = 1",
            message:
                #"notes.uuid of the row 1 holds the text '0B1E7CE4-7E0E-4B9B-9D4A-2F0E3A4C5D6E\0x', which is not a value of 'uuid' (uuid). Nothing was adopted and the database was left as it was. Correct the value, or adopt the column as another type."#
        ),
    ]

    @Test(
        "A text that is not UTF-8 is refused naming table, row and column, the database left as it was",
        arguments: StoreKind.durable, damages)
    func refusesText(_ kind: StoreKind, damage: Damage) throws {
        if kind == .postgres { _ = try PostgresTestServer.requireURL() }  // skipped here, not inside #require(throws:)
        let directory = TemporaryDirectory()
        let url = directory.file("notes.db")
        try SQLiteAdoptionTests.fmdbDatabase(at: url)
        try RawSQL.execute(url, damage.sql)
        let before = FileManager.default.contents(atPath: url.path)
        let error = try #require(throws: MoltError.self) { try Self.adopt(url, into: kind, in: directory) }
        #expect(error.message == damage.message)
        #expect(FileManager.default.contents(atPath: url.path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["notes.db"])
    }
}
