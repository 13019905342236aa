import Foundation

/// The parts of SQL literals every engine writes alike; each ``SQLDialect`` wraps them in its own syntax.
package enum SQLLiteral {
    /// `text` between single quotes, each quote doubled (standard SQL).
    ///
    /// ```swift
    /// SQLLiteral.quoted("it's")   // 'it''s'
    /// ```
    package static func quoted(_ text: String) -> String {
        // Text without an apostrophe (most of it) is copied whole, not appended scalar by scalar.
        guard text.utf8.contains(UInt8(ascii: "'")) else { return "'\(text)'" }
        var result = "'"
        for scalar in text.unicodeScalars {
            if scalar == "'" { result += "''" } else { result.unicodeScalars.append(scalar) }
        }
        return result + "'"
    }

    /// The bytes as hexadecimal digits, two per byte.
    package static func hex(_ data: Data, uppercase: Bool = false) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(data.count * 2)
        for byte in data {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
