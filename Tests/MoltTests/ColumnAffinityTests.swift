import Foundation
import GRDB
import Molt
import Testing

/// Validation and `verify()` compare what SQLite stores by, a column's affinity and constraints, not how its type
/// is spelled: a `TEXT` column another tool rebuilt as `VARCHAR(42)` stores the same values the same way.
@Suite("Column types are compared by SQLite's affinity, not their spelling")
struct ColumnAffinityTests {
    static let v1 = Schema(version: 1) {
        Entity("Note") {
            Attribute("title", .string)
            Attribute("count", .int)
            Attribute("score", .double)
        }
    }

    static let v2 = Schema(version: 2) {
        Entity("Note") {
            Attribute("title", .string)
            Attribute("count", .int)
            Attribute("score", .double)
            Attribute("starred", .bool, default: false)
        }
    }

    /// Rebuilds `Note` as another tool would, each column spelled otherwise with the same affinity.
    static func respell(_ url: URL, keepingID: Bool = true) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.inTransaction {
                try db.execute(
                    sql: """
                        CREATE TABLE "Note_new" ("_id" \(keepingID ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "INT PRIMARY KEY"), \
                        "title" VARCHAR(42) NOT NULL, "count" BIGINT NOT NULL, "score" DOUBLE PRECISION NOT NULL);
                        INSERT INTO "Note_new" SELECT "_id", "title", "count", "score" FROM "Note";
                        DROP TABLE "Note";
                        ALTER TABLE "Note_new" RENAME TO "Note";
                        """)
                return .commit
            }
        }
        try queue.close()
    }

    @Test("a respelled table verifies, migrates, and keeps its values", arguments: StoreKind.files)
    func respelled(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.v1, in: dir)
        try store.write { objects in
            try objects.insert("Note", ["title": "a", "count": 3, "score": 0.5])
            try objects.insert("Note", ["title": "b", "count": 4, "score": 1.5])
        }
        try store.close()
        try Self.respell(dir.file())
        let reopened = try kind.open(in: dir, schema: Self.v1)
        try reopened.verify()
        try reopened.close()
        let migrated = try kind.open(in: dir, schema: Self.v2)
        defer { try? migrated.close() }
        try migrated.verify()
        let notes = try migrated.read { objects in
            try objects.fetch("Note").map { note in ["title", "count", "score", "starred"].map { note[$0] } }
        }
        #expect(notes == [["a", 3, 0.5, false], ["b", 4, 1.5, false]])
    }

    @Test("an _id no longer the rowid (INT PRIMARY KEY) is still a difference")
    func notTheRowID() throws {
        let dir = TemporaryDirectory()
        let store = try StoreKind.rollback.makeStore(schema: Self.v1, in: dir)
        try store.write { objects in _ = try objects.insert("Note", ["title": "a", "count": 3, "score": 0.5]) }
        try store.close()
        try Self.respell(dir.file(), keepingID: false)
        let reopened = try StoreKind.rollback.open(in: dir, schema: Self.v1)
        defer { try? reopened.close() }
        let error = #expect(throws: MoltError.self) { try reopened.verify() }
        #expect(error?.message.contains("_id INTEGER PRIMARY KEY") == true, "\(String(describing: error))")
    }
}
