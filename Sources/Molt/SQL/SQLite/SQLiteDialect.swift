import Foundation

/// SQLite's SQL: dynamic typing with column affinities, `rowid`, `INSERT OR IGNORE`, `temp.` tables.
///
/// Sized integers are `INTEGER` and floats `REAL` like their wider kin (the attribute type keeps their range on
/// write). A decimal is `TEXT COLLATE molt_decimal`: its canonical text (``DecimalText``) keeps every digit,
/// and the collation, registered on every connection Molt opens (``SQLiteFunctions``), compares those texts
/// by value, so that `<`, `=`, `ORDER BY`, `MIN`/`MAX` and indexes go by value, negative numbers and differing
/// scales included. A scaled `INTEGER` would sort natively but holds 18 digits, not a `Decimal`'s 38; a `REAL`
/// loses digits. Another tool reads the text as is; it must register a collation of that name to compare it.
///
/// Conversions to text call the functions of ``SQLiteFunctions``, which run ``ValueConversion``'s Swift rules
/// inside SQLite, so that a set-based migration writes exactly what a custom stage would.
package struct SQLiteDialect: SQLDialect {
    package static let shared = SQLiteDialect()

    package var engine: DatabaseEngine { .sqlite }

    package func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .uuid: return "TEXT"
        case .int, .bool, .int16, .int32: return "INTEGER"
        case .double, .date, .float: return "REAL"
        case .data: return "BLOB"
        case .decimal: return "TEXT COLLATE \(DecimalText.collationName)"
        }
    }

    /// AUTOINCREMENT: an identifier is never handed out again, even after the object that had the largest one
    /// was deleted (see `SQLiteConnection+Identifiers.swift`).
    package func identifierColumn(_ name: String) -> String { "\(quote(name)) INTEGER PRIMARY KEY AUTOINCREMENT" }

    package func reference(table: String, column: String, onDelete action: SQLReferenceAction) -> String {
        "REFERENCES \(quote(table))(\(quote(column))) ON DELETE \(action == .cascade ? "CASCADE" : "SET NULL")"
    }

    package func literal(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .string(let v): return Self.textLiteral(v)
        case .int(let v): return String(v)
        case .double(let v): return Self.doubleLiteral(v)
        case .bool(let v): return v ? "1" : "0"
        case .date(let v): return Self.doubleLiteral(v.timeIntervalSince1970)
        case .data(let v): return "X'" + SQLLiteral.hex(v, uppercase: true) + "'"
        case .uuid(let v): return "'" + v.uuidString + "'"
        case .decimal(let v): return "'" + DecimalText.text(v) + "'"
        }
    }

    package func conversion(_ expression: String, from: AttributeType, to: AttributeType) -> String {
        if from == to { return expression }
        switch (from, to) {
        case (.bool, .int), (.uuid, .string), (.bool, .int16), (.bool, .int32), (.int16, .int32), (.int16, .int),
            (.int32, .int), (.float, .double), (.decimal, .string):
            return expression
        case (.int, .double), (.int16, .double), (.int32, .double), (.int16, .float):
            return "CAST(\(expression) AS REAL)"
        case (.int, .string), (.int16, .string), (.int32, .string), (.int, .decimal), (.int16, .decimal),
            (.int32, .decimal):
            // An integer's text is its canonical decimal text.
            return "CAST(\(expression) AS TEXT)"
        case (.double, .string), (.float, .string): return "\(SQLiteFunctions.doubleText)(\(expression))"
        case (.date, .string): return "\(SQLiteFunctions.dateText)(\(expression))"
        case (.bool, .string):
            return "(CASE WHEN \(expression) IS NULL THEN NULL WHEN \(expression) = 0 THEN 'false' ELSE 'true' END)"
        default: return expression
        }
    }

    package func inexactDoubleCondition(_ column: String) -> String {
        "typeof(\(column)) = 'integer' AND CAST(\(column) AS REAL) <> \(column)"
    }

    package func inexactFloatCondition(_ expression: String) -> String {
        "\(SQLiteFunctions.floatInexact)(\(expression))"
    }

    package func containsCondition(_ column: String) -> String { "instr(\(column), ?) > 0" }

    package func hasPrefixCondition(_ column: String) -> String { "substr(\(column), 1, length(?)) = ?" }

    package func limitClause(limit: Int?, offset: Int?) -> String {
        switch (limit, offset) {
        case (nil, nil): return ""
        case (let limit?, nil): return " LIMIT \(limit)"
        case (nil, let offset?): return " LIMIT -1 OFFSET \(offset)"
        case (let limit?, let offset?): return " LIMIT \(limit) OFFSET \(offset)"
        }
    }

    package func insertIgnoringDuplicates(into table: String, columns: [String], _ select: String) -> String {
        "INSERT OR IGNORE INTO \(table) (\(columns.joined(separator: ", "))) \(select)"
    }

    package func temporaryTable(_ name: String) -> String { "temp.\(quote(name))" }

    package func storageMismatchCondition(_ column: String, type: AttributeType) -> String? {
        let allowed: String
        switch type {
        case .int, .bool, .int16, .int32: allowed = "'integer'"
        case .double, .date, .float: allowed = "'real', 'integer'"
        case .string, .uuid, .decimal: allowed = "'text'"
        case .data: allowed = "'blob'"
        }
        let mismatch = "typeof(\(column)) NOT IN ('null', \(allowed))"
        guard let range = type.integerRange else { return mismatch }
        return "(\(mismatch) OR \(column) NOT BETWEEN \(range.lowerBound) AND \(range.upperBound))"
    }

    package var insertionOrder: String { "rowid" }

    package var maximumIdentifierLength: Int? { nil }

    // MARK: - Literals

    static func textLiteral(_ text: String) -> String {
        // A NUL would end the statement's text early: such strings are written as a cast blob.
        if text.utf8.contains(0) { return "CAST(X'\(SQLLiteral.hex(Data(text.utf8), uppercase: true))' AS TEXT)" }
        return SQLLiteral.quoted(text)
    }

    static func doubleLiteral(_ v: Double) -> String {
        if v.isNaN { return "NULL" }
        if v.isInfinite { return v > 0 ? "9e999" : "-9e999" }
        let text = "\(v)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }
}
