import Foundation
import GRDB
import GRDBSQLite

/// Swift functions and collations registered on every connection Molt opens, so that SQL statements convert values with
/// ``ValueConversion``'s rules rather than SQLite's own (`CAST` keeps 15 digits of a double; `strftime` keeps
/// milliseconds of a date).
enum SQLiteFunctions {
    /// `molt_double_text(x)`: the text of a double that reads back as the same double.
    static let doubleText = "molt_double_text"
    /// `molt_date_text(x)`: the ISO 8601 text of a date (seconds since 1970) that reads back as the same date.
    static let dateText = "molt_date_text"

    /// `molt_float_inexact(x)`: 1 for a number that a `Float` does not hold exactly, 0 otherwise (null too).
    static let floatInexact = "molt_float_inexact"

    private static let functions: [DatabaseFunction] = [
        DatabaseFunction(floatInexact, argumentCount: 1, pure: true) { values in
            number(values[0]).map { Float(exactly: $0) == nil && !$0.isNaN ? 1 : 0 } ?? 0
        },
        DatabaseFunction(doubleText, argumentCount: 1, pure: true) { values in
            number(values[0]).map { ValueConversion.text(double: $0) }
        },
        DatabaseFunction(dateText, argumentCount: 1, pure: true) { values in
            number(values[0]).map { ValueConversion.text(dateSince1970: $0) }
        },
    ]

    private static func number(_ value: DatabaseValue) -> Double? {
        switch value.storage {
        case .double(let d): return d
        case .int64(let i): return Double(i)
        default: return nil
        }
    }

    /// Adds the functions to a connection.
    static func register(in db: Database) {
        for function in functions { db.add(function: function) }
        db.add(collation: decimalCollation)
    }

    /// Adds the `molt_decimal` collation to a connection GRDB does not manage (the query checker's scratch
    /// database), which must know it to create a decimal column.
    static func addDecimalCollation(to handle: OpaquePointer) {
        sqlite3_create_collation_v2(
            handle, DecimalText.collationName, SQLITE_UTF8, nil,
            { _, count1, bytes1, count2, bytes2 in
                let a = String(decoding: UnsafeRawBufferPointer(start: bytes1, count: Int(count1)), as: UTF8.self)
                let b = String(decoding: UnsafeRawBufferPointer(start: bytes2, count: Int(count2)), as: UTF8.self)
                switch DecimalText.compare(a, b) {
                case .orderedAscending: return -1
                case .orderedSame: return 0
                case .orderedDescending: return 1
                }
            }, nil)
    }

    /// `molt_decimal`: decimal texts in the order of their values (``DecimalText/compare(_:_:)``), the collation
    /// of every decimal column.
    private static let decimalCollation = DatabaseCollation(DecimalText.collationName) { DecimalText.compare($0, $1) }
}
