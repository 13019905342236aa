import Foundation
import Molt
import MoltTooling

/// The readers of untrusted text that the fuzz targets of `Fuzz/` drive, reachable from that package without
/// making them public API: a mapping's SQL checks and `molt import`'s data-file reader. (The third target,
/// the schema snapshot decoder, is public: ``Schema/init(snapshotJSON:)``.)
///
/// Every entry point either returns or throws ``MoltError``; a trap on any input is a bug.
///
/// ```swift
/// @_spi(Fuzzing) import MoltTesting
///
/// let check = try FuzzingEntryPoints.mappingCheck(over: schema)
/// _ = check("upper(title)", "Book")
/// ```
@_spi(Fuzzing) public enum FuzzingEntryPoints {
    /// The fuzz targets' fixture: a small library: every attribute type, a to-one and its inverse, an ordered to-many, a custom primary key.
    public static let fixtureSchema = Schema(version: 1) {
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
                Attribute("pages", .int, default: 0),
                Attribute("price", .double, isOptional: true),
                Attribute("inPrint", .bool, default: true),
                Attribute("published", .date, isOptional: true),
                Attribute("code", .uuid, isOptional: true),
                Attribute("cover", .data, isOptional: true),
            ],
            relationships: [
                Relationship("author", to: "Author", inverse: "books"),
                Relationship("tags", toMany: "Tag", ordered: true),
            ])
        Entity("Tag") { Attribute("label", .string) }
    }

    /// The checks a mapping stage runs on each of its expressions and filters before placing them in a
    /// statement (``SQLExpressionCheck``, then the engine's query checker), here SQLite's over `schema`'s tables.
    ///
    /// - Parameter schema: The old version, whose tables a mapping may read.
    /// - Returns: A function of an expression and the entity it reads from, giving why the expression is
    ///   refused (in either the expression's or the filter's place), or nil when it is accepted in both.
    /// - Throws: ``MoltError`` when SQLite cannot build the scratch tables.
    public static func mappingCheck(over schema: Schema) throws -> (_ expression: String, _ entity: String) -> String? {
        let checker = try SQLFiles.dialect.queryChecker(for: schema)
        return { expression, entity in
            let source = SQLFiles.dialect.quote(entity)
            if let problem = SQLExpressionCheck.problem(in: expression) { return problem }
            return checker.problem(in: "SELECT (\(expression)) FROM \(source)")
                ?? checker.problem(in: "SELECT 1 FROM \(source) WHERE (\(expression))")
        }
    }

    /// Reads a `molt export` file held in `bytes` and imports its objects into `store`, as `molt import` does
    /// into a new store, then rolls the transaction back so that the store can take the next input.
    ///
    /// - Returns: How many objects the file held.
    /// - Throws: ``MoltError`` naming what is wrong with the file: invalid JSON, an unknown key, a value of the
    ///   wrong type, a link to an object the file does not hold.
    public static func importDataFile(_ bytes: [UInt8], into store: Store) throws -> Int {
        struct RolledBack: Error { var count: Int }
        let reader = DataFileReader(JSONStreamReader(bytes: bytes), name: "input.json", schema: store.schema)
        do {
            try store.write { objects in
                let importer = try ObjectImporter(objects, keepingIDs: true)
                try reader.read { row in
                    try importer.insert(row.entity, fileID: row.fileID, values: row.values, links: row.links)
                }
                try importer.finish()
                throw RolledBack(count: importer.count)
            }
        } catch let done as RolledBack {
            return done.count
        }
        return 0
    }
}
