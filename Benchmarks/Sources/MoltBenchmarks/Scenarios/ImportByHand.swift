import Foundation
import GRDB
import GRDBSQLite
import Molt

/// The import an engineer would write by hand for a `molt export` file whose schema they know: the file mapped
/// into memory and read once, front to back, by a small JSON scanner; each object bound to one cached `INSERT`
/// per entity (its `_id`, attributes and to-one links as columns), each to-many link to one cached `INSERT` into
/// its join table; all in one immediate transaction with foreign keys checked at commit (the file lists
/// entities in name order, so a link may point to an object further down).
enum ImportByHand {
    static func run(_ file: URL, schema: Schema, into queue: DatabaseQueue) throws {
        let data = try Data(contentsOf: file, options: .alwaysMapped)
        try queue.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                try data.withUnsafeBytes { raw in
                    var scanner = JSONScanner(raw.bindMemory(to: UInt8.self))
                    try scanner.beginObject()
                    while let key = try scanner.nextKey() {
                        guard key == "entities" else { try scanner.skipValue(); continue }
                        try scanner.beginObject()
                        while let name = try scanner.nextKey() {
                            guard let entity = schema.entity(named: name) else {
                                throw BenchmarkError(
                                    description: "\(file.lastPathComponent) has objects of unknown entity \(name)")
                            }
                            try insert(entity, from: &scanner, db)
                        }
                    }
                }
                return .commit
            }
        }
    }

    /// Inserts the objects of the array at the scanner's position.
    private static func insert(_ entity: Entity, from scanner: inout JSONScanner, _ db: Database) throws {
        let columns =
            ["_id"] + entity.attributes.map(\.name) + entity.relationships.filter { $0.kind == .toOne }.map(\.name)
        let column = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) })
        let manyNames = entity.relationships.filter { $0.kind == .toMany }.map(\.name)
        let many = Dictionary(uniqueKeysWithValues: manyNames.enumerated().map { ($1, $0) })
        let quoted = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let insert = prepared(
            try db.cachedStatement(
                sql:
                    "INSERT INTO \"\(entity.name)\" (\(quoted)) VALUES (?\(String(repeating: ", ?", count: columns.count - 1)))"
            ))
        let joins = try manyNames.map {
            prepared(try db.cachedStatement(sql: "INSERT INTO \"\(entity.name)_\($0)\" (owner, target) VALUES (?, ?)"))
        }
        var values = [DatabaseValue](repeating: .null, count: columns.count)
        var links = [[Int64]](repeating: [], count: manyNames.count)
        try scanner.beginArray()
        while try scanner.nextElement() {
            for i in values.indices { values[i] = .null }
            for i in links.indices { links[i].removeAll(keepingCapacity: true) }
            try scanner.beginObject()
            while let key = try scanner.nextKey() {
                if let index = column[key] {
                    values[index] = try scanner.value()
                } else if let index = many[key] {
                    try scanner.beginArray()
                    while try scanner.nextElement() { links[index].append(try scanner.integer()) }
                } else {
                    try scanner.skipValue()
                }
            }
            bind(values, to: insert)
            try insert.execute()
            for (index, targets) in links.enumerated() {
                for target in targets {
                    bind([values[0], target.databaseValue], to: joins[index])
                    try joins[index].execute()
                }
            }
        }
    }
}

/// Binds values straight to the statement's SQLite handle: building `StatementArguments` from an array of a
/// variable length goes through GRDB's generic initializer, which cost more than the rest of the loop.
/// `execute()` without arguments keeps these bindings once GRDB holds the statement's arguments as valid
/// (``prepared(_:)``).
/// A cached statement whose arguments GRDB considers set, so that ``bind(_:to:)`` can bind them directly.
private func prepared(_ statement: Statement) -> Statement {
    statement.setUncheckedArguments(
        StatementArguments(
            Array(repeating: DatabaseValue.null, count: Int(sqlite3_bind_parameter_count(statement.sqliteStatement)))))
    return statement
}

private func bind(_ values: [DatabaseValue], to statement: Statement) {
    let handle = statement.sqliteStatement
    sqlite3_reset(handle)
    for (offset, value) in values.enumerated() {
        let index = Int32(offset + 1)
        switch value.storage {
        case .null: sqlite3_bind_null(handle, index)
        case .int64(let v): sqlite3_bind_int64(handle, index, v)
        case .double(let v): sqlite3_bind_double(handle, index, v)
        case .string(let v): sqlite3_bind_text(handle, index, v, -1, People.transient)
        case .blob(let v):
            _ = v.withUnsafeBytes {
                sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), People.transient)
            }
        }
    }
}

