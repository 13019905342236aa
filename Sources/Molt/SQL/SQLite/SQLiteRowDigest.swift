import Foundation
import GRDB
import GRDBSQLite

/// The two SQL aggregates the proof of a bulk copy (``RowCopy``, ``SQLiteRowCopy``) runs over each side, one scan
/// each:
///
/// - `molt_copy_stored(v1, v2, …)`: the digest of the new store's rows as stored, each value by its storage class
///   and exact bits (an integer and a real of the same value differ, a text and a blob of the same bytes differ,
///   texts compare byte for byte);
/// - `molt_copy_source(kinds, v1, v2, …)`: the digest of the source's rows, each value first checked against its
///   meaning (`kinds`, one ``Kind`` character per value) and converted in Swift into what Molt stores,
///   independently of the SQL expression that copied it. A value the copy would not convert exactly (the wrong
///   storage class, a text that is not UTF-8, an integer out of its width, a missing required value) makes the row
///   *unfit*: the digest then names the first such row and value, and the copy is refused.
///
/// A digest is the number of rows and two sums of 64-bit hashes of each row (its key included), so that it does not
/// depend on the order rows are read in; two sides agree when the three are equal.
enum SQLiteRowDigest {
    static let stored = "molt_copy_stored"
    static let source = "molt_copy_source"

    /// What a source value must be, and how it becomes Molt's stored value. Each is one character of `kinds`;
    /// ``required`` (`!`) before one makes a null unfit.
    enum Kind: Character, CaseIterable {
        /// A key: an integer, never null (`Z_PK`, a join table's columns).
        case key = "k"
        /// A to-one link: null or an integer key.
        case link = "l"
        /// Any value, taken as it is (the entity name of a hierarchy's rows).
        case any = "v"
        /// A text whose bytes are UTF-8.
        case string = "s"
        /// A Boolean: the integer 0 or 1.
        case bool = "b"
        /// Integers of 64, 32 and 16 bits.
        case int64 = "i", int32 = "w", int16 = "h"
        /// A double: an integer or a real, stored as a real.
        case double = "d"
        /// A float: as a double, one that a `Float` holds exactly.
        case float = "f"
        /// Seconds since 2001 (integer or real), stored as a date: seconds since 1970 in a real.
        case secondsSince2001 = "t"
        /// A UUID: a blob of 16 bytes, stored as its upper-case text.
        case uuid = "u"
        /// A blob, stored as it is.
        case blob = "y"
        /// Two values, the stored one and its conversion (``RowCopy/Meaning/converted(_:from:)``): an integer, a
        /// real, or an ASCII text without a NUL.
        case convertedNumberOrText = "D"
        /// Two values, as ``convertedNumberOrText``: a blob.
        case convertedBytes = "X"

        /// Written before a kind whose null is unfit (a required attribute, or one with a default, which a null
        /// would not get in SQL).
        static let required: Character = "!"

        /// How many of the aggregate's values a column of this kind takes.
        var arity: Int { self == .convertedNumberOrText || self == .convertedBytes ? 2 : 1 }

        /// The kind of each ASCII byte, read once per value of every row.
        fileprivate static let byByte: [Kind?] = (0..<128).map { byte in
            allCases.first { $0.rawValue.asciiValue == UInt8(byte) }
        }
    }

    /// The `kinds` argument of `molt_copy_source` for columns of `kinds`, each required or not.
    static func kinds(_ columns: [(kind: Kind, required: Bool)]) -> String {
        String(columns.flatMap { $0.required ? [Kind.required, $0.kind.rawValue] : [$0.kind.rawValue] })
    }

    /// The digest of one side.
    struct Result: Sendable {
        var count: Int64 = 0
        var sum1: UInt64 = 0
        var sum2: UInt64 = 0
        /// The first unfit row's key, and the index of its unfit column in `kinds` (from 0), if any.
        var unfit: (key: Int64, column: Int)? = nil

        /// Whether both sides hold the same rows.
        func agrees(with other: Result) -> Bool { (count, sum1, sum2) == (other.count, other.sum1, other.sum2) }
    }

    /// Registers both aggregates on `db`.
    static func register(in db: Database) {
        guard let handle = db.sqliteConnection else { return }
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(handle, stored, -1, flags, nil, nil, storedStep, final, nil)
        sqlite3_create_function_v2(handle, source, -1, flags, nil, nil, sourceStep, final, nil)
    }

    /// Runs `sql`, a `SELECT` of one of the aggregates, and reads its digest.
    static func fetch(_ db: Database, sql: String) throws -> Result {
        // An aggregate always gives one row: anything else is never taken for an empty side, which would agree
        // with another.
        guard let data = try Data.fetchOne(db, sql: sql), data.count == MemoryLayout<State>.size else {
            throw MoltError(
                .validationFailed,
                "The proof of a bulk copy read no digest from `\(sql.prefix(80))…`, so nothing was written and the store was left as it was. This is a defect of Molt: report it with this message."
            )
        }
        let state = data.withUnsafeBytes { $0.loadUnaligned(as: State.self) }
        return Result(
            count: state.count, sum1: state.sum1, sum2: state.sum2,
            unfit: state.unfitColumn > 0 ? (state.unfitKey, Int(state.unfitColumn - 1)) : nil)
    }

    /// An aggregate's running state, in SQLite's aggregate context (zeroed at the first row).
    private struct State {
        var count: Int64
        var sum1: UInt64
        var sum2: UInt64
        var unfitKey: Int64
        /// The unfit column's index plus one; 0 while every row fits.
        var unfitColumn: Int64

