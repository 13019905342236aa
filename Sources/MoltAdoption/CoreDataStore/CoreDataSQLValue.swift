import Foundation
import GRDB
import Molt

/// How one Core Data attribute's stored values become Molt's in SQL, for the copy by `INSERT … SELECT`
/// (``CoreDataSQLCopy``): the expression of the Molt value, and the condition of a stored value that SQL would
/// not turn into exactly what ``CoreDataValues`` gives (the object-by-object copy then runs, and refuses it naming
/// the value, or converts it).
///
/// Molt stores a date as the seconds since 1970 in a real: Core Data's seconds since 2001 plus 978,307,200, the
/// same double addition `Date.timeIntervalSince1970` makes; booleans and integers as integers; `Double` and
/// `Float` as reals; a UUID as its upper-case text; strings and URIs as their text; binary and transformable
/// values as their bytes. A decimal and a binary value that allows external storage go through
/// ``CoreDataValues`` itself, as the SQL function ``function``.
struct CoreDataSQLValue {
    /// The SQL of the Molt value.
    var expression: String
    /// The SQL condition that holds for a stored value this expression does not convert exactly.
    var unfit: String
    /// Whether the expression calls ``function``.
    var callsSwift = false

    /// `molt_adopt_value(slot, Z_PK, value)`: the row path's conversion of the attribute numbered `slot`.
    static let function = "molt_adopt_value"

    /// The conversion of `attribute` (stored in the column reference `x` of a row whose key is `key`) into the
    /// Molt attribute `molt`; nil when the Molt attribute is not of the type Core Data's converts to (a schema
    /// given by the app that differs), which only the row path checks.
    static func conversion(
        of attribute: CoreDataStoreLayout.AttributeColumn, as molt: Attribute, x: String, key: String, slot: Int
    ) -> CoreDataSQLValue? {
        let type = "typeof(\(x))"
        func only(_ types: String) -> String { "\(type) NOT IN ('null', \(types))" }
        var result: CoreDataSQLValue
        switch (attribute.coreDataType, molt.type) {
        case ("String", .string), ("URI", .string):
            // Copied byte for byte; a text that is not UTF-8 (which no Molt string holds) goes to the row path,
            // which refuses it. Only a text with a NUL or a byte beyond ASCII is checked in Swift.
            result = .init(
                expression: x, unfit: "(\(only("'text'")) OR (\(notPlain(x)) AND \(notUTF8)(CAST(\(x) AS BLOB)) = 1))")
        case ("Boolean", .bool):
            result = .init(expression: x, unfit: "(\(only("'integer'")) OR \(x) NOT IN (0, 1))")
        case ("Integer 16", .int16), ("Integer 32", .int32), ("Integer 64", .int):
            let bounds: (Int64, Int64)? =
                switch molt.type {
                case .int16: (Int64(Int16.min), Int64(Int16.max))
                case .int32: (Int64(Int32.min), Int64(Int32.max))
                default: nil
                }
            let range = bounds.map { " OR \(x) NOT BETWEEN \($0.0) AND \($0.1)" }
            result = .init(expression: x, unfit: "(\(only("'integer'"))\(range ?? ""))")
        case ("Double", .double): result = .init(expression: "CAST(\(x) AS REAL)", unfit: only("'integer', 'real'"))
        case ("Float", .float):
            result = .init(
                expression: "CAST(\(x) AS REAL)",
                unfit: "(\(only("'integer', 'real'")) OR molt_float_inexact(\(x)) = 1)")
        case ("Date", .date):
            result = .init(expression: "(\(x) + 978307200.0)", unfit: only("'integer', 'real'"))
        case ("UUID", .uuid):
            let hex = "hex(\(x))"
            let parts = [(1, 8), (9, 4), (13, 4), (17, 4), (21, 12)].map { "substr(\(hex), \($0.0), \($0.1))" }
            result = .init(
                expression: "CASE WHEN \(x) IS NULL THEN NULL ELSE \(parts.joined(separator: " || '-' || ")) END",
                unfit: "(\(only("'blob'")) OR length(\(x)) <> 16)")
        case ("Binary", .data) where !attribute.allowsExternalStorage,
            ("Transformable", .data)
        where !attribute.allowsExternalStorage:
            result = .init(expression: x, unfit: only("'blob'"))
        case ("Binary", .data), ("Transformable", .data):
            // A missing file may become null, which the row path then gives the attribute's default.
            guard molt.isOptional, molt.defaultValue == nil else { return nil }
            result = .init(expression: swift(slot, key, x), unfit: only("'blob'"), callsSwift: true)
        case ("Decimal", .decimal):
            // A decimal's text is ASCII: one with a NUL (where GRDB's text would stop) goes to the row path.
            result = .init(
                expression: swift(slot, key, x), unfit: "(\(only("'integer', 'real', 'text'")) OR \(notPlain(x)))",
                callsSwift: true)
        default: return nil
        }
        // A missing value takes the default in the row path, and a required one is refused there.
        if molt.defaultValue != nil || !molt.isOptional { result.unfit += " OR \(x) IS NULL" }
        return result
    }

    /// `molt_adopt_not_utf8(bytes)`: 1 when `bytes` are not UTF-8 (``ExactText/decoded(_:)``), else 0.
    static let notUTF8 = "molt_adopt_not_utf8"

    /// The SQL condition of a text in `x` that holds a NUL or a byte beyond ASCII (any byte of 0x80 or more reads
    /// as such a character in `GLOB`): the texts that GRDB's `String` may not read byte for byte.
    static func notPlain(_ x: String) -> String {
        "(\(x) GLOB '*[^' || char(1) || '-' || char(127) || ']*' OR instr(\(x), char(0)) > 0)"
    }

    private static func swift(_ slot: Int, _ key: String, _ x: String) -> String {
        "\(function)(\(slot), \(key), \(x))"
    }

    /// Registers ``function`` and ``notUTF8`` on `db`: each slot is an attribute of an entity, converted by
    /// `values` exactly as the row path converts it; a value it refuses makes the statement fail (and the row
    /// path then runs).
    static func register(
        in db: Database, slots: [(entity: String, attribute: CoreDataStoreLayout.AttributeColumn)],
        values: CoreDataValues
    ) {
        let function = DatabaseFunction(Self.function, argumentCount: 3, pure: false) { arguments in
            guard let slot = Int.fromDatabaseValue(arguments[0]), slots.indices.contains(slot),
                let key = Int64.fromDatabaseValue(arguments[1])
            else { throw DatabaseError(message: "\(Self.function): no such slot") }
            let value = try values.value(arguments[2], of: slots[slot].attribute, entity: slots[slot].entity, key: key)
            return stored(value)
        }
        db.add(function: function)
        db.add(
            function: DatabaseFunction(notUTF8, argumentCount: 1, pure: true) { arguments in
                guard case .blob(let bytes) = arguments[0].storage else { return 0 }
                return ExactText.decoded(bytes) == nil ? 1 : 0
            })
    }

    /// A Molt value as Molt's SQLite store holds it (as `SQLiteStatement` binds it).
    private static func stored(_ value: Value) -> (any DatabaseValueConvertible)? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        case .int(let integer): return integer
        case .double(let real): return real
        case .bool(let flag): return flag ? 1 : 0
        case .date(let date): return date.timeIntervalSince1970
        case .data(let data): return data
        case .uuid(let uuid): return uuid.uuidString
        case .decimal(let decimal): return DecimalText.text(decimal)
        }
    }
}
