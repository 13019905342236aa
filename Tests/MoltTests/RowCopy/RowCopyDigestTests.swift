import Foundation
import GRDB
@testable import Molt
import Testing

/// The proof of a bulk copy (``RowCopy``) reads each source value twice: the copy converts it with the SQL of its
/// meaning, the proof's scan checks it against its meaning and converts it in Swift. For each meaning, a value that
/// fits gives the same stored value both ways (and the one Molt stores), and a value that does not fit is named by
/// the scan (which makes the copy unfit).
@Suite("Bulk copy: the proof's checks and conversions of each meaning")
struct RowCopyDigestTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var meaning: RowCopy.Meaning
        var required = false
        /// The value as the source stored it (SQL).
        var stored: String
        /// What Molt stores (SQL), or nil when the value does not fit.
        var molt: String?
        var testDescription: String { "\(meaning) \(stored)\(molt == nil ? " (unfit)" : "")" }
    }

    static let cases: [Case] = [
        Case(meaning: .secondsSince2001, stored: "1.5", molt: "978307201.5"),
        Case(meaning: .secondsSince2001, stored: "7", molt: "978307207.0"),
        Case(meaning: .secondsSince2001, stored: "-978307200.25", molt: "-0.25"),
        Case(meaning: .secondsSince2001, stored: "'soon'", molt: nil),
        Case(meaning: .double, stored: "3", molt: "3.0"),
        Case(meaning: .double, stored: "9007199254740993", molt: "9007199254740992.0"),
        Case(meaning: .double, stored: "x'00'", molt: nil),
        Case(meaning: .float, stored: "0.5", molt: "0.5"),
        Case(meaning: .float, stored: "0.1", molt: nil),
        Case(meaning: .int16, stored: "-32768", molt: "-32768"),
        Case(meaning: .int16, stored: "40000", molt: nil),
        Case(meaning: .int32, stored: "3000000000", molt: nil),
        Case(meaning: .int64, stored: "9223372036854775807", molt: "9223372036854775807"),
        Case(meaning: .int64, stored: "2.0", molt: nil),
        Case(meaning: .int64, stored: "'12'", molt: nil),
        Case(meaning: .bool, stored: "1", molt: "1"),
        Case(meaning: .bool, stored: "2", molt: nil),
        Case(
            meaning: .uuidBytes, stored: "x'00112233445566778899AABBCCDDEEFF'",
            molt: "'00112233-4455-6677-8899-AABBCCDDEEFF'"),
        Case(meaning: .uuidBytes, stored: "x'0011'", molt: nil),
        Case(meaning: .text, stored: "'Belém 😀'", molt: "'Belém 😀'"),
        Case(meaning: .text, stored: "'a' || char(0) || 'b'", molt: "'a' || char(0) || 'b'"),
        Case(meaning: .text, stored: "CAST(x'41FF' AS TEXT)", molt: nil),
        // A lone lead byte followed by ASCII, which SQLite's `length` counts as one character.
        Case(meaning: .text, stored: "CAST(x'41C341' AS TEXT)", molt: nil),
        Case(meaning: .text, stored: "x'41'", molt: nil),
        Case(meaning: .text, stored: "NULL", molt: "NULL"),
        Case(meaning: .text, required: true, stored: "NULL", molt: nil),
        Case(meaning: .text, stored: "'https://example.com/a'", molt: "'https://example.com/a'"),
        Case(meaning: .bytes, stored: "x'0001FF'", molt: "x'0001FF'"),
        Case(meaning: .bytes, stored: "zeroblob(0)", molt: "zeroblob(0)"),
        Case(meaning: .bytes, stored: "'text'", molt: nil),
    ]

    @Test(
        "A value that fits converts to what Molt stores, in SQL and in Swift alike; one that does not is named",
        arguments: cases)
    func conversion(_ item: Case) throws {
        let (expression, kind) = SQLiteRowCopy.expression(item.meaning, "c.ZVALUE", key: "c.Z_PK")
        let queue = try DatabaseQueue()
        try queue.write { db in
            SQLiteRowDigest.register(in: db)
            // No declared type: each value keeps the storage class it was written with.
            try db.execute(sql: "CREATE TABLE c (Z_PK INTEGER PRIMARY KEY, ZVALUE)")
            try db.execute(sql: "INSERT INTO c VALUES (1, \(item.stored))")
            let kinds = SQLiteRowDigest.kinds([(.key, true), (kind, item.required)])
            let scanned = try SQLiteRowDigest.fetch(
                db, sql: "SELECT \(SQLiteRowDigest.source)('\(kinds)', c.Z_PK, c.ZVALUE) FROM c AS c")
            guard let molt = item.molt else {
                #expect(scanned.unfit?.key == 1)
                #expect(scanned.unfit?.column == 1)
                return
            }
            #expect(scanned.unfit == nil)
            let copied = try SQLiteRowDigest.fetch(
                db, sql: "SELECT \(SQLiteRowDigest.stored)(c.Z_PK, \(expression)) FROM c AS c")
            let expected = try SQLiteRowDigest.fetch(db, sql: "SELECT \(SQLiteRowDigest.stored)(1, \(molt))")
            #expect(scanned.count == 1)
            #expect(scanned.agrees(with: expected), "the proof's conversion in Swift")
            #expect(copied.agrees(with: expected), "the copy's conversion in SQL")
        }
    }

    static let converted: [Case] = [
        Case(meaning: .converted(0, from: .numberOrASCIIText), stored: "'12.50'", molt: "'12.5'"),
        Case(meaning: .converted(0, from: .numberOrASCIIText), stored: "3", molt: "'3'"),
        Case(meaning: .converted(0, from: .numberOrASCIIText), stored: "'1' || char(0)", molt: nil),
        Case(meaning: .converted(0, from: .numberOrASCIIText), stored: "x'31'", molt: nil),
        Case(meaning: .converted(0, from: .bytes), stored: "x'0102'", molt: "'0102'"),
        Case(meaning: .converted(0, from: .bytes), stored: "'text'", molt: nil),
        Case(meaning: .converted(0, from: .bytes), stored: "NULL", molt: "NULL"),
    ]

    /// A conversion in Swift: a number or text to a decimal, bytes to their hexadecimal digits. SQL calls it on
    /// every value, fit or not (the scan then ignores what it returns for one that does not fit): it must not trap.
    static let conversion = RowCopy.Conversion { _, stored in
        switch stored {
        case .int(let integer): return .decimal(Decimal(integer))
        case .string(let text): return Decimal(string: text).map(Value.decimal) ?? .null
        case .data(let data): return .string(data.map { String(format: "%02X", $0) }.joined())
        default: return .null
        }
    }

    @Test(
        "A converted value is stored as its conversion returns it, in the copy and the proof alike",
        arguments: converted)
    func convertedValue(_ item: Case) throws {
        let (expression, kind) = SQLiteRowCopy.expression(item.meaning, "c.ZVALUE", key: "c.Z_PK")
        let queue = try DatabaseQueue()
        try queue.write { db in
            SQLiteRowCopy.register([Self.conversion], forProof: true, in: db)
            try db.execute(sql: "CREATE TABLE c (Z_PK INTEGER PRIMARY KEY, ZVALUE)")
            try db.execute(sql: "INSERT INTO c VALUES (1, \(item.stored))")
            let kinds = SQLiteRowDigest.kinds([(.key, true), (kind, item.required)])
            let scanned = try SQLiteRowDigest.fetch(
                db, sql: "SELECT \(SQLiteRowDigest.source)('\(kinds)', c.Z_PK, c.ZVALUE, \(expression)) FROM c AS c")
            guard let molt = item.molt else {
                #expect(scanned.unfit?.column == 1)
                return
            }
            let expected = try SQLiteRowDigest.fetch(db, sql: "SELECT \(SQLiteRowDigest.stored)(1, \(molt))")
            #expect(scanned.unfit == nil)
            #expect(scanned.agrees(with: expected))
        }
    }

    @Test("Rows are counted, and their order does not change the digest; another key or row does")
    func digestOfRows() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            SQLiteRowDigest.register(in: db)
            try db.execute(sql: "CREATE TABLE t (k INTEGER PRIMARY KEY, v)")
            try db.execute(sql: "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)")
            let digest = { (sql: String) in try SQLiteRowDigest.fetch(db, sql: sql) }
            let forward = try digest("SELECT \(SQLiteRowDigest.stored)(k, v) FROM (SELECT * FROM t ORDER BY k)")
            let backward = try digest(
                "SELECT \(SQLiteRowDigest.stored)(k, v) FROM (SELECT * FROM t ORDER BY k DESC)")
            let swapped = try digest("SELECT \(SQLiteRowDigest.stored)(4 - k, v) FROM t")
            let fewer = try digest("SELECT \(SQLiteRowDigest.stored)(k, v) FROM t WHERE k < 3")
            let none = try digest("SELECT \(SQLiteRowDigest.stored)(k, v) FROM t WHERE k > 9")
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
            SQLiteRowDigest.register(in: db)
            let digest = { (value: String) in
                try SQLiteRowDigest.fetch(db, sql: "SELECT \(SQLiteRowDigest.stored)(1, \(value))")
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
