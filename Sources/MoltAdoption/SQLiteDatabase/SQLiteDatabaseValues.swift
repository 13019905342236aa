import Foundation
import GRDB
import Molt

/// The value of a column of another app's SQLite database as a Molt attribute holds it, or a refusal naming the
/// table, the row and the column. Dates may be seconds since 1970 (a number) or text as GRDB writes them
/// (`2024-05-01 12:30:00.000`, UTC) or ISO 8601; UUIDs 16 bytes (GRDB) or their text; decimals text or numbers.
/// A text is read byte for byte (``ExactText``): a NUL and every UTF-8 character are kept, and a text that is not
/// UTF-8 is refused.
enum SQLiteDatabaseValues {
    /// The Molt value of column `index` of `row`, a row of a statement being read: `column` of `table` in the row
    /// whose identity is `id`.
    ///
    /// - Throws: `MoltError` naming table, row and column when the value is not one of `attribute`'s type, or is a
    ///   text whose bytes are not UTF-8 (GRDB's `String` would replace them without a word).
    static func value(
        in row: Row, at index: Int, as attribute: Attribute, table: String, column: String, id: Int64
    ) throws -> Value {
        let place = "\(table).\(column) of the row \(id)"
        guard let stored = try ExactText.value(in: row, at: index) else {
            throw MoltError(
                .invalidValue,
                "\(place) holds a text whose bytes are not UTF-8, which no Molt value of '\(attribute.name)' (\(attribute.type.rawValue)) can hold: reading it as a string would change it. Nothing was adopted and the database was left as it was. Correct the bytes in the database, or keep them as they are: make the column's texts blobs (UPDATE \(table.quotedDatabaseIdentifier) SET \(column.quotedDatabaseIdentifier) = CAST(\(column.quotedDatabaseIdentifier) AS BLOB)) and adopt '\(attribute.name)' as a data attribute.",
                property: attribute.name)
        }
        return try value(stored, as: attribute, at: place)
    }

    static func value(_ stored: DatabaseValue, as attribute: Attribute, at place: String) throws -> Value {
        func refuse(_ what: String) -> MoltError {
            MoltError(
                .invalidValue,
                "\(place) holds \(what), which is not a value of '\(attribute.name)' (\(attribute.type.rawValue)). Nothing was adopted and the database was left as it was. Correct the value, or adopt the column as another type.",
                property: attribute.name)
        }
        // A date, a UUID or a decimal written as text has no NUL, and Foundation's parsers may stop at one.
        if case .string(let v) = stored.storage, attribute.type != .string, v.utf8.contains(0) {
            throw refuse("the text '\(ExactText.quoted(v.prefix(40)))'")
        }
        switch (stored.storage, attribute.type) {
        case (.null, _): return .null
        case (.int64(let v), .int), (.int64(let v), .int16), (.int64(let v), .int32): return .int(v)
        case (.double(let v), .int), (.double(let v), .int16), (.double(let v), .int32):
            guard let integer = Int64(exactly: v) else { throw refuse("the real \(v)") }
            return .int(integer)
        case (.int64(let v), .double), (.int64(let v), .float):
            guard let real = Double(exactly: v) else { throw refuse("the integer \(v)") }
            return .double(real)
        case (.double(let v), .double), (.double(let v), .float): return .double(v)
        case (.int64(let v), .bool):
            guard v == 0 || v == 1 else { throw refuse("the integer \(v)") }
            return .bool(v == 1)
        case (.string(let v), .string): return .string(v)
        case (.blob(let v), .data): return .data(v)
        case (.int64(let v), .date): return .date(Date(timeIntervalSince1970: Double(v)))
        case (.double(let v), .date): return .date(Date(timeIntervalSince1970: v))
        case (.string(let v), .date):
            guard let date = date(v) else { throw refuse("the text '\(v)'") }
            return .date(date)
        case (.blob(let v), .uuid):
            guard v.count == 16 else { throw refuse("\(v.count) bytes") }
            return .uuid(v.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        case (.string(let v), .uuid):
            guard let uuid = UUID(uuidString: v) else { throw refuse("the text '\(v)'") }
            return .uuid(uuid)
        case (.string(let v), .decimal):
            guard let decimal = DecimalText.decimal(fromText: v) else { throw refuse("the text '\(v)'") }
            return .decimal(decimal)
        case (.int64(let v), .decimal): return .decimal(Decimal(v))
        case (.double(let v), .decimal):
            guard v.isFinite, let decimal = Decimal(string: "\(v)", locale: Locale(identifier: "en_US_POSIX")) else {
                throw refuse("the real \(v)")
            }
            return .decimal(decimal)
        case (.int64(let v), _): throw refuse("the integer \(v)")
        case (.double(let v), _): throw refuse("the real \(v)")
        case (.string(let v), _): throw refuse("the text '\(ExactText.quoted(v.prefix(40)))'")
        case (.blob(let v), _): throw refuse("\(v.count) bytes")
        }
    }

    /// A date written as text: GRDB's `yyyy-MM-dd HH:mm:ss[.SSS]` (UTC), or ISO 8601 in UTC; any other text (more
    /// decimal places, another zone) is refused rather than rounded.
    private static func date(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        for format in [
            "yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX",
            "yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd",
        ] {
            formatter.dateFormat = format
            // Only a text the format writes back to the letter: a parse that dropped digits (a fourth decimal
            // place) or a zone would round the value without a word, and is refused instead.
            if let date = formatter.date(from: text), formatter.string(from: date) == text { return date }
        }
        return nil
    }
}
