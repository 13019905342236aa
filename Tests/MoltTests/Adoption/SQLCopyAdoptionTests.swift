import Foundation
import GRDB
import Molt
import MoltAdoption
import Testing

/// The copy by `INSERT … SELECT` into an SQLite store (issue 23, item 6) against the object-by-object copy it
/// replaces: each store is adopted both ways, and the two new stores must hold the same rows, byte for byte, and
/// every refusal must be the same, naming the object and the attribute.
@Suite("Adoption copied in SQL")
struct SQLCopyAdoptionTests {
    /// Adopts the Core Data store at `url` into a new file, in SQL or object by object.
    static func adopt(
        _ url: URL, with adoption: CoreDataAdoption, inSQL: Bool, into directory: TemporaryDirectory
    ) throws -> (report: AdoptionReport, store: URL) {
        var adoption = adoption
        adoption.source = url
        adoption.copiesInSQL = inSQL
        let destination = directory.file(inSQL ? "sql.sqlite" : "rows.sqlite")
        let schema = try adoption.matchedVersion(of: url).schema
        let report = try #require(try adoption.adopt(at: .file(destination), schema: schema, options: Store.Options()))
        return (report, destination)
    }

    /// Every row of every table but Molt's own metadata (which holds the adoption's date), each value with its
    /// storage class and exact bits (a text's bytes as stored: GRDB's `String` would stop at a NUL and replace
    /// bytes that are not UTF-8).
    static func rows(of url: URL) throws -> [String: [[String]]] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            var result: [String: [[String]]] = [:]
            let tables = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_molt\\_%' ESCAPE '\\'")
            for table in tables {
                var rows: [[String]] = []
                let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM \"\(table)\" ORDER BY 1, 2")
                while let row = try cursor.next() {
                    rows.append(
                        try (0..<row.count).map { index in
                            switch (row[index] as DatabaseValue).storage {
                            case .null: "null"
                            case .int64(let integer): "integer \(integer)"
                            case .double(let real): "real \(real.bitPattern)"
                            case .string:
                                try row.withUnsafeData(atIndex: index) {
                                    "text \(($0 ?? Data()).base64EncodedString())"
                                }
                            case .blob(let data): "blob \(data.base64EncodedString())"
                            }
                        })
                }
                result[table] = rows
            }
            return result
        }
    }

    /// Adopts both ways and checks that both wrote the same thing; returns the copy in SQL's report.
    @discardableResult
    static func expectSameStores(_ url: URL, _ adoption: CoreDataAdoption) throws -> AdoptionReport {
        let directory = TemporaryDirectory()
        let (sql, sqlStore) = try adopt(url, with: adoption, inSQL: true, into: directory)
        let (rows, rowStore) = try adopt(url, with: adoption, inSQL: false, into: directory)
        #expect(sql.copy == .sql)
        #expect(rows.copy != .sql)
        #expect(sql.comparison.agrees && rows.comparison.agrees)
        #expect(sql.comparison.description == rows.comparison.description)
        #expect(sql.record.objectCounts == rows.record.objectCounts)
        #expect(sql.record.leftOut == rows.record.leftOut)
        let (a, b) = (try Self.rows(of: sqlStore), try Self.rows(of: rowStore))
        #expect(a.keys.sorted() == b.keys.sorted())
        for table in a.keys.sorted() where a[table] != b[table] {
            Issue.record("table \(table) differs between the copy in SQL and the object-by-object copy")
        }
        return sql
    }

    @Test(
        "Every real store that adopts is copied in SQL, into the same rows as object by object",
        arguments: EveryForeignStoreTests.cases.filter { $0.refusal == nil })
    func realStores(_ item: EveryForeignStoreTests.Case) throws {
        try #require(ForeignStores.isPresent)
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            item.store, to: directory, as: URL(fileURLWithPath: item.store).lastPathComponent)
        try Self.expectSameStores(url, CoreDataAdoption(model: ForeignStores.url(item.model)))
    }

    @Test(
        "Missing external files adopted as null are listed alike by both copies",
        arguments: ["wire/store1-25.wiredatabase", "wire/store2-6.wiredatabase"])
    func missingExternalFiles(_ path: String) throws {
        try #require(ForeignStores.isPresent)
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(path, to: directory, as: URL(fileURLWithPath: path).lastPathComponent)
        var adoption = CoreDataAdoption(model: ForeignStores.url("wire/model/zmessaging.xcdatamodeld"))
        adoption.missingExternalData = .adoptedAsNull
        let report = try Self.expectSameStores(url, adoption)
        #expect(report.record.leftOut.contains { $0.contains("external-storage file was missing") })
    }

    static let swiftData = CoreDataAdoption(
        describedBy: .schemas([SwiftDataAdoptionTests.v1], externalStorage: ["Trip.photo"]))

    @Test("Dates, decimals, inline and external photos, 32-bit integers and links: the same rows both ways")
    func everyKindOfValue() throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory)
        try SwiftDataStore.execute(url, "UPDATE ZTRIP SET ZBUDGET = 7 WHERE Z_PK = 3")  // a decimal stored as integer
        try Self.expectSameStores(url, Self.swiftData)
    }

    @Test("Texts with a NUL and beyond ASCII are copied byte for byte both ways, proved")
    func exactTexts() throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory)
        // 'Ky' NUL 'oto', and 'Belém Rooms' NUL '😀': UTF-8 that GRDB's `String` would cut at the NUL.
        try SwiftDataStore.execute(url, "UPDATE ZTRIP SET ZNAME = CAST(x'4B79006F746F' AS TEXT) WHERE Z_PK = 2")
        try SwiftDataStore.execute(
            url, "UPDATE ZSTAY SET ZHOTEL = ZHOTEL || CAST(x'00F09F9880' AS TEXT) WHERE Z_PK = 2")
        let directoryOut = TemporaryDirectory()
        let (sql, store) = try Self.adopt(url, with: Self.swiftData, inSQL: true, into: directoryOut)
        #expect(sql.copy == .sql)
        try Self.expectSameStores(url, Self.swiftData)
        let queue = try DatabaseQueue(path: store.path)
        defer { try? queue.close() }
        let (name, hotel) = try queue.read { db in
            (
                try String.fetchOne(db, sql: #"SELECT hex("name") FROM "Trip" WHERE "_id" = 2"#),
                try String.fetchOne(db, sql: #"SELECT hex("hotel") FROM "Stay" WHERE "_id" = 2"#)
            )
        }
        #expect(name == "4B79006F746F")
        #expect(hotel == "42656CC3A96D20526F6F6D7300F09F9880")
    }

    /// A change that makes one value of the SwiftData store unadoptable, and what its refusal names.
    struct Damage: CustomTestStringConvertible, Sendable {
        var sql: String
        var names: [String]
        var removesPhoto = false
        var testDescription: String { sql }
    }

    static let damages: [Damage] = [
        Damage(sql: "UPDATE ZTRIP SET ZNAME = x'FF00' WHERE Z_PK = 2", names: ["Object 2", "'Trip'", "'name'"]),
        // A text (not a blob) whose bytes are not UTF-8: no Molt string holds it, and GRDB's would replace them.
        Damage(
            sql: "UPDATE ZTRIP SET ZNAME = CAST(x'4B79FF746F' AS TEXT) WHERE Z_PK = 2",
            names: ["Object 2", "'Trip'", "'name'", "not UTF-8"]),
        Damage(
            sql: "UPDATE ZSTAY SET ZHOTEL = CAST(x'416C66616D6100C3' AS TEXT) WHERE Z_PK = 1",
            names: ["Object 1", "'Stay'", "'hotel'", "not UTF-8"]),
        Damage(sql: "UPDATE ZTRIP SET ZSTART = 'soon' WHERE Z_PK = 3", names: ["Object 3", "'Trip'", "'start'"]),
        Damage(sql: "UPDATE ZTRIP SET ZBUDGET = 'lots' WHERE Z_PK = 1", names: ["Object 1", "'Trip'", "'budget'"]),
        Damage(sql: "UPDATE ZTRIP SET ZNAME = NULL WHERE Z_PK = 1", names: ["Trip", "name"]),
        Damage(sql: "UPDATE ZSTAY SET ZNIGHTS = 3000000000 WHERE Z_PK = 2", names: ["Stay", "nights"]),
        Damage(sql: "UPDATE ZSTAY SET ZNIGHTS = 2.5 WHERE Z_PK = 2", names: ["Object 2", "'Stay'", "'nights'"]),
        Damage(sql: "UPDATE ZSTAY SET ZTRIP = 9 WHERE Z_PK = 3", names: ["'Stay' _id 3", "'trip'", "_id 9"]),
        Damage(sql: "UPDATE ZSTAY SET ZTRIP = 'x' WHERE Z_PK = 3", names: ["Object 3", "'Stay'", "'trip'"]),
        Damage(sql: "SELECT 1", names: ["_EXTERNAL_DATA", "'Trip.photo' of object 2"], removesPhoto: true),
    ]

    @Test("Each refusal is the object-by-object copy's, naming the object and the value", arguments: damages)
    func refusals(_ damage: Damage) throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory)
        try SwiftDataStore.execute(url, damage.sql)
        if damage.removesPhoto {
            try FileManager.default.removeItem(at: directory.url.appendingPathComponent(".default_SUPPORT"))
        }
        let before = ForeignStores.bytes(of: url)
        var messages: [String] = []
        for inSQL in [true, false] {
            let error = try #require(throws: MoltError.self) {
                try Self.adopt(url, with: Self.swiftData, inSQL: inSQL, into: TemporaryDirectory())
            }
            messages.append("\(error.code): \(error.message)")
            for name in damage.names { #expect(error.message.contains(name), "\(error.message)") }
        }
        #expect(messages[0] == messages[1])
        #expect(ForeignStores.bytes(of: url) == before)
    }
}
