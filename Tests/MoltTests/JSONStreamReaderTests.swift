import Foundation
import Testing

import Molt
@testable import MoltTooling

/// The import's JSON reader: its quick paths (strings without escapes, integers within the bytes read) give the
/// same values and refusals as the long ones.
@Suite("JSON stream reader")
struct JSONStreamReaderTests {
    static func read(_ text: String) throws -> JSONValue {
        try JSONStreamReader(bytes: Array(text.utf8)).value()
    }

    static func readBytes(_ bytes: [UInt8]) throws -> JSONValue { try JSONStreamReader(bytes: bytes).value() }

    @Test("integers, including both ends of 64 bits, and numbers that are not integers")
    func numbers() throws {
        #expect(
            try Self.read("[0, -0, 7, -12, 9223372036854775807, -9223372036854775808]")
                == .array([
                    .int(0), .int(0), .int(7), .int(-12), .int(.max), .int(.min),
                ]))
        #expect(
            try Self.read("[1.5, -2e3, 1E2, 0.25]")
                == .array([.double(1.5), .double(-2000), .double(100), .double(0.25)]))
        #expect(try Self.read("9007199254740993.5") == .double(9007199254740993.5))
        #expect(try Self.read("18446744073709551616") == .double(18446744073709551616))
        #expect(throws: JSONStreamReader.Failure.self) { try Self.read("18446744073709551617") }
        #expect(throws: JSONStreamReader.Failure.self) { try Self.read("[01]") }
        #expect(throws: JSONStreamReader.Failure.self) { try Self.read("[-]") }
        #expect(throws: JSONStreamReader.Failure.self) { try Self.read("[1-2]") }
    }

    @Test("strings: plain, non-ASCII, escaped; invalid UTF-8 and control characters refused")
    func strings() throws {
        #expect(
            try Self.read(#"["plain", "Käse 🧀", "a\"b\\c\n", "\u00e9"]"#)
                == .array([
                    .string("plain"), .string("Käse 🧀"), .string("a\"b\\c\n"), .string("é"),
                ]))
        #expect(throws: JSONStreamReader.Failure.self) { try Self.readBytes([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONStreamReader.Failure.self) { try Self.readBytes([0x22, 0x61, 0x0A, 0x22]) }
    }

    @Test("values that cross the reader's buffer are read whole")
    func acrossTheBuffer() throws {
        // The buffer holds 256 KiB: place a string and an integer across its end.
        let padding = String(repeating: " ", count: (1 << 18) - 3)
        let long = String(repeating: "é", count: 10)
        #expect(try Self.read(#"[\#(padding)"\#(long)"]"#) == .array([.string(long)]))
        #expect(try Self.read("[\(padding)1234567]") == .array([.int(1_234_567)]))
        #expect(try Self.read("[\(padding)-98765, 5]") == .array([.int(-98_765), .int(5)]))
    }
}
