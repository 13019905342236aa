import Foundation
import GRDB
import Molt

/// How one Core Data attribute's stored values become Molt's in SQL, for the copy by `INSERT … SELECT`
/// (``CoreDataSQLCopy``): the expression of the Molt value, and the kind of value its proof checks each stored
/// value against (``CoreDataSQLDigest/Kind``): a value of another kind, which SQL would not turn into exactly what
/// ``CoreDataValues`` gives, sends the copy to the object-by-object path, which refuses it naming the value, or
/// converts it.
///
/// Molt stores a date as the seconds since 1970 in a real: Core Data's seconds since 2001 plus 978,307,200, the
/// same double addition `Date.timeIntervalSince1970` makes; booleans and integers as integers; `Double` and
/// `Float` as reals; a UUID as its upper-case text; strings and URIs as their text, byte for byte; binary and
/// transformable values as their bytes. A decimal and a binary value that allows external storage go through
/// ``CoreDataValues`` itself, as the SQL function ``function``.
struct CoreDataSQLValue {
    /// The SQL of the Molt value.
    var expression: String
    /// What each stored value must be for `expression` to convert it exactly.
    var kind: CoreDataSQLDigest.Kind
    /// Whether a null is unfit: the row path gives it the attribute's default, or refuses it.
    var required: Bool
    /// The stored value, and for a kind that takes two, `expression` after it.
    var arguments: [String]

    /// Whether the expression calls ``function``.
    var callsSwift: Bool { kind.arity == 2 }

    /// `molt_adopt_value(slot, Z_PK, value)`: the row path's conversion of the attribute numbered `slot`.
    static let function = "molt_adopt_value"

    /// The conversion of `attribute` (stored in the column reference `x` of a row whose key is `key`) into the
    /// Molt attribute `molt`; nil when the Molt attribute is not of the type Core Data's converts to (a schema
    /// given by the app that differs), which only the row path checks.
    static func conversion(
        of attribute: CoreDataStoreLayout.AttributeColumn, as molt: Attribute, x: String, key: String, slot: Int
    ) -> CoreDataSQLValue? {
        let expression: String, kind: CoreDataSQLDigest.Kind
        switch (attribute.coreDataType, molt.type) {
        // Copied byte for byte; a text that is not UTF-8 (which no Molt string holds) is refused by the row path.
        case ("String", .string), ("URI", .string): (expression, kind) = (x, .string)
        case ("Boolean", .bool): (expression, kind) = (x, .bool)
        case ("Integer 16", .int16): (expression, kind) = (x, .int16)
        case ("Integer 32", .int32): (expression, kind) = (x, .int32)
        case ("Integer 64", .int): (expression, kind) = (x, .int64)
        case ("Double", .double): (expression, kind) = ("CAST(\(x) AS REAL)", .double)
        case ("Float", .float): (expression, kind) = ("CAST(\(x) AS REAL)", .float)
        case ("Date", .date): (expression, kind) = ("(\(x) + 978307200.0)", .date)
        case ("UUID", .uuid):
            let hex = "hex(\(x))"
            let parts = [(1, 8), (9, 4), (13, 4), (17, 4), (21, 12)].map { "substr(\(hex), \($0.0), \($0.1))" }
            (expression, kind) = (
                "CASE WHEN \(x) IS NULL THEN NULL ELSE \(parts.joined(separator: " || '-' || ")) END", .uuid
            )
        case ("Binary", .data) where !attribute.allowsExternalStorage,
            ("Transformable", .data)
        where !attribute.allowsExternalStorage:
            (expression, kind) = (x, .blob)
        case ("Binary", .data), ("Transformable", .data):
            // A missing file may become null, which the row path then gives the attribute's default.
            guard molt.isOptional, molt.defaultValue == nil else { return nil }
            (expression, kind) = (swift(slot, key, x), .external)
        // A decimal's text is ASCII: one with a NUL (where GRDB's text would stop) goes to the row path.
        case ("Decimal", .decimal): (expression, kind) = (swift(slot, key, x), .decimal)
        default: return nil
        }
        // A missing value takes the default in the row path, and a required one is refused there.
        return CoreDataSQLValue(
            expression: expression, kind: kind, required: molt.defaultValue != nil || !molt.isOptional,
            arguments: kind.arity == 2 ? [x, expression] : [x])
    }

    private static func swift(_ slot: Int, _ key: String, _ x: String) -> String {
        "\(function)(\(slot), \(key), \(x))"
    }

    /// Registers ``function`` and the proof's digests (``CoreDataSQLDigest``) on `db`: each slot is an attribute of an entity, converted by
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
        CoreDataSQLDigest.register(in: db)
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