        mutating func add(_ row: SQLiteRowHash) {
            count += 1
            sum1 &+= row.final1
            sum2 &+= row.final2
        }
    }

    private static let storedStep:
        @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) ->
            Void = { context, count, values in
                guard let state = SQLiteRowDigest.state(context), let values else { return }
                var row = SQLiteRowHash()
                for index in 0..<Int(count) { row.add(values[index]) }
                state.pointee.add(row)
            }

    private static let sourceStep:
        @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) ->
            Void = { context, count, values in
                guard let state = SQLiteRowDigest.state(context), let values, count > 0,
                    state.pointee.unfitColumn == 0, let kinds = sqlite3_value_text(values[0])
                else { return }
                let kindCount = Int(sqlite3_value_bytes(values[0]))
                var row = SQLiteRowHash()
                var argument = 1, column = 0, position = 0, key: Int64 = 0
                while position < kindCount {
                    let required = kinds[position] == UInt8(ascii: "!")
                    if required { position += 1 }
                    let byte = position < kindCount ? kinds[position] : 0
                    position += 1
                    guard byte < 128, let kind = Kind.byByte[Int(byte)], argument + kind.arity <= Int(count) else {
                        sqlite3_result_error(context, "\(source): bad kinds", -1)
                        return
                    }
                    if column == 0 { key = sqlite3_value_int64(values[argument]) }
                    let converted = kind.arity == 2 ? values[argument + 1] : nil
                    if !SQLiteRowDigest.add(values[argument], as: kind, required: required, converted, to: &row) {
                        state.pointee.unfitKey = key
                        state.pointee.unfitColumn = Int64(column + 1)
                        return
                    }
                    argument += kind.arity
                    column += 1
                }
                state.pointee.add(row)
            }

    private static let final: @convention(c) (OpaquePointer?) -> Void = { context in
        var state = State(count: 0, sum1: 0, sum2: 0, unfitKey: 0, unfitColumn: 0)
        if let pointer = sqlite3_aggregate_context(context, 0) {
            state = pointer.assumingMemoryBound(to: State.self).pointee
        }
        withUnsafeBytes(of: &state) { bytes in
            sqlite3_result_blob(context, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
        }
    }

    private static func state(_ context: OpaquePointer?) -> UnsafeMutablePointer<State>? {
        sqlite3_aggregate_context(context, Int32(MemoryLayout<State>.size))?.assumingMemoryBound(to: State.self)
    }

    /// Checks one source value against `kind` and adds what Molt stores of it to `row`; false when it is unfit.
    private static func add(
        _ value: OpaquePointer?, as kind: Kind, required: Bool, _ converted: OpaquePointer?, to row: inout SQLiteRowHash
    ) -> Bool {
        let type = sqlite3_value_type(value)
        if type == SQLITE_NULL {
            guard !required, kind != .key else { return false }
            row.add(converted ?? value)  // a conversion of null is null
            return true
        }
        switch kind {
        case .key, .link:
            guard type == SQLITE_INTEGER else { return false }
            row.add(value)
        case .any:
            row.add(value)
        case .string:
            guard type == SQLITE_TEXT, let bytes = text(value), isUTF8(bytes) else { return false }
            row.add(value)
        case .bool:
            guard type == SQLITE_INTEGER, (0...1).contains(sqlite3_value_int64(value)) else { return false }
            row.add(value)
        case .int64, .int32, .int16:
            guard type == SQLITE_INTEGER else { return false }
            let integer = sqlite3_value_int64(value)
            if kind == .int32, Int32(exactly: integer) == nil { return false }
            if kind == .int16, Int16(exactly: integer) == nil { return false }
            row.add(value)
        case .double, .float, .secondsSince2001:
            guard type == SQLITE_INTEGER || type == SQLITE_FLOAT else { return false }
            // As SQLite's `CAST(x AS REAL)` and `x + 978307200.0` convert an integer: to the nearest double.
            let number = sqlite3_value_double(value)
            if kind == .float, Float(exactly: number) == nil, !number.isNaN { return false }
            row.addReal(kind == .secondsSince2001 ? number + 978_307_200.0 : number)
        case .uuid:
            guard type == SQLITE_BLOB, sqlite3_value_bytes(value) == 16, let bytes = sqlite3_value_blob(value)
            else { return false }
            row.addUUIDText(UnsafeRawBufferPointer(start: bytes, count: 16))
        case .blob:
            guard type == SQLITE_BLOB else { return false }
            row.add(value)
        case .convertedNumberOrText:
            if type == SQLITE_TEXT {
                guard let bytes = text(value), bytes.allSatisfy({ (1...127).contains($0) }) else { return false }
            } else if type != SQLITE_INTEGER && type != SQLITE_FLOAT {
                return false
            }
            row.add(converted)
        case .convertedBytes:
            guard type == SQLITE_BLOB else { return false }
            row.add(converted)
        }
        return true
    }

    /// A text value's bytes.
    private static func text(_ value: OpaquePointer?) -> UnsafeRawBufferPointer? {
        guard let start = sqlite3_value_text(value) else { return nil }
        return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_value_bytes(value)))
    }

    /// Whether `bytes` are UTF-8 (a NUL is UTF-8), as Swift's decoder says.
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        // ASCII eight bytes at a time, then Swift's decoder from the first byte that is not.
        while index + 8 <= bytes.count,
            bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
        {
            index += 8
        }
        var decoder = UTF8()
        var iterator = bytes[index...].makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
