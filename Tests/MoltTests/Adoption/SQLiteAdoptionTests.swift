import Foundation
import GRDB
import Molt
import MoltAdoption
import Testing

/// Adoption of GRDB, FMDB and plain SQLite databases: GRDB's own fixture (a text primary key referenced by a
/// foreign key, AUTOINCREMENT, a null link), an FMDB-style database versioned by `user_version`, refusals that
/// name table, row and column and leave the database as it was, and adoption into PostgreSQL.
@Suite("Adopting GRDB, FMDB and plain SQLite databases")
struct SQLiteAdoptionTests {
    /// GRDBSnapshotTesting's migration v1, read as a Molt schema: the team's text key becomes `code`.
    static let grdbV1 = Schema(version: 1) {
        Entity("Team", primaryKey: "code") {
            Attribute("code", .string)
            Attribute("name", .string)
            Attribute("color", .string)
            Relationship("players", toMany: "Player", inverse: "team")
        }
        Entity("Player") {
            Attribute("name", .string)
            Relationship("team", to: "Team", inverse: "players")
        }
    }
    static let grdbMapping = SQLiteMapping(tables: [.init(entity: "Team", table: "team", columns: ["code": "id"])])

    @Test(
        "GRDB's own fixture: text key resolved, identities kept, the version recorded",
        .enabled(if: ForeignStores.isPresent, "../shared/foreign-stores is absent beside the package"))
    func adoptsGRDBDatabase() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "grdb-snapshottesting/database_v1_populated.sqlite", to: directory, as: "db.sqlite")
        let store = try Store.open(
            at: url, schema: Self.grdbV1,
            options: Store.Options().adopting(.sqlite(Self.grdbV1, mapping: Self.grdbMapping)))
        defer { try? store.close() }
        try store.read { (objects: Objects) throws in
            let players = try objects.fetch("Player", orderBy: [.ascending("name")])
            #expect(players.map(\.id) == [1, 2, 3])
            #expect(players.map { $0["name"] } == ["Antoine Dupond", "Owen Farrell", "Tartempion"])
            #expect(try players.map { try objects.destination("team", of: $0)?["code"] } == ["FRA", "ENG", nil])
            let teams = try objects.fetch("Team", orderBy: [.ascending("code")])
            #expect(teams.map { $0["color"] } == ["white", "blue"])
            #expect(try objects.destinations("players", of: teams[1]).map { $0["name"] } == ["Antoine Dupond"])
        }
        let adoption = try #require(try Store.inspect(at: url).adoption)
        #expect(adoption.engine == "GRDB")
        #expect(adoption.sourceVersions == ["grdb_migrations: v1"])
        #expect(adoption.objectCounts == ["Team": 2, "Player": 3])
        // A new player gets an identifier past those AUTOINCREMENT handed out.
        let id = try store.write { try $0.insert("Player", ["name": "New"]).id }
        #expect((id ?? 0) > 3)
    }

    /// An FMDB-style database: plain SQL, `user_version` 3, names in snake_case, dates as seconds and as GRDB's
    /// text, UUIDs as text and as 16 bytes, a decimal as text; its texts in `encoding` (`PRAGMA encoding`).
    static func fmdbDatabase(at url: URL, encoding: String = "UTF-8") throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(
                sql: """
                    PRAGMA encoding = '\(encoding)';
                    PRAGMA user_version = 3;
                    CREATE TABLE folders (id INTEGER PRIMARY KEY, display_name TEXT NOT NULL);
                    CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, created_at REAL, edited_at TEXT,
                        uuid TEXT, token BLOB, price TEXT, pinned INTEGER, folder_id INTEGER REFERENCES folders(id));
                    INSERT INTO folders VALUES (7, 'Inbox'), (9, 'Archive');
                    INSERT INTO notes VALUES (1, 'First', 1700000000.25, '2024-05-01 12:30:00.125',
                        '0B1E7CE4-7E0E-4B9B-9D4A-2F0E3A4C5D6E', x'00112233445566778899AABBCCDDEEFF', '12.30', 1, 7);
                    INSERT INTO notes VALUES (5, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL);
                    CREATE TABLE tags (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE);
                    CREATE TABLE note_tags (note_id INTEGER REFERENCES notes(id), tag_label TEXT REFERENCES tags(label));
                    INSERT INTO tags VALUES (2, 'work'), (3, 'home'), (4, 'unused');
                    INSERT INTO note_tags VALUES (1, 'home'), (1, 'work'), (5, 'work');
                    """)
        }
        try queue.close()
    }

    static let fmdbV1 = Schema(version: 1) {
        Entity("Folder") {
            Attribute("displayName", .string)
            Relationship("notes", toMany: "Note", inverse: "folder")
        }
        Entity("Note") {
            Attribute("title", .string, isOptional: true)
            Attribute("createdAt", .date, isOptional: true)
            Attribute("editedAt", .date, isOptional: true)
            Attribute("uuid", .uuid, isOptional: true)
            Attribute("token", .uuid, isOptional: true)
            Attribute("price", .decimal, isOptional: true)
            Attribute("pinned", .bool)
            Relationship("folder", to: "Folder", inverse: "notes")
            Relationship("tags", toMany: "Tag", inverse: "notes")
        }
        Entity("Tag") {
            Attribute("label", .string)
            Relationship("notes", toMany: "Note", inverse: "tags")
        }
    }

    @Test("An FMDB database versioned by user_version, inferred by name, every value", arguments: StoreKind.durable)
    func adoptsFMDBDatabase(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("notes.db")
        try Self.fmdbDatabase(at: url)
        let before = FileManager.default.contents(atPath: url.path)
        let location = kind == .postgres ? try kind.location(in: directory) : .file(url)
        let adoption = SQLiteAdoption(Self.fmdbV1, from: kind == .postgres ? url : nil)
        let report = try #require(try adoption.adopt(at: location, schema: Self.fmdbV1, options: Store.Options()))
        #expect(report.comparison.agrees)
        #expect(report.record.engine == "SQLite" && report.record.sourceVersions == ["user_version 3"])
        if kind == .postgres { #expect(FileManager.default.contents(atPath: url.path) == before) }
        let store = try Store.open(at: location, schema: Self.fmdbV1)
        defer { try? store.close() }
        try store.read { (objects: Objects) throws in
            let note = try #require(try objects.object("Note", id: 1))
            #expect(note["title"] == "First")
            #expect(note["createdAt"] == .date(Date(timeIntervalSince1970: 1_700_000_000.25)))
            #expect(note["editedAt"] == .date(Date(timeIntervalSince1970: 1_714_566_600.125)))
            #expect(note["uuid"] == .uuid(UUID(uuidString: "0B1E7CE4-7E0E-4B9B-9D4A-2F0E3A4C5D6E")!))
            #expect(note["token"] == .uuid(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!))
            #expect(note["price"] == .decimal(Decimal(string: "12.3")!))
            #expect(note["pinned"] == .bool(true))
            #expect(try objects.destination("folder", of: note)?.id == 7)
            let empty = try #require(try objects.object("Note", id: 5))
            #expect(empty["title"] == .null && empty["pinned"] == .bool(false))
            #expect(try objects.destinations("notes", of: try #require(try objects.object("Folder", id: 9))).isEmpty)
            // The join table's links, its text key resolved to the tags' identities, on both sides.
            #expect(Set(try objects.destinations("tags", of: note).map(\.id)) == [2, 3])
            #expect(try objects.destinations("tags", of: empty).map(\.id) == [2])
            let work = try #require(try objects.object("Tag", id: 2))
            #expect(Set(try objects.destinations("notes", of: work).map(\.id)) == [1, 5])
            #expect(try objects.destinations("notes", of: try #require(try objects.object("Tag", id: 4))).isEmpty)
        }
    }

    @Test(
        "A schema that requires a link a row lacks is refused naming the objects, and nothing is created",
        arguments: StoreKind.durable)
    func requiredLink(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("notes.db")
        try Self.fmdbDatabase(at: url)
        let before = FileManager.default.contents(atPath: url.path)
        var schema = Self.fmdbV1
        schema.edit("Note") { $0.editRelationship("folder") { $0.isOptional = false } }
        let location = kind == .postgres ? try kind.location(in: directory) : .file(url)
        let adoption = SQLiteAdoption(schema, from: kind == .postgres ? url : nil)
        let error = try #require(throws: MoltError.self) {
            try adoption.adopt(at: location, schema: schema, options: Store.Options())
        }
        #expect(
            error.message
                == "The copy leaves the required relationship 'Note.folder' empty, so no store was created: 1 'Note' object (_id 5) has no 'folder'. Link those objects in the original store, or make 'Note.folder' optional in the schema."
        )
        #expect(FileManager.default.contents(atPath: url.path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["notes.db"])
    }

    @Test(
        "Refusals name table, row and column, and leave the database as it was",
        arguments: [
            ("CREATE TABLE audit (line TEXT)", "Table audit"),
            ("ALTER TABLE notes ADD COLUMN secret TEXT", "Column notes.secret"),
            ("UPDATE notes SET pinned = NULL WHERE id = 5", "notes.pinned of the row 5 is NULL"),
            (
                "UPDATE notes SET created_at = 'yesterday' WHERE id = 1",
                "notes.created_at of the row 1 holds the text 'yesterday'"
            ),
            (
                "UPDATE notes SET edited_at = '2024-05-01 12:30:00.1256' WHERE id = 1",
                "notes.edited_at of the row 1 holds the text '2024-05-01 12:30:00.1256'"
            ),
            ("PRAGMA foreign_keys = OFF; UPDATE notes SET folder_id = 99 WHERE id = 1", "folder_id"),
            ("PRAGMA foreign_keys = OFF; INSERT INTO note_tags VALUES (1, 'gone')", "a dangling link"),
        ])
    func refuses(_ damage: (sql: String, message: String)) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("notes.db")
        try Self.fmdbDatabase(at: url)
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { try $0.execute(sql: damage.sql) }
        try queue.close()
        let before = FileManager.default.contents(atPath: url.path)
        let error = try #require(throws: MoltError.self) {
            try Store.open(at: url, schema: Self.fmdbV1, options: Store.Options().adopting(.sqlite(Self.fmdbV1)))
        }
        #expect(error.message.contains(damage.message), "\(error.message)")
        #expect(FileManager.default.contents(atPath: url.path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["notes.db"])
    }

    @Test("A mapping file in JSON reads as the Swift one")
    func mappingFile() throws {
        let json = """
            {"tables": [{"entity": "Team", "table": "team", "columns": {"code": "id"}}], "ignoredTables": ["log"]}
            """
        let mapping = try SQLiteMapping(json: Data(json.utf8))
        #expect(mapping.tables == Self.grdbMapping.tables)
        #expect(mapping.ignoredTables == ["log"])
        #expect(throws: MoltError.self) { try SQLiteMapping(json: Data("{\"tables\": [{}]}".utf8)) }
    }
}
