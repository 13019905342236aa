import Foundation
import GRDB
import Molt

/// Turns the values Core Data stored into Molt values, exactly, or names the one that cannot be.
///
/// Dates are seconds since 2001-01-01, read as `Date(timeIntervalSinceReferenceDate:)`; Molt stores a date as
/// the seconds since 1970 in a double, the nearest to the instant (within a quarter of a microsecond for dates
/// of this century, as for any `Date` an app writes);
/// booleans and integers are integers; `Float` and `Double` are reals; `Decimal` is stored by Core Data as a
/// real, which becomes the decimal whose digits are that real's shortest form; a `UUID` is 16 bytes; `URI` is
/// its absolute text; `Binary` and `Transformable` are bytes, kept as they are (a transformable's archive is
/// never decoded). A binary attribute that allows external storage holds a marker byte: `1` then the bytes, or
/// `2` then the name of a file in the store's `_EXTERNAL_DATA` folder, whose bytes are read.
struct CoreDataValues {
    /// `.<store name>_SUPPORT/_EXTERNAL_DATA` beside the original store.
    var externalData: URL
    /// What a value whose external-storage file is missing becomes.
    var missingFiles: CoreDataAdoption.MissingExternalData
    /// The values read as null because their file was missing (with ``missingFiles`` `.adoptedAsNull`), one line
    /// each: entity, attribute, object and file.
    let missing = LockedValue<[String]>([])

    /// What the copy left out for ``missing``, one line for the record (none when no file was missing).
    func missingLeftOut() -> [String] {
        let missing = missing.withLock { $0 }
        guard !missing.isEmpty else { return [] }
        return [
            "\(missing.count) binary value(s) whose external-storage file was missing, adopted as null: "
                + missing.joined(separator: "; ")
        ]
    }

    init(original: URL, missingFiles: CoreDataAdoption.MissingExternalData = .refused) {
        let name = original.deletingPathExtension().lastPathComponent
        self.init(
            externalData: original.deletingLastPathComponent()
                .appendingPathComponent(".\(name)_SUPPORT/_EXTERNAL_DATA", isDirectory: true),
            missingFiles: missingFiles)
    }

    private init(externalData: URL, missingFiles: CoreDataAdoption.MissingExternalData) {
        self.externalData = externalData
        self.missingFiles = missingFiles
    }

    /// The same conversions, listing missing files apart: for a second reading of the same values (the proof's),
    /// whose list would repeat the copy's.
    func apart() -> CoreDataValues { CoreDataValues(externalData: externalData, missingFiles: missingFiles) }

    /// The Molt value of `stored`, for attribute `attribute` of object `key` of `entity`.
    func value(
        _ stored: DatabaseValue, of attribute: CoreDataStoreLayout.AttributeColumn, entity: String, key: Int64
    ) throws -> Value {
        switch stored.storage {
        case .null: return .null
        case .int64(let integer): return try value(.int(integer), of: attribute, entity: entity, key: key)
        case .double(let real): return try value(.double(real), of: attribute, entity: entity, key: key)
        case .string(let text): return try value(.string(text), of: attribute, entity: entity, key: key)
        case .blob(let data): return try value(.data(data), of: attribute, entity: entity, key: key)
        }
    }

    /// The Molt value of `stored`, a value as SQLite stored it (an integer, a real, a string or data, or null), for
    /// attribute `attribute` of object `key` of `entity`: the conversion a bulk copy calls (``CoreDataSQLPlan``).
    func value(
        _ stored: Value, of attribute: CoreDataStoreLayout.AttributeColumn, entity: String, key: Int64
    ) throws -> Value {
        func refuse(_ what: String) -> MoltError { Self.refusal(what, of: attribute, entity: entity, key: key) }
        switch stored {
        case .int(let integer): return try Self.value(integer: integer, as: attribute.coreDataType, refuse: refuse)
        case .double(let real): return try Self.value(real: real, as: attribute.coreDataType, refuse: refuse)
        case .string(let text):
            switch attribute.coreDataType {
            case "String", "URI": return .string(text)
            case "Decimal":
                guard let decimal = DecimalText.decimal(fromText: text) else { throw refuse("the text '\(text)'") }
                return .decimal(decimal)
            default: throw refuse("text")
            }
        case .data(let data): return try value(bytes: data, of: attribute, entity: entity, key: key, refuse: refuse)
        case .null: return .null
        case .bool, .date, .uuid, .decimal: throw refuse("a value SQLite does not store (\(stored))")
        }
    }

