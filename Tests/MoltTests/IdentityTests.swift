import Foundation
import GRDB
import Testing
@testable import Molt

/// The identity contract: an object's `_id` is given once and never handed out again, on every engine, across
/// deletes, migrations (rebuilt tables included) and stages; a stage pairs old and new objects only when the new
/// object *is* the old one.
@Suite("Identities are never reused")
struct IdentityTests {
    static let v1 = Schema(version: 1) {
        Entity("Note") {
            Attribute("title", .string)
            Attribute("count", .int)
        }
    }
    /// A type change that SQLite applies by rebuilding the table.
    static let v2 = Schema(version: 2) {
        Entity("Note") {
            Attribute("title", .string)
            Attribute("count", .string)
        }
    }

    /// A closed store of `kind` at v1 holding `count` notes, and their ids.
    static func closedStore(_ kind: StoreKind, in dir: TemporaryDirectory, count: Int) throws -> [Int64] {
        let store = try kind.open(in: dir, schema: Self.v1)
        defer { try? store.close() }
        return try fill(store, count: count)
    }

    static func fill(_ store: Store, count: Int) throws -> [Int64] {
        try store.write { objects in
            try (0..<count).map {
                try objects.insert("Note", ["title": .string("n\($0)"), "count": .int(Int64($0))]).id!
            }
        }
    }

    @Test("deleting the object with the largest id and inserting another gives a new id", arguments: StoreKind.allCases)
    func deleteNewestThenInsert(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.v1, in: dir)
        let ids = try Self.fill(store, count: 3)
        try store.write { objects in
            let newest = try #require(try objects.object("Note", id: ids[2]))
            try objects.delete(newest)
        }
        let next = try store.write { try $0.insert("Note", ["title": "after", "count": 9]).id! }
        #expect(next > ids[2], "the id \(ids[2]) of a deleted object was handed out again")
        #expect(try store.read { try $0.object("Note", id: ids[2]) } == nil)
    }

    @Test("the mark survives reopening and a migration that rebuilds the table", arguments: StoreKind.durable)
    func survivesRebuild(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.open(in: dir, schema: Self.v1)
        let ids = try Self.fill(store, count: 5)
        try store.write { objects in
            for id in ids[3...] { try objects.delete(try #require(try objects.object("Note", id: id))) }
        }
        try store.close()
        let migrated = try kind.open(in: dir, schema: Self.v2)
        #expect(try migrated.read { try $0.count("Note") } == 3)
        let next = try migrated.write { try $0.insert("Note", ["title": "after", "count": "9"]).id! }
        #expect(next > ids[4], "the id \(ids[4]) of an object deleted before the migration was handed out again")
    }

    @Test(
        "a stage that deletes the newest objects and creates others never pairs a created object with an old one",
        arguments: StoreKind.durable)
    func stagePairsOnlyOldObjects(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let ids = try Self.closedStore(kind, in: dir, count: 4)
        let stage = MigrationStage.custom(from: 1, to: 2) { migration in
            // Delete the two newest objects, then create two: they must not take the deleted objects' ids.
            for note in try migration.new.fetch("Note") where note.id! >= ids[2] { try migration.delete(note) }
            try migration.create("Note", value: ["title": "created 1", "count": "c1"])
            try migration.create("Note", value: ["title": "created 2", "count": "c2"])
            var paired: [String] = []
            try migration.enumerateObjects(ofType: "Note") { old, new in
                paired.append("\(old["title"].string ?? "?")→\(new["title"].string ?? "?")")
                new["count"] = .string("old \(old["count"].int ?? -1)")
            }
            #expect(paired == ["n0→n0", "n1→n1"], "enumerateObjects paired: \(paired)")
        }
        let plan = try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [stage])
        let migrated = try kind.open(in: dir, schema: Self.v2, options: kind.options.migrating(with: plan))
        let notes = try migrated.read { try $0.fetch("Note") }.sorted { $0.id! < $1.id! }
        #expect(notes.map { $0["title"] } == ["n0", "n1", "created 1", "created 2"])
        #expect(notes.map { $0["count"] } == ["old 0", "old 1", "c1", "c2"])
        #expect(notes[2].id! > ids[3] && notes[3].id! > ids[3])
    }

    @Test(
        "deleteData then create in a stage: the created objects are new, never the deleted ones",
        arguments: StoreKind.durable)
    func deleteDataThenCreate(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let ids = try Self.closedStore(kind, in: dir, count: 3)
        let stage = MigrationStage.custom(from: 1, to: 2) { migration in
            try migration.deleteData(forType: "Note")
            try migration.create("Note", value: ["title": "fresh", "count": "new"])
            var paired = 0
            try migration.enumerateObjects(ofType: "Note") { _, new in
                paired += 1
                new["count"] = "overwritten from an old object"
            }
            #expect(paired == 0)
        }
        let plan = try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [stage])
        let migrated = try kind.open(in: dir, schema: Self.v2, options: kind.options.migrating(with: plan))
        let notes = try migrated.read { try $0.fetch("Note") }
        #expect(notes.map { $0["count"] } == ["new"])
        #expect(notes[0].id! > ids[2])
    }

    @Test(
        "a store written before AUTOINCREMENT is upgraded in place when opened: its next ids pass its largest",
        arguments: StoreKind.files)
    func legacyStoreIsUpgraded(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let ids = try Self.closedStore(kind, in: dir, count: 3)
        // Make the file what an earlier Molt wrote: a plain INTEGER PRIMARY KEY, no sequence.
        let queue = try DatabaseQueue(path: dir.file("store.sqlite").path)
        try queue.writeWithoutTransaction { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version")!
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(sql: "UPDATE sqlite_master SET sql = replace(sql, ' AUTOINCREMENT', '') WHERE name = 'Note'")
            try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            try db.execute(sql: "PRAGMA writable_schema = OFF")
            try db.execute(sql: "DELETE FROM sqlite_sequence")
        }
        try queue.close()
        let pages = try RawSQL.rootPages(dir.file("store.sqlite"))
        let reopened = try kind.open(in: dir, schema: Self.v1)
        try reopened.write { objects in try objects.delete(try #require(try objects.object("Note", id: ids[2]))) }
        let next = try reopened.write { try $0.insert("Note", ["title": "after", "count": 9]).id! }
        #expect(next > ids[2])
        try reopened.close()
        #expect(
            try RawSQL.rootPages(dir.file("store.sqlite"))["Note"] == pages["Note"], "the upgrade rewrote the table")
        #expect(try RawSQL.strings(dir.file("store.sqlite"), "PRAGMA integrity_check") == ["ok"])
        #expect(
            try RawSQL.strings(dir.file("store.sqlite"), "SELECT sql FROM sqlite_master WHERE name = 'Note'")
                .allSatisfy { $0.contains("AUTOINCREMENT") })
    }
}
