import Foundation
import Molt
import MoltTooling

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes written to a file descriptor through a 256 KiB buffer: how `molt export` streams a store of any size in
/// bounded memory, writing JSON (in exactly the form `JSONEncoder` gives with `.prettyPrinted` and `.sortedKeys`)
/// or CSV object by object.
///
/// ```swift
/// let out = ByteSink(descriptor: STDOUT_FILENO)
/// out.append("{")
/// out.appendJSONString("Ünïcødé \"quoted\"")
/// try out.flush()
/// ```
final class ByteSink {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private let capacity = 1 << 18

    init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(capacity + 4096)
    }

    /// What is buffered and not yet written.
    var pending: [UInt8] { buffer }

    /// Appends text as UTF-8.
    @inline(__always)
    func append(_ text: String) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
    }

    /// Appends one byte.
    @inline(__always)
    func append(byte: UInt8) { buffer.append(byte) }

    /// Appends pre-encoded bytes.
    @inline(__always)
    func append(bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    /// Appends an integer in decimal.
    func append(_ value: Int64) {
        if value >= 0 && value < 10 {
            buffer.append(UInt8(48 + value))
            return
        }
        append(String(value))
    }

    /// Writes the buffer when it is full.
    @inline(__always)
    func flushIfFull() throws {
        if buffer.count >= capacity { try flush() }
    }

    /// Writes everything buffered to the descriptor.
    ///
    /// - Throws: ``CLIFailure`` when the descriptor refuses bytes (a closed pipe, a full disk).
    func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { raw in
                write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                buffer.removeAll(keepingCapacity: true)
                throw CLIFailure(.failure, "The output could not be written (\(reason)); the export is incomplete.")
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: JSON, as JSONEncoder writes it

    /// A JSON string: `"`, `\`, and the control characters escaped as `JSONEncoder` escapes them; `/` and
    /// everything else as is.
    func appendJSONString(_ text: String) {
        buffer.append(0x22)
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                start = index + 1
                switch byte {
                case 0x22: buffer.append(contentsOf: [0x5C, 0x22])
                case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
                case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
                case 0x08: buffer.append(contentsOf: [0x5C, 0x62])
                case 0x0C: buffer.append(contentsOf: [0x5C, 0x66])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    buffer.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        buffer.append(0x22)
    }

    /// A JSON number for a double, as `JSONEncoder` writes it: Swift's shortest round-trip form without a
    /// trailing `.0`. (Infinities are written by the caller, as strings.)
    func appendJSONNumber(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        append(text)
    }

    /// A value in the form of the export file (``DataFile``), straight from a store value.
    func appendJSON(_ value: Value) {
        switch value {
        case .null: append("null")
        case .string(let v): appendJSONString(v)
        case .int(let v): append(v)
        case .double(let v):
            if v.isInfinite { append(v < 0 ? "\"-Infinity\"" : "\"Infinity\"") } else { appendJSONNumber(v) }
        case .bool(let v): append(v ? "true" : "false")
        case .date(let v): appendJSONNumber(v.timeIntervalSince1970)
        case .data(let v): appendJSONString(v.base64EncodedString())
        case .uuid(let v): appendJSONString(v.uuidString)
        case .decimal(let v): appendJSONString(DecimalText.text(v))
        }
    }
}