    /// The Molt value of column `index` of `row`, a row of a statement being read, as ``value(_:of:entity:key:)``
    /// gives it, with a text read byte for byte (``ExactText``). A text that is not UTF-8 is refused, as the copy
    /// in SQL refuses it (``CoreDataSQLPlan``): a Molt string cannot hold it.
    func value(
        in row: Row, at index: Int, of attribute: CoreDataStoreLayout.AttributeColumn, entity: String, key: Int64
    ) throws -> Value {
        guard let stored = try ExactText.value(in: row, at: index) else {
            throw Self.refusal("a text whose bytes are not UTF-8", of: attribute, entity: entity, key: key)
        }
        return try value(stored, of: attribute, entity: entity, key: key)
    }

    /// The refusal of a value that is not one of its attribute's type.
    private static func refusal(
        _ what: String, of attribute: CoreDataStoreLayout.AttributeColumn, entity: String, key: Int64
    ) -> MoltError {
        MoltError(
            .invalidValue,
            "Object \(key) of '\(entity)' (Z_PK \(key)) holds \(what) in '\(attribute.name)' (Core Data type \(attribute.coreDataType)), which is not a value of that type: the store was written behind Core Data's back, or with another model. Nothing was adopted and the store was left as it was; correct the value with the app's Core Data version, or give the model version that wrote it.",
            entity: entity, property: attribute.name)
    }

    private static func value(integer: Int64, as type: String, refuse: (String) -> MoltError) throws -> Value {
        switch type {
        case "Boolean":
            guard integer == 0 || integer == 1 else { throw refuse("the integer \(integer)") }
            return .bool(integer == 1)
        case "Integer 16", "Integer 32", "Integer 64": return .int(integer)
        case "Double", "Float": return .double(Double(integer))
        case "Date": return .date(Date(timeIntervalSinceReferenceDate: Double(integer)))
        case "Decimal": return .decimal(Decimal(integer))
        default: throw refuse("the integer \(integer)")
        }
    }

    private static func value(real: Double, as type: String, refuse: (String) -> MoltError) throws -> Value {
        switch type {
        case "Double": return .double(real)
        case "Float":
            guard Float(exactly: real) != nil || !real.isFinite else { throw refuse("the real \(real)") }
            return .double(real)
        case "Date": return .date(Date(timeIntervalSinceReferenceDate: real))
        case "Decimal":
            guard real.isFinite, let decimal = Decimal(string: "\(real)", locale: Locale(identifier: "en_US_POSIX"))
            else { throw refuse("the real \(real)") }
            return .decimal(decimal)
        case "Integer 16", "Integer 32", "Integer 64":
            guard let integer = Int64(exactly: real) else { throw refuse("the real \(real)") }
            return .int(integer)
        default: throw refuse("the real \(real)")
        }
    }

    private func value(
        bytes data: Data, of attribute: CoreDataStoreLayout.AttributeColumn, entity: String, key: Int64,
        refuse: (String) -> MoltError
    ) throws -> Value {
        switch attribute.coreDataType {
        case "UUID":
            guard data.count == 16 else { throw refuse("\(data.count) bytes") }
            let uuid = data.withUnsafeBytes { raw in
                UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
            }
            return .uuid(uuid)
        case "Binary", "Transformable":
            guard attribute.allowsExternalStorage else { return .data(data) }
            return try external(data, refuse: refuse, at: (entity, attribute.name, key)).map { .data($0) } ?? .null
        case "String", "URI":
            guard let text = ExactText.decoded(data) else { throw refuse("bytes that are not UTF-8") }
            return .string(text)
        default: throw refuse("\(data.count) bytes")
        }
    }

    /// The bytes of a value that may live in the external-data folder; nil for a missing file when the adoption
    /// takes those as null.
    private func external(
        _ stored: Data, refuse: (String) -> MoltError, at place: (entity: String, attribute: String, key: Int64)
    ) throws -> Data? {
        guard let marker = stored.first else { return stored }
        let rest = stored.dropFirst()
        switch marker {
        case 1:
            return Data(rest)
        case 2:
            let name = String(decoding: rest.prefix { $0 != 0 }, as: UTF8.self)
            let file = externalData.appendingPathComponent(name)
            guard let bytes = FileManager.default.contents(atPath: file.path) else {
                if missingFiles == .adoptedAsNull {
                    missing.withLock {
                        $0.append("\(place.entity).\(place.attribute) of object \(place.key): file \(name)")
                    }
                    return nil
                }
                throw MoltError(
                    .corruptStore,
                    "A value kept outside the store is missing: \(file.path) ('\(place.entity).\(place.attribute)' of object \(place.key)). Core Data cannot read it either. Nothing was adopted and the store was left as it was; restore the store's folder \(externalData.deletingLastPathComponent().lastPathComponent) with its _EXTERNAL_DATA files, or clear the value with the app; or, if the app can do without those values, adopt them as null: `missingExternalData: .adoptedAsNull` (molt adopt --missing-external-data null), which lists each one in the adoption's record.",
                    entity: place.entity, property: place.attribute)
            }
            return bytes
        default:
            throw refuse("a value with the unknown external-storage marker \(marker)")
        }
    }
}
