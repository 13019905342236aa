import Foundation
import Molt

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON reader that pulls values from a file descriptor through a 256 KiB buffer, so that `molt import` reads a
/// file of any size (or a pipe) in bounded memory (or from bytes in memory, for tests and fuzzing): the caller walks the outer objects and arrays and reads each
/// export object whole, as a ``JSONValue``.
///
/// ```swift
/// let reader = JSONStreamReader(descriptor: fd)
/// try reader.beginObject()
/// while let key = try reader.nextKey() {
///     if key == "entities" { … } else { try reader.skipValue() }
/// }
/// try reader.expectEnd()
/// ```
///
/// Errors are ``JSONStreamReader/Failure``s with a short reason and the byte offset.
package final class JSONStreamReader {
    package struct Failure: Error {
        package var reason: String
    }

    /// How deep arrays and objects may nest inside one value: deeper input is refused, not recursed into.
    package static let maximumDepth = 512

    /// Where the bytes come from: a file descriptor, or the rest of bytes held in memory.
    private enum Source {
        case descriptor(Int32)
        case bytes([UInt8], next: Int)
    }

    private var source: Source
    private var buffer = [UInt8](repeating: 0, count: 1 << 18)
    private var start = 0, end = 0
    private var consumed = 0
    /// Whether the current container has had an element yet (a stack, one entry per open container).
    private var firsts: [Bool] = []

    /// A reader of the file (or pipe) open at `descriptor`, which the caller keeps open while reading and closes.
    package init(descriptor: Int32) { source = .descriptor(descriptor) }

    /// A reader of `bytes`.
    package init(bytes: [UInt8]) { source = .bytes(bytes, next: 0) }

    /// How many bytes were consumed so far, for progress.
    package var bytesRead: Int { consumed + start }

    // MARK: Bytes

    private func fill() throws -> Bool {
        consumed += end
        start = 0
        end = 0
        if case .bytes(let bytes, let next) = source {
            end = min(buffer.count, bytes.count - next)
            buffer.withUnsafeMutableBufferPointer { _ = $0.initialize(from: bytes[next..<(next + end)]) }
            source = .bytes(bytes, next: next + end)
            return end > 0
        }
        guard case .descriptor(let descriptor) = source else { return false }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw Failure(reason: "the file could not be read: \(String(cString: strerror(errno)))")
            }
            end = count
            return count > 0
        }
    }

    @inline(__always)
    private func peek() throws -> UInt8? {
        if start == end, try !fill() { return nil }
        return buffer[start]
    }

    @inline(__always)
    private func next() throws -> UInt8 {
        guard let byte = try peek() else { throw failure("the file ends in the middle of a value") }
        start += 1
        return byte
    }

    private func failure(_ reason: String) -> Failure {
        Failure(reason: "\(reason) (at byte \(consumed + start))")
    }

    /// The next byte that is not white space, without consuming it.
    private func peekToken() throws -> UInt8? {
        while let byte = try peek() {
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
            start += 1
        }
        return nil
    }

    private func expect(_ byte: UInt8, _ what: String) throws {
        guard try peekToken() == byte else { throw failure("expected \(what)") }
        start += 1
    }

    // MARK: Walking containers

    /// Consumes `{`.
    package func beginObject() throws {
        try expect(0x7B, "'{'")
        firsts.append(true)
    }

    /// The next key of the current object (its `:` consumed), or nil at its `}` (consumed).
    package func nextKey() throws -> String? {
        if try peekToken() == 0x7D {
            start += 1
            firsts.removeLast()
            return nil
        }
        if firsts[firsts.count - 1] { firsts[firsts.count - 1] = false } else { try expect(0x2C, "',' or '}'") }
        guard try peekToken() == 0x22 else { throw failure("expected a key in double quotes") }
        start += 1
        let key = try string()
        try expect(0x3A, "':'")
        return key
    }

    /// Consumes `[`.
    package func beginArray() throws {
        try expect(0x5B, "'['")
        firsts.append(true)
    }

    /// Whether the current array has another element (its `,` consumed); consumes `]` at the end.
    package func nextElement() throws -> Bool {
        if try peekToken() == 0x5D {
            start += 1
            firsts.removeLast()
            return false
        }
        if firsts[firsts.count - 1] { firsts[firsts.count - 1] = false } else { try expect(0x2C, "',' or ']'") }
        return true
    }

    /// What the next value is: `{`, `[`, `"`, or the first byte of a literal or number.
    package func peekValue() throws -> UInt8? { try peekToken() }

    /// Checks that nothing but white space follows the top-level value.
    package func expectEnd() throws {
        if try peekToken() != nil { throw failure("unexpected text after the end of the JSON value") }
    }

    /// Reads a value whole.
    package func value(depth: Int = 0) throws -> JSONValue {
        guard depth < Self.maximumDepth else {
            throw failure("arrays or objects nested more than \(Self.maximumDepth) deep")
        }
        guard let byte = try peekToken() else { throw failure("the file ends where a value should be") }
        switch byte {
        case 0x7B:
            try beginObject()
            var fields: [String: JSONValue] = [:]
            fields.reserveCapacity(16)
            while let key = try nextKey() { fields[key] = try value(depth: depth + 1) }
            return .object(fields)
        case 0x5B:
            try beginArray()
            var items: [JSONValue] = []
            while try nextElement() { items.append(try value(depth: depth + 1)) }
            return .array(items)
        case 0x22:
            start += 1
            return .string(try string())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        default: return try number()
        }
    }

    /// Skips a value, however deep, without building it.
    package func skipValue() throws {
        var depth = 0
        repeat {
            guard let byte = try peekToken() else { throw failure("the file ends where a value should be") }
            switch byte {
            case 0x7B, 0x5B:
                start += 1
                depth += 1
                firsts.append(true)
            case 0x7D, 0x5D:
                guard depth > 0 else { throw failure("unexpected '\(Character(UnicodeScalar(byte)))'") }
                start += 1
                depth -= 1
                firsts.removeLast()
            case 0x2C, 0x3A:
                guard depth > 0 else { throw failure("unexpected '\(Character(UnicodeScalar(byte)))'") }
                start += 1
            default:
                _ = try value(depth: Self.maximumDepth - 1)
            }
        } while depth > 0
    }

    // MARK: Scalars

    private func literal(_ word: String) throws {
        for expected in word.utf8 where try next() != expected { throw failure("invalid literal, expected \(word)") }
    }

    private func number() throws -> JSONValue {
        if let integer = quickInteger() { return .int(integer) }
        var text: [UInt8] = []
        while let byte = try peek(),
            byte == 0x2D || byte == 0x2B || byte == 0x2E || byte == 0x45 || byte == 0x65 || (0x30...0x39).contains(byte)
        {
            text.append(byte)
            start += 1
        }
        let string = String(decoding: text, as: UTF8.self)
        guard !text.isEmpty, Self.isJSONNumber(text) else {
            throw failure(text.isEmpty ? "unexpected character" : "'\(string)' is not a number")
        }
        if !text.contains(where: { $0 == 0x2E || $0 == 0x45 || $0 == 0x65 }), let integer = Int64(string) {
            return .int(integer)
        }
        guard let double = Double(string), double.isFinite else {
            throw failure("the number \(string) is out of range")
        }
        // An integer beyond 64 bits is read as a double only when the double is that integer exactly.
        if !text.contains(where: { $0 == 0x2E || $0 == 0x45 || $0 == 0x65 }), String(format: "%.0f", double) != string {
            throw failure("the integer \(string) is beyond 64 bits and has no exact double")
        }
        return .double(double)
    }

    /// An integer (`-?[1-9][0-9]*` or `0`) that ends in the bytes already read and fits 64 bits, consumed; nil
    /// (nothing consumed) for anything else, which ``number()`` reads the long way.
    private func quickInteger() -> Int64? {
        buffer.withUnsafeBufferPointer { bytes in
            var index = start
            let negative = index < end && bytes[index] == 0x2D
            if negative { index += 1 }
            let first = index
            var value: Int64 = 0
            while index < end, (0x30...0x39).contains(bytes[index]) {
                let digit = Int64(bytes[index] - 0x30)
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) =
                    negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                guard !overflow, !overflow2 else { return nil }
                value = sum
                index += 1
            }
            let count = index - first
            guard count > 0, count == 1 || bytes[first] != 0x30, index < end else { return nil }
            switch bytes[index] {
            case 0x2E, 0x45, 0x65, 0x2B, 0x2D: return nil
            default:
                start = index
                return value
            }
        }
    }

    /// JSON's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private static func isJSONNumber(_ text: [UInt8]) -> Bool {
        var i = 0
        func digits() -> Int {
            let from = i
            while i < text.count, (0x30...0x39).contains(text[i]) { i += 1 }
            return i - from
        }
        if i < text.count, text[i] == 0x2D { i += 1 }
        let integerStart = i
        let count = digits()
        guard count > 0, count == 1 || text[integerStart] != 0x30 else { return false }
        if i < text.count, text[i] == 0x2E {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < text.count, text[i] == 0x45 || text[i] == 0x65 {
            i += 1
            if i < text.count, text[i] == 0x2B || text[i] == 0x2D { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == text.count
    }

    /// The rest of a string whose opening quote is consumed.
    private func string() throws -> String {
        // Most strings end in the bytes already read and hold no escape: read them in one piece.
        let quick: String?? = buffer.withUnsafeBufferPointer { bytes in
            var index = start
            var ascii = true
            while index < end {
                let byte = bytes[index]
                if byte == 0x22 {
                    let piece = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    // ASCII is valid UTF-8 as it is: decoding it cannot replace a byte.
                    let text = ascii ? String(decoding: piece, as: UTF8.self) : String(validating: piece, as: UTF8.self)
                    start = index + 1
                    return .some(text)
                }
                if byte == 0x5C || byte < 0x20 { return nil }
                ascii = ascii && byte < 0x80
                index += 1
            }
            return nil
        }
        if let quick {
            guard let text = quick else { throw failure("a string is not valid UTF-8") }
            return text
        }
        var bytes: [UInt8] = []
        while true {
            let byte = try next()
            switch byte {
            case 0x22:
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw failure("a string is not valid UTF-8")
                }
                return text
            case 0x5C:
                try escape(into: &bytes)
            case 0..<0x20:
                throw failure("a control character inside a string")
            default:
                bytes.append(byte)
            }
        }
    }

    private func escape(into bytes: inout [UInt8]) throws {
        let byte = try next()
        switch byte {
        case 0x22, 0x5C, 0x2F: bytes.append(byte)
        case 0x62: bytes.append(0x08)
        case 0x66: bytes.append(0x0C)
        case 0x6E: bytes.append(0x0A)
        case 0x72: bytes.append(0x0D)
        case 0x74: bytes.append(0x09)
        case 0x75:
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard try next() == 0x5C, try next() == 0x75 else {
                    throw failure("a lone UTF-16 surrogate in a string")
                }
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone UTF-16 surrogate in a string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("an invalid \\u escape in a string") }
            bytes.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw failure("an invalid escape in a string")
        }
    }

    private func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = try next()
            guard let digit = Character(UnicodeScalar(byte)).hexDigitValue else {
                throw failure("an invalid \\u escape in a string")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
