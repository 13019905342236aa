import Foundation
import GRDB
import Molt

/// The store of the export and import scenarios (issue 10): the memo store's items with a to-one link (to one
/// of 100 folders) and a to-many link (to two of 100 tags, a join table of 2 rows per item), made by Molt at
/// version 1 and filled by raw SQL.
enum LinkedStore {
    /// The memo store's schema (``Fixture/v1``) with a `Tag` entity and `Item.tags`.
    static let schema: Schema = {
        var entities = Fixture.v1.entities
        entities.insert(Entity("Tag", attributes: [Attribute("name", .string)]), at: 1)
        let item = entities.firstIndex { $0.name == "Item" }!
        entities[item].relationships.append(Relationship("tags", toMany: "Tag"))
        return Schema(version: 1, entities: entities)
    }()

    /// Every table the store holds, for ``Fixture/fingerprint(of:at:)``.
    static let tables = ["Folder", "Tag", "Item", "Item_tags"]

    /// The item columns in the order of the table, without `_id`.
    static let itemColumns = ["title", "body", "count", "score", "created", "legacy", "folder"]

    /// Linked stores of any size (0: an empty store at the schema).
    static func stores(_ runner: Runner) -> TemplateStores {
        TemplateStores(runner, name: "linked") { try create(rows: $0, at: $1) }
    }

    /// Creates a store of `rows` items at `url`, or an empty one for 0: Molt creates the file, then one raw SQL
    /// transaction fills it. Every third item has no `legacy` value.
    static func create(rows: Int, at url: URL) throws {
        try Store.open(at: url, schema: schema).close()
        guard rows > 0 else { return }
        let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100)
                    INSERT INTO Folder (_id, name) SELECT x, printf('Folder %03d', x) FROM n;
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100)
                    INSERT INTO Tag (_id, name) SELECT x, printf('Tag %03d', x) FROM n;
                    """)
            try db.execute(
                sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)
                    INSERT INTO Item (_id, title, body, count, score, created, legacy, folder)
                    SELECT x, printf('Memo number %08d', x), printf('Body of memo %08d, some words', x),
                           x % 1000, x * 0.5, 1700000000.0 + x, CASE WHEN x % 3 = 0 THEN NULL ELSE printf('L%06d', x % 1000000) END,
                           x % 100 + 1
                    FROM n
                    """, arguments: [rows])
            try db.execute(
                sql: """
                    INSERT INTO Item_tags (owner, target) SELECT _id, _id % 100 + 1 FROM Item;
                    INSERT INTO Item_tags (owner, target) SELECT _id, (_id + 37) % 100 + 1 FROM Item;
                    """)
        }
        try queue.close()
    }

    /// Writes the objects of the store at `store` as a `molt export` JSON file (compact, the format `molt import`
    /// reads: `{"format": "molt-data", "formatVersion": 1, "schemaVersion": 1, "entities": {…}}`), for the import
    /// scenario's input. Setup, not timed.
    static func writeDataFile(from store: URL, to file: URL) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw BenchmarkError(description: "cannot write \(file.path)")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var buffer = ""
        func flush(_ force: Bool = false) {
            guard force || buffer.utf8.count > 1 << 20 else { return }
            handle.write(Data(buffer.utf8))
            buffer = ""
        }
        func json(_ value: DatabaseValue) -> String {
            switch value.storage {
            case .null: return "null"
            case .int64(let v): return "\(v)"
            case .double(let v): return "\(v)"
            case .string(let v): return "\"\(v)\""  // the fixture's strings need no escaping
            case .blob: return "null"
            }
        }
        let queue = try DatabaseQueue(path: store.path, configuration: Fixture.configuration)
        defer { try? queue.close() }
        try queue.read { db in
            buffer += #"{"format":"molt-data","formatVersion":1,"schemaVersion":1,"entities":{"#
            for (index, entity) in ["Folder", "Tag"].enumerated() {
                buffer += (index > 0 ? "," : "") + "\"\(entity)\":["
                let rows = try Row.fetchCursor(db, sql: "SELECT _id, name FROM \(entity) ORDER BY _id")
                var first = true
                while let row = try rows.next() {
                    buffer +=
                        (first ? "" : ",")
                        + "{\"_id\":\(json(row[0] as DatabaseValue)),\"name\":\(json(row[1] as DatabaseValue))}"
                    first = false
                }
                buffer += "]"
            }
            buffer += ",\"Item\":["
            let columns = itemColumns.joined(separator: ", ")
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT _id, \(columns), (SELECT json_group_array(target) FROM (SELECT target FROM Item_tags WHERE owner = Item._id ORDER BY rowid))
                    FROM Item ORDER BY _id
                    """)
            var first = true
            while let row = try rows.next() {
                buffer += first ? "{" : ",{"
                first = false
                buffer += "\"_id\":\(json(row[0] as DatabaseValue))"
                for (offset, column) in itemColumns.enumerated() {
                    buffer += ",\"\(column)\":\(json(row[offset + 1] as DatabaseValue))"
                }
                buffer += ",\"tags\":\(row[itemColumns.count + 1] as String)}"
                flush()
            }
            buffer += "]}}\n"
        }
        flush(true)
    }

    /// A summary of the objects of a JSON file, computed by `sqlite3` (untimed): per entity, the object count and
    /// sums over each field (numbers, lengths of text, sizes and sums of id lists), so that two exports of the
    /// same objects agree whatever their layout. `path` is where each entity's array is: `$.entities.Item` in a
    /// `molt export` file, `$` in a file of one `sqlite3 -json` result.
    static func jsonSummary(_ files: [(entity: String, file: URL, path: String)], scratch: URL) throws -> String {
        let queries = files.map { entity, file, path in
            let sums =
                entity == "Item"
                ? [
                    "total(value->>'_id')", "total(length(value->>'title'))", "total(length(value->>'body'))",
                    "total(value->>'count')",
                    "total(value->>'score')", "total(value->>'created')", "total(length(value->>'legacy'))",
                    "total(value->>'folder')",
                    "total(json_array_length(value->>'tags'))",
                    "total((SELECT total(t.value) FROM json_each(j.value->>'tags') t))",
                ]
                : ["total(value->>'_id')", "total(length(value->>'name'))"]
            return
                "SELECT '\(entity)', count(*), \(sums.joined(separator: ", ")) FROM json_each(readfile('\(file.path)'), '\(path)') j;"
        }
        return try ChildProcess.sqlite3Output(":memory:", queries, scratch: scratch)
    }
}
