import Foundation
import Molt

/// A store with many rows, for migrations long enough to kill or race: items, and a few shelves linked to them.
enum BulkStore {
    static func v0() -> Schema {
        Schema(version: 0) {
            Entity("Shelf") {
                Attribute("room", .string)
            }
            Entity("Item") {
                Attribute("name", .string)
                Attribute("n", .int)
                Attribute("score", .double, isOptional: true)
                Relationship("shelf", to: "Shelf")
            }
        }
    }

    /// Rebuilds Item: `n` int → double, `score` made required with a default, a note added, name indexed.
    static func v1() -> Schema {
        v0().next(1) {
            $0.edit("Item") {
                $0.editAttribute("n") { $0.type = .double }
                $0.editAttribute("score") {
                    $0.isOptional = false; $0.defaultValue = -1.0
                }
                $0.attributes.append(Attribute("note", .string, default: "new"))
                $0.indexes = [Index(["name"])]
            }
        }
    }

    /// Creates a store at version 0 with `count` items (through Molt), filled in bulk with SQL.
    static func make(at url: URL, kind: StoreKind, count: Int) throws {
        let store = try Store.open(at: url, schema: v0(), options: kind.options)
        try store.write { objects in
            for room in ["hall", "attic", "cellar"] { _ = try objects.insert("Shelf", ["room": .string(room)]) }
        }
        try store.close()
        try RawSQL.execute(
            url,
            """
            WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < \(count))
            INSERT INTO Item (_id, name, n, score, shelf)
            SELECT i, 'item ' || i, i * 7 - 1000, CASE WHEN i % 3 = 0 THEN NULL ELSE i / 4.0 END,
                   CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 + 1 END
            FROM seq
            """)
    }

    /// Creates a PostgreSQL store at version 0 with `count` items (through Molt), filled in bulk with SQL.
    static func make(at location: StoreLocation, count: Int) throws {
        let store = try Store.open(at: location, schema: v0())
        try store.write { objects in
            for room in ["hall", "attic", "cellar"] { _ = try objects.insert("Shelf", ["room": .string(room)]) }
        }
        try store.close()
        try RawSQL.execute(
            location,
            """
            INSERT INTO "Item" ("_id", name, n, score, shelf)
            SELECT i, 'item ' || i, i * 7 - 1000, CASE WHEN i % 3 = 0 THEN NULL ELSE i / 4.0 END,
                   CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 + 1 END
            FROM generate_series(1, \(count)) AS i
            """, #"SELECT setval(pg_get_serial_sequence('"Item"', '_id'), \#(count))"#)
    }

    /// Every item as one line of text, in identifier order: what must survive a crash value by value.
    static func rows(_ url: URL) throws -> [String] {
        try RawSQL.texts(
            url,
            "SELECT _id || '|' || name || '|' || n || '|' || ifnull(score, '-') || '|' || ifnull(shelf, '-') FROM Item ORDER BY _id"
        )
    }

    /// The rows expected after migrating a version-0 store to version 1, computed from the version-0 store:
    /// `n` as a real, a null score as -1.0, the note "new".
    static func expectedRowsV1(_ url: URL) throws -> [String] {
        try RawSQL.texts(
            url,
            "SELECT _id || '|' || name || '|' || CAST(n AS REAL) || '|' || ifnull(score, -1.0) || '|' || ifnull(shelf, '-') || '|new' FROM Item ORDER BY _id"
        )
    }

    /// Every item as one line of text after version 1.
    static func rowsV1(_ url: URL) throws -> [String] {
        try RawSQL.texts(
            url,
            "SELECT _id || '|' || name || '|' || n || '|' || score || '|' || ifnull(shelf, '-') || '|' || note FROM Item ORDER BY _id"
        )
    }

    /// The shelves, read through Molt.
    static func shelves(_ store: Store) throws -> [DynamicObject] {
        try store.read { try $0.fetch("Shelf") }
    }
}
