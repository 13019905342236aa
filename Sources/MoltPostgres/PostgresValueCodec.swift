import Foundation
import Molt
import NIOCore
import PostgresNIO

/// The one codec between ``Value`` and PostgreSQL's wire formats.
///
/// Writing: every value but bytes goes as text of an unspecified type, so that the server types it from the
/// statement (a `?` compared with a `boolean` column is a boolean, with a `uuid` column a UUID), as SQLite's
/// dynamic typing lets the same statements run there; doubles as their shortest round-trip text (exact), dates
/// as seconds since 1970, UUIDs as their uppercase text, bytes as `bytea` in binary. NaN is refused, as on
/// SQLite; so is text with a NUL character, which PostgreSQL's text cannot hold.
///
/// Reading: results arrive in binary; a cell converts to an attribute's type only when it holds exactly a value
/// of that type (a whole double for an int, 0 or 1 for a bool, UUID text for a UUID), as SQLite's codec does.
enum PostgresValueCodec {
    /// A bound value: its wire type, format and bytes.
    struct Bind: PostgresThrowingDynamicTypeEncodable {
        var psqlType: PostgresDataType
        var psqlFormat: PostgresFormat
        var text: String?
        var bytes: Data?

        func encode<JSONEncoder: PostgresJSONEncoder>(
            into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
        ) throws {
            if let text { buffer.writeString(text) } else if let bytes { buffer.writeBytes(bytes) }
        }

        static func untyped(_ text: String) -> Bind {
            Bind(psqlType: PostgresDataType(0), psqlFormat: .text, text: text)
        }
    }

    /// Appends `value` to `bindings`.
    ///
    /// - Throws: ``MoltError/Code/invalidValue`` for NaN and for text that holds a NUL character.
    static func append(_ value: Value, to bindings: inout PostgresBindings) throws {
        switch value {
        case .null: bindings.appendNull()
        case .data(let v): try bindings.append(Bind(psqlType: .bytea, psqlFormat: .binary, bytes: v))
        default: try bindings.append(Bind.untyped(try text(of: value)!))
        }
    }

    /// The text a value is sent as, which the server reads with the input function of the column's type; bytes
    /// as `bytea`'s hex form (`\xDEAD`). Nil for null.
    ///
    /// - Throws: ``MoltError/Code/invalidValue`` for NaN and for text that holds a NUL character.
    static func text(of value: Value) throws -> String? {
        switch value {
        case .null: return nil
        case .int(let v): return String(v)
        case .bool(let v): return v ? "true" : "false"
        case .double(let v): return try doubleText(v)
        case .date(let v): return try doubleText(v.timeIntervalSince1970)
        case .uuid(let v): return v.uuidString
        case .decimal(let v):
            guard !v.isNaN else {
                throw MoltError(.invalidValue, "NaN cannot be stored as a decimal. Store a number, or null explicitly.")
            }
            return DecimalText.text(v)
        case .string(let v):
            if v.utf8.contains(0) { throw nulRefusal() }
            return v
        case .data(let v):
            let digits = Array("0123456789abcdef".utf8)
            var hex = [UInt8](repeating: 0, count: 2 + v.count * 2)
            hex[0] = UInt8(ascii: "\\")
            hex[1] = UInt8(ascii: "x")
            for (i, byte) in v.enumerated() {
                hex[2 + 2 * i] = digits[Int(byte >> 4)]
                hex[3 + 2 * i] = digits[Int(byte & 0xF)]
            }
            return String(decoding: hex, as: UTF8.self)
        }
    }

    static func doubleText(_ v: Double) throws -> String {
        guard !v.isNaN else {
            throw MoltError(
                .invalidValue,
                "NaN cannot be stored: Molt stores numbers, or null explicitly (SQLite would keep NaN as null). Store a number, or null."
            )
        }
        if v.isInfinite { return v > 0 ? "Infinity" : "-Infinity" }
        return "\(v)"
    }

    /// The refusal of a string with a NUL character (the dynamic API names the attribute through
    /// ``PostgresDialect``'s value check before a statement is made).
    static func nulRefusal(entity: String? = nil, attribute: String? = nil) -> MoltError {
        let name = entity.map { " for '\($0).\(attribute ?? "?")'" } ?? ""
        return MoltError(
            .invalidValue,
            "A string\(name) contains the NUL character (U+0000), which PostgreSQL text cannot hold; nothing was written. Remove it, or store the bytes in a data attribute.",
            entity: entity, property: attribute)
    }

    // MARK: - Reading

    /// What a cell holds, decoded from its binary form.
    enum Stored {
        case null, int(Int64), double(Double), bool(Bool), text(String), bytes(Data), uuid(UUID), other(String)
    }