/// Reads JSON text front to back without building a tree: the caller walks objects (`beginObject`, then
/// `nextKey` until nil) and arrays (`beginArray`, then `nextElement` until false), and reads or skips each
/// value. Separators are not checked strictly: it reads well-formed files, which is all a baseline needs.
struct JSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private func failure(_ what: String) -> BenchmarkError {
        BenchmarkError(description: "JSON: \(what) at byte \(index)")
    }

    private mutating func skipSpace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }

    private mutating func peek() throws -> UInt8 {
        skipSpace()
        guard index < bytes.count else { throw failure("unexpected end") }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard try peek() == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    mutating func beginObject() throws { try expect(UInt8(ascii: "{")) }

    /// The next key of the current object, its value next to read; nil at the object's end.
    mutating func nextKey() throws -> String? {
        var next = try peek()
        if next == UInt8(ascii: "}") { index += 1; return nil }
        if next == UInt8(ascii: ",") { index += 1; next = try peek() }
        let key = try string()
        try expect(UInt8(ascii: ":"))
        return key
    }

    mutating func beginArray() throws { try expect(UInt8(ascii: "[")) }

    /// Whether the current array has another element, next to read; false at the array's end.
    mutating func nextElement() throws -> Bool {
        let next = try peek()
        if next == UInt8(ascii: "]") { index += 1; return false }
        if next == UInt8(ascii: ",") { index += 1 }
        return true
    }

    /// A scalar: null, a boolean (as 0 or 1), an integer, a double or a string.
    mutating func value() throws -> DatabaseValue {
        switch try peek() {
        case UInt8(ascii: "\""): return try string().databaseValue
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "t"): return try literal("true", true.databaseValue)
        case UInt8(ascii: "f"): return try literal("false", false.databaseValue)
        default: return try number()
        }
    }

    /// An integer (an `_id` in a list of links).
    mutating func integer() throws -> Int64 {
        guard case .int64(let value) = try number().storage else { throw failure("expected an integer") }
        return value
    }

    mutating func skipValue() throws {
        switch try peek() {
        case UInt8(ascii: "{"):
            try beginObject()
            while try nextKey() != nil { try skipValue() }
        case UInt8(ascii: "["):
            try beginArray()
            while try nextElement() { try skipValue() }
        default: _ = try value()
        }
    }

    private mutating func literal(_ text: StaticString, _ value: DatabaseValue) throws -> DatabaseValue {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, text.utf8Start, count) == 0 else {
            throw failure("expected \(text)")
        }
        index += count
        return value
    }

    private mutating func number() throws -> DatabaseValue {
        let start = index
        var isInteger = true
        var integer: Int64 = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x30 && byte <= 0x39 {
                let (times, overflow1) = integer.multipliedReportingOverflow(by: 10)
                let (plus, overflow2) = times.addingReportingOverflow(Int64(byte - 0x30))
                if overflow1 || overflow2 { isInteger = false }
                integer = plus
            } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-")
            {
                isInteger = false
            } else {
                break
            }
            index += 1
        }
        guard index > start else { throw failure("expected a value") }
        if isInteger { return (negative ? -integer : integer).databaseValue }
        // strtod needs a terminated string: numbers are short.
        var buffer = [CChar](repeating: 0, count: index - start + 1)
        for i in start..<index { buffer[i - start] = CChar(bitPattern: bytes[i]) }
        return strtod(buffer, nil).databaseValue
    }

    private mutating func string() throws -> String {
        let bytes = self.bytes
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
        guard index < bytes.count else { throw failure("unterminated string") }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
        }
        // Escapes: the slow path, byte by byte.
        var result = [UInt8](bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: result, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw failure("unterminated string") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "n"): result.append(0x0A)
                case UInt8(ascii: "t"): result.append(0x09)
                case UInt8(ascii: "r"): result.append(0x0D)
                case UInt8(ascii: "b"): result.append(0x08)
                case UInt8(ascii: "f"): result.append(0x0C)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        let unit = UInt16(
                            String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + 4]), as: UTF8.self),
                            radix: 16)
                    else {
                        throw failure("bad \\u escape")
                    }
                    index += 4
                    var units = [unit]
                    if UTF16.isLeadSurrogate(unit), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        let low = UInt16(
                            String(
                                decoding: UnsafeBufferPointer(rebasing: bytes[index + 2..<index + 6]), as: UTF8.self),
                            radix: 16)
                    {
                        units.append(low)
                        index += 6
                    }
                    result += Array(String(decoding: units, as: UTF16.self).utf8)
                default: result.append(escaped)  // \" \\ \/
                }
            default: result.append(byte)
            }
        }
        throw failure("unterminated string")
    }
}
