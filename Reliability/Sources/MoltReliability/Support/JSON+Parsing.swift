import Foundation

extension JSON {
    /// Parses JSON text (what molt prints), keeping integers apart from doubles.
    ///
    /// - Throws: ``HarnessError`` naming the offset of the first problem.
    init(parsing data: Data) throws {
        self = try data.withUnsafeBytes { buffer in
            var parser = JSONParser(bytes: buffer.bindMemory(to: UInt8.self))
            let value = try parser.value(depth: 0)
            parser.skipSpace()
            guard parser.offset == parser.bytes.count else { throw parser.error("text after the value") }
            return value
        }
    }

    init(parsing text: String) throws {
        try self.init(parsing: Data(text.utf8))
    }
}

/// A small recursive-descent JSON parser with a depth limit.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func error(_ what: String) -> HarnessError {
        HarnessError("invalid JSON at byte \(offset): \(what)")
    }

    mutating func skipSpace() {
        while offset < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[offset]) { offset += 1 }
    }

    mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard offset < bytes.count, bytes[offset] == byte else {
            throw error("expected '\(Character(UnicodeScalar(byte)))'")
        }
        offset += 1
    }

    mutating func value(depth: Int) throws -> JSON {
        guard depth < 512 else { throw error("nested too deeply") }
        skipSpace()
        guard offset < bytes.count else { throw error("unexpected end") }
        switch bytes[offset] {
        case UInt8(ascii: "{"):
            offset += 1
            var fields: [String: JSON] = [:]
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(fields)
            }
            while true {
                skipSpace()
                let key = try string()
                try expect(UInt8(ascii: ":"))
                fields[key] = try value(depth: depth + 1)
                skipSpace()
                guard offset < bytes.count else { throw error("unexpected end in an object") }
                if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                try expect(UInt8(ascii: "}"))
                return .object(fields)
            }
        case UInt8(ascii: "["):
            offset += 1
            var items: [JSON] = []
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(items)
            }
            while true {
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard offset < bytes.count else { throw error("unexpected end in an array") }
                if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                try expect(UInt8(ascii: "]"))
                return .array(items)
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): return try word("true", .bool(true))
        case UInt8(ascii: "f"): return try word("false", .bool(false))
        case UInt8(ascii: "n"): return try word("null", .null)
        default: return try number()
        }
    }

    mutating func word(_ text: String, _ value: JSON) throws -> JSON {
        let utf8 = Array(text.utf8)
        guard offset + utf8.count <= bytes.count, Array(bytes[offset..<offset + utf8.count]) == utf8 else {
            throw error("expected \(text)")
        }
        offset += utf8.count
        return value
    }

    mutating func number() throws -> JSON {
        let start = offset
        var isInteger = true
        while offset < bytes.count {
            let byte = bytes[offset]
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") {
                offset += 1
            } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                || byte == UInt8(ascii: "+")
            {
                isInteger = false
                offset += 1
            } else {
                break
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text) else { throw error("bad number '\(text)'") }
        return .double(value)
    }

    mutating func string() throws -> String {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw error("expected a string") }
        offset += 1
        var scalars = String.UnicodeScalarView()
        var run = offset
        func flush(_ end: Int) {
            scalars.append(
                contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[run..<end]), as: UTF8.self)
                    .unicodeScalars)
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                flush(offset)
                offset += 1
                return String(scalars)
            }
            if byte == UInt8(ascii: "\\") {
                flush(offset)
                offset += 1
                guard offset < bytes.count else { break }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                        bytes[offset + 1] == UInt8(ascii: "u")
                    {
                        offset += 2
                        let low = try hex4()
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    scalars.append(UnicodeScalar(code) ?? "\u{FFFD}")
                default: scalars.append(UnicodeScalar(escape))
                }
                run = offset
                continue
            }
            offset += 1
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws -> UInt32 {
        guard offset + 4 <= bytes.count,
            let value = UInt32(
                String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + 4]), as: UTF8.self), radix: 16)
        else { throw error("bad \\u escape") }
        offset += 4
        return value
    }
}