    static func stored(_ cell: PostgresCell) -> Stored {
        guard var buffer = cell.bytes else { return .null }
        if cell.format == .text { return .text(buffer.readString(length: buffer.readableBytes) ?? "") }
        switch cell.dataType {
        case .int8: return buffer.readInteger(as: Int64.self).map(Stored.int) ?? .null
        case .int4, .oid: return buffer.readInteger(as: Int32.self).map { .int(Int64($0)) } ?? .null
        case .int2: return buffer.readInteger(as: Int16.self).map { .int(Int64($0)) } ?? .null
        case .float8: return buffer.readInteger(as: UInt64.self).map { .double(Double(bitPattern: $0)) } ?? .null
        case .float4: return buffer.readInteger(as: UInt32.self).map { .double(Double(Float(bitPattern: $0))) } ?? .null
        case .bool: return .bool(buffer.readInteger(as: UInt8.self) == 1)
        case .text, .varchar, .name, .bpchar: return .text(buffer.readString(length: buffer.readableBytes) ?? "")
        case .bytea: return .bytes(Data(buffer.readableBytesView))
        case .uuid:
            guard let b = buffer.readBytes(length: 16) else { return .null }
            return .uuid(
                UUID(
                    uuid: (
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                        b[15]
                    )))
        case .numeric:
            guard let text = numericText(buffer) else { return .other("a numeric") }
            return numericAsNumber(text)
        default:
            return .other("a value of type \(cell.dataType)")
        }
    }

    /// A cell as a value of `type`, or nil when it does not hold exactly a value of that type.
    static func value(_ cell: PostgresCell, as type: AttributeType) -> Value? {
        if type == .decimal, cell.dataType == .numeric, cell.format == .binary, let bytes = cell.bytes {
            return numericText(bytes).flatMap(DecimalText.decimal(fromText:)).map(Value.decimal)
        }
        switch (stored(cell), type) {
        case (.null, _): return .null
        case (.text(let v), .decimal): return DecimalText.decimal(fromText: v).map(Value.decimal)
        case (.int(let v), .int16), (.int(let v), .int32), (.int(let v), .float), (.int(let v), .decimal):
            return ValueConversion.convert(.int(v), to: type)
        case (.double(let v), .int16), (.double(let v), .int32), (.double(let v), .float):
            return ValueConversion.convert(.double(v), to: type)
        case (.int(let v), .int): return .int(v)
        case (.int(let v), .bool): return v == 0 || v == 1 ? .bool(v == 1) : nil
        case (.int(let v), .double): return Double(exactly: v).map(Value.double)
        case (.int(let v), .date): return Double(exactly: v).map { .date(Date(timeIntervalSince1970: $0)) }
        case (.double(let v), .double): return .double(v)
        case (.double(let v), .date): return .date(Date(timeIntervalSince1970: v))
        case (.double(let v), .int): return Int64(exactly: v).map(Value.int)
        case (.bool(let v), .bool): return .bool(v)
        case (.bool(let v), .int): return .int(v ? 1 : 0)
        case (.text(let v), .string): return .string(v)
        case (.text(let v), .uuid): return UUID(uuidString: v).map(Value.uuid)
        case (.uuid(let v), .uuid): return .uuid(v)
        case (.uuid(let v), .string): return .string(v.uuidString)
        case (.bytes(let v), .data): return .data(v)
        default: return nil
        }
    }

    /// The exact text of a numeric in binary form (`-12.50`), every digit kept.
    private static func numericText(_ buffer: ByteBuffer) -> String? {
        PostgresData(type: .numeric, value: buffer).numeric?.string
    }

    /// A numeric's text as an integer when it is one, else a double (an expression's result: a sum, a
    /// division), as cells of those types read.
    private static func numericAsNumber(_ text: String) -> Stored {
        let canonical = DecimalText.canonical(text) ?? text
        if let int = Int64(canonical) { return .int(int) }
        return Double(canonical).map(Stored.double) ?? .other("the numeric \(text)")
    }

    /// A cell as stored: `.int` (booleans as 0 and 1), `.double`, `.string` (UUIDs as their uppercase text),
    /// `.data` or `.null`.
    static func rawValue(_ cell: PostgresCell) -> Value {
        switch stored(cell) {
        case .null: return .null
        case .int(let v): return .int(v)
        case .double(let v): return .double(v)
        case .bool(let v): return .int(v ? 1 : 0)
        case .text(let v): return .string(v)
        case .bytes(let v): return .data(v)
        case .uuid(let v): return .string(v.uuidString)
        case .other(let v): return .string(v)
        }
    }

    /// A short description of a cell, for messages.
    static func describe(_ cell: PostgresCell) -> String {
        switch stored(cell) {
        case .null: return "null"
        case .int(let v): return "the integer \(v)"
        case .double(let v): return "the double \(ValueConversion.text(double: v))"
        case .bool(let v): return "the boolean \(v)"
        case .text(let v): return "the text '\(v.count > 40 ? v.prefix(40) + "…" : Substring(v))'"
        case .bytes(let v): return "\(v.count) bytes"
        case .uuid(let v): return "the UUID \(v.uuidString)"
        case .other(let v): return v
        }
    }
}
