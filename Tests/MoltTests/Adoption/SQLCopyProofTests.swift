import Foundation
import GRDB
@testable import Molt
@testable import MoltAdoption
import Testing

/// The proof of an adoption copied in SQL compares every value exactly: a value of another storage class, or of
/// other bytes, makes another digest even where SQLite's `IS NOT`, a column's affinity or its collation takes the
/// two as equal; the adoption is then refused and the original left as it was.
@Suite("Adoption copied in SQL: the proof compares storage classes and bytes")
struct SQLCopyProofTests {
    /// Two values, and whether they differ.
    struct Pair: CustomTestStringConvertible, Sendable {
        var a: String
        var b: String
        var differ: Bool
        /// Whether SQLite's `IS NOT` alone, on a column of collation `NOCASE`, sees them differ.
        var isNotSees: Bool
        var testDescription: String { "\(a) vs \(b)" }
    }

    static let pairs: [Pair] = [
        Pair(a: "1", b: "1.0", differ: true, isNotSees: false),
        Pair(a: "'x'", b: "x'78'", differ: true, isNotSees: true),
        Pair(a: "x'78'", b: "'x'", differ: true, isNotSees: true),
        Pair(a: "'X'", b: "'x'", differ: true, isNotSees: false),
        Pair(a: "'1'", b: "1", differ: true, isNotSees: true),
        Pair(a: "NULL", b: "0", differ: true, isNotSees: true),
        Pair(a: "CAST(x'41FF' AS TEXT)", b: "CAST(x'41FE' AS TEXT)", differ: true, isNotSees: true),
        // NOCASE stops at a NUL.
        Pair(a: "'a' || char(0) || 'b'", b: "'a' || char(0) || 'c'", differ: true, isNotSees: false),
        Pair(a: "NULL", b: "NULL", differ: false, isNotSees: false),
        Pair(a: "1", b: "1", differ: false, isNotSees: false),
        Pair(a: "1.5", b: "1.5", differ: false, isNotSees: false),
        Pair(a: "'Belém'", b: "'Belém'", differ: false, isNotSees: false),
        Pair(a: "x'00FF'", b: "x'00FF'", differ: false, isNotSees: false),
    ]

    @Test("Values of another storage class or other bytes have other digests; equal values do not", arguments: pairs)
    func comparison(_ pair: Pair) throws {
        let queue = try DatabaseQueue()
        let (a, b, isNot) = try queue.write { db in
            SQLiteRowDigest.register(in: db)
            // No type: each value keeps its storage class; NOCASE: a collation that takes 'X' for 'x'.
            try db.execute(sql: "CREATE TABLE t (k INTEGER PRIMARY KEY, a COLLATE NOCASE, b)")
            try db.execute(sql: "INSERT INTO t VALUES (1, \(pair.a), \(pair.b))")
            let digest = { (column: String) in
                try SQLiteRowDigest.fetch(db, sql: "SELECT \(SQLiteRowDigest.stored)(k, \(column)) FROM t")
            }
            return (try digest("a"), try digest("b"), try Bool.fetchOne(db, sql: "SELECT a IS NOT b FROM t"))
        }
        #expect(a.count == 1 && b.count == 1)
        #expect(a.agrees(with: b) == !pair.differ)
        #expect(isNot == pair.isNotSees)
    }

    /// A change made to the new store after the copy and before its proof.
    struct Change: CustomTestStringConvertible, Sendable {
        var sql: String
        var entity: String
        var testDescription: String { sql }
    }

    static let changes: [Change] = [
        // Equal by value under the decimal column's collation, which `IS NOT` applies: other text.
        Change(sql: #"UPDATE "Trip" SET "budget" = '99.990' WHERE "_id" = 3"#, entity: "Trip"),
        // The same bytes, as a blob instead of a text.
        Change(sql: #"UPDATE "Trip" SET "name" = CAST("name" AS BLOB) WHERE "_id" = 1"#, entity: "Trip"),
        // A text with one byte that is not UTF-8 more.
        Change(
            sql: #"UPDATE "Stay" SET "hotel" = CAST(CAST("hotel" AS BLOB) || x'FF' AS TEXT) WHERE "_id" = 2"#,
            entity: "Stay"),
        // Another integer.
        Change(sql: #"UPDATE "Stay" SET "nights" = "nights" + 1 WHERE "_id" = 3"#, entity: "Stay"),
    ]

    @Test(
        "A value changed after the copy is refused by the proof, in place, and the original is left as it was",
        arguments: changes)
    func refusesChangedCopy(_ change: Change) throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory)
        let before = ForeignStores.bytes(of: url)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        var adoption = SQLCopyAdoptionTests.swiftData
        adoption.sqlBeforeProof = change.sql
        let error = try #require(throws: MoltError.self) {
            try adoption.adopt(at: .file(url), schema: SwiftDataAdoptionTests.v1, options: Store.Options())
        }
        #expect(error.code == .validationFailed, "\(error.message)")
        #expect(error.message.contains("for '\(change.entity)'"), "\(error.message)")
        #expect(ForeignStores.bytes(of: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == files)
        // Unchanged, the same store adopts in place.
        adoption.sqlBeforeProof = nil
        let report = try #require(
            try adoption.adopt(at: .file(url), schema: SwiftDataAdoptionTests.v1, options: Store.Options()))
        #expect(report.copy == .sql)
        #expect(report.comparison.agrees)
    }
}
