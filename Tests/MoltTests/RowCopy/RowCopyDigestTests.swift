import Foundation
import GRDB
import Molt
@testable import MoltAdoption
import Testing

/// The proof of a copy in SQL reads each original value twice: the copy converts it with an SQL expression, the
/// proof's scan checks it against its attribute's kind and converts it in Swift. For each Core Data type, a value
/// that fits gives the same stored value both ways (and the one Molt stores), and a value that does not fit is
/// named by the scan (which sends the adoption to the object-by-object path).
@Suite("Adoption copied in SQL: the proof's checks and conversions of each Core Data type")
struct SQLCopyDigestTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var coreDataType: String
        var type: AttributeType
        var isOptional = true
        /// The value as Core Data stored it (SQL).
        var stored: String
        /// What Molt stores (SQL), or nil when the value does not fit.
        var molt: String?
        var testDescription: String { "\(coreDataType) \(stored)\(molt == nil ? " (unfit)" : "")" }
    }

    static let cases: [Case] = [
        Case(coreDataType: "Date", type: .date, stored: "1.5", molt: "978307201.5"),
        Case(coreDataType: "Date", type: .date, stored: "7", molt: "978307207.0"),
        Case(coreDataType: "Date", type: .date, stored: "-978307200.25", molt: "-0.25"),
        Case(coreDataType: "Date", type: .date, stored: "'soon'", molt: nil),
        Case(coreDataType: "Double", type: .double, stored: "3", molt: "3.0"),
        Case(coreDataType: "Double", type: .double, stored: "9007199254740993", molt: "9007199254740992.0"),
        Case(coreDataType: "Double", type: .double, stored: "x'00'", molt: nil),
        Case(coreDataType: "Float", type: .float, stored: "0.5", molt: "0.5"),
        Case(coreDataType: "Float", type: .float, stored: "0.1", molt: nil),
        Case(coreDataType: "Integer 16", type: .int16, stored: "-32768", molt: "-32768"),
        Case(coreDataType: "Integer 16", type: .int16, stored: "40000", molt: nil),
        Case(coreDataType: "Integer 32", type: .int32, stored: "3000000000", molt: nil),
        Case(coreDataType: "Integer 64", type: .int, stored: "9223372036854775807", molt: "9223372036854775807"),
        Case(coreDataType: "Integer 64", type: .int, stored: "2.0", molt: nil),
        Case(coreDataType: "Integer 64", type: .int, stored: "'12'", molt: nil),
        Case(coreDataType: "Boolean", type: .bool, stored: "1", molt: "1"),
        Case(coreDataType: "Boolean", type: .bool, stored: "2", molt: nil),
        Case(
            coreDataType: "UUID", type: .uuid, stored: "x'00112233445566778899AABBCCDDEEFF'",
            molt: "'00112233-4455-6677-8899-AABBCCDDEEFF'"),
        Case(coreDataType: "UUID", type: .uuid, stored: "x'0011'", molt: nil),
        Case(coreDataType: "String", type: .string, stored: "'Belém 😀'", molt: "'Belém 😀'"),
        Case(coreDataType: "String", type: .string, stored: "'a' || char(0) || 'b'", molt: "'a' || char(0) || 'b'"),
        Case(coreDataType: "String", type: .string, stored: "CAST(x'41FF' AS TEXT)", molt: nil),
        // A lone lead byte followed by ASCII, which SQLite's `length` counts as one character.
        Case(coreDataType: "String", type: .string, stored: "CAST(x'41C341' AS TEXT)", molt: nil),
        Case(coreDataType: "String", type: .string, stored: "x'41'", molt: nil),
        Case(coreDataType: "String", type: .string, stored: "NULL", molt: "NULL"),
        Case(coreDataType: "String", type: .string, isOptional: false, stored: "NULL", molt: nil),
        Case(coreDataType: "URI", type: .string, stored: "'https://example.com/a'", molt: "'https://example.com/a'"),
        Case(coreDataType: "Binary", type: .data, stored: "x'0001FF'", molt: "x'0001FF'"),
        Case(coreDataType: "Binary", type: .data, stored: "zeroblob(0)", molt: "zeroblob(0)"),
        Case(coreDataType: "Transformable", type: .data, stored: "'text'", molt: nil),
    ]

    @Test(
        "A value that fits converts to what Molt stores, in SQL and in Swift alike; one that does not is named",
        arguments: cases)
    func conversion(_ item: Case) throws {
        let column = CoreDataStoreLayout.AttributeColumn(
            name: "value", coreDataType: item.coreDataType, column: "ZVALUE", allowsExternalStorage: false)
        let value = try #require(
            CoreDataSQLValue.conversion(
                of: column, as: Attribute("value", item.type, isOptional: item.isOptional), x: "c.ZVALUE",
                key: "c.Z_PK", slot: 0))
        let queue = try DatabaseQueue()
        try queue.write { db in
            CoreDataSQLDigest.register(in: db)
            // No declared type: each value keeps the storage class it was written with, as in a Core Data column.
            try db.execute(sql: "CREATE TABLE c (Z_PK INTEGER PRIMARY KEY, ZVALUE)")
            try db.execute(sql: "INSERT INTO c VALUES (1, \(item.stored))")
            let kinds = CoreDataSQLDigest.kinds([(.key, true), (value.kind, value.required)])
            let scanned = try CoreDataSQLDigest.fetch(
                db,
                sql:
                    "SELECT \(CoreDataSQLDigest.source)('\(kinds)', c.Z_PK, \(value.arguments.joined(separator: ", "))) FROM c AS c"
            )
            guard let molt = item.molt else {
                #expect(scanned.unfit?.key == 1)
                #expect(scanned.unfit?.column == 1)
                return
            }
            #expect(scanned.unfit == nil)
            let copied = try CoreDataSQLDigest.fetch(
                db, sql: "SELECT \(CoreDataSQLDigest.stored)(c.Z_PK, \(value.expression)) FROM c AS c")
            let expected = try CoreDataSQLDigest.fetch(
                db, sql: "SELECT \(CoreDataSQLDigest.stored)(1, \(molt))")
            #expect(scanned.count == 1)
            #expect(scanned.agrees(with: expected), "the proof's conversion in Swift")
            #expect(copied.agrees(with: expected), "the copy's conversion in SQL")
        }
    }

    @Test("Rows are counted, and their order does not change the digest; another key or row does")
    func digestOfRows() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            CoreDataSQLDigest.register(in: db)
            try db.execute(sql: "CREATE TABLE t (k INTEGER PRIMARY KEY, v)")
            try db.execute(sql: "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)")
            let digest = { (sql: String) in try CoreDataSQLDigest.fetch(db, sql: sql) }
            let forward = try digest("SELECT \(CoreDataSQLDigest.stored)(k, v) FROM (SELECT * FROM t ORDER BY k)")
            let backward = try digest(
                "SELECT \(CoreDataSQLDigest.stored)(k, v) FROM (SELECT * FROM t ORDER BY k DESC)")
            let swapped = try digest("SELECT \(CoreDataSQLDigest.stored)(4 - k, v) FROM t")
            let fewer = try digest("SELECT \(CoreDataSQLDigest.stored)(k, v) FROM t WHERE k < 3")
            let none = try digest("SELECT \(CoreDataSQLDigest.stored)(k, v) FROM t WHERE k > 9")
            #expect(forward.count == 3)
            #expect(forward.agrees(with: backward))
            #expect(!forward.agrees(with: swapped))
            #expect(!forward.agrees(with: fewer))
            #expect(none.count == 0 && !none.agrees(with: fewer))
        }
    }

    @Test(
        "A large value differing in one byte, at its start, middle or end, has another digest",
        arguments: [0, 37, 500, 990, 999])
    func largeValues(_ position: Int) throws {
        let queue = try DatabaseQueue()
        try queue.read { db in
            CoreDataSQLDigest.register(in: db)
            let digest = { (value: String) in
                try CoreDataSQLDigest.fetch(db, sql: "SELECT \(CoreDataSQLDigest.stored)(1, \(value))")
            }
            let zeros = try digest("zeroblob(1000)")
            let changed = try digest(
                "CAST(zeroblob(\(position)) || x'01' || zeroblob(\(999 - position)) AS BLOB)")
            let same = try digest("CAST(zeroblob(\(position)) || x'00' || zeroblob(\(999 - position)) AS BLOB)")
            #expect(zeros.agrees(with: same))
            #expect(!zeros.agrees(with: changed))
        }
    }
}
