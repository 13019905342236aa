import Foundation

/// The one text form of a `decimal` value, and the comparison of such texts by value.
///
/// A decimal is stored as its canonical text: an optional `-`, the integer digits without leading zeros
/// (`0` for none), and the fraction digits, if any, without trailing zeros — `19.99`, `-0.5`, `100`,
/// `12345678901234567890123456789012345678`. The text keeps every digit of a `Decimal` (38 significant
/// digits), reads the same in any tool, and is what `molt export` writes. SQLite compares it with the
/// ``collationName`` collation (``compare(_:_:)``), so that `<`, `=`, `ORDER BY` and indexes go by value
/// (`-10 < -9.5 < 1.1 = 1.10 < 9 < 10`); PostgreSQL stores a `numeric`, which compares by value itself.
///
/// Reading is strict: ``decimal(fromText:)`` accepts only a number written with digits (an exponent allowed)
/// that a `Decimal` holds exactly, where `Decimal(string:)` would read `1.5x` as 1.5 and round a 40th digit.
package enum DecimalText {
    /// The name of the SQLite collation that orders decimal texts by value.
    package static let collationName = "molt_decimal"

    /// The canonical text of a decimal (`Decimal`'s own description, which has that form).
    package static func text(_ value: Decimal) -> String { value.description }

    /// The decimal that `text` writes, when a `Decimal` holds it exactly; nil for anything else.
    ///
    /// ```swift
    /// DecimalText.decimal(fromText: "1.10")    // 1.1
    /// DecimalText.decimal(fromText: "1e3")     // 1000
    /// DecimalText.decimal(fromText: "1.5x")    // nil
    /// ```
    package static func decimal(fromText text: String) -> Decimal? {
        guard let number = Number(text.utf8), let value = Decimal(string: number.text) else { return nil }
        // 38 digits at most make a mantissa below 10^38 < 2^128 and an exponent within -38: a Decimal holds the
        // number exactly. Beyond, `Decimal(string:)` may have rounded: the value must read back the same.
        if number.integer.count + number.fraction.count <= 38 { return value }
        return value.description == number.text ? value : nil
    }

    /// The canonical text of the number `text` writes (`-01.50e1` → `-15`), or nil when it is not one.
    package static func canonical(_ text: String) -> String? {
        Number(text.utf8)?.text
    }

    /// The order of two texts by the numbers they write; texts that write no number come after every number,
    /// in byte order. Equal numbers are equal whatever their form (`1.1` and `1.10`).
    package static func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        switch (Number(lhs.utf8), Number(rhs.utf8)) {
        case (let a?, let b?): return a.compare(b)
        case (.some, nil): return .orderedAscending
        case (nil, .some): return .orderedDescending
        case (nil, nil): return lhs == rhs ? .orderedSame : (lhs < rhs ? .orderedAscending : .orderedDescending)
        }
    }

    /// A number read from text: sign, integer digits without leading zeros, fraction digits without trailing
    /// zeros (zero has neither, and no sign).
    struct Number {
        var isNegative = false
        var integer: [UInt8] = []
        var fraction: [UInt8] = []

        init?<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
            var digits: [UInt8] = []
            var point: Int?
            var index = bytes.startIndex
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                isNegative = bytes[index] == UInt8(ascii: "-")
                index = bytes.index(after: index)
            }
            while index < bytes.endIndex {
                let byte = bytes[index]
                if (48...57).contains(byte) {
                    digits.append(byte)
                } else if byte == UInt8(ascii: "."), point == nil {
                    point = digits.count
                } else {
                    break
                }
                index = bytes.index(after: index)
            }
            guard !digits.isEmpty else { return nil }
            var integerCount = point ?? digits.count
            if index < bytes.endIndex {
                guard let exponent = Self.exponent(bytes[index...]) else { return nil }
                integerCount += exponent
            }
            self.split(digits, integerCount: integerCount)
        }

        /// The exponent of `e…` text that ends the number, within ±1000; nil for anything else.
        private static func exponent<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
            guard let first = bytes.first, first == UInt8(ascii: "e") || first == UInt8(ascii: "E") else { return nil }
            guard let value = Int(String(decoding: bytes.dropFirst(), as: UTF8.self)), abs(value) <= 1000,
                bytes.dropFirst().allSatisfy({ (48...57).contains($0) || $0 == 43 || $0 == 45 })
            else { return nil }
            return value
        }

        private mutating func split(_ digits: [UInt8], integerCount: Int) {
            let zero = UInt8(ascii: "0")
            if integerCount <= 0 {
                fraction = [UInt8](repeating: zero, count: -integerCount) + digits
            } else if integerCount >= digits.count {
                integer = digits + [UInt8](repeating: zero, count: integerCount - digits.count)
            } else {
                integer = Array(digits[..<integerCount])
                fraction = Array(digits[integerCount...])
            }
            if let first = integer.firstIndex(where: { $0 != zero }) {
                integer.removeFirst(first)
            } else {
                integer = []
            }
            while fraction.last == zero { fraction.removeLast() }
            if integer.isEmpty && fraction.isEmpty { isNegative = false }
        }

        /// The canonical text.
        var text: String {
            var result = isNegative ? "-" : ""
            result += integer.isEmpty ? "0" : String(decoding: integer, as: UTF8.self)
            if !fraction.isEmpty { result += "." + String(decoding: fraction, as: UTF8.self) }
            return result
        }

        func compare(_ other: Number) -> ComparisonResult {
            if isNegative != other.isNegative { return isNegative ? .orderedAscending : .orderedDescending }
            let magnitude = compareMagnitude(other)
            guard isNegative else { return magnitude }
            switch magnitude {
            case .orderedAscending: return .orderedDescending
            case .orderedDescending: return .orderedAscending
            case .orderedSame: return .orderedSame
            }
        }

        private func compareMagnitude(_ other: Number) -> ComparisonResult {
            if integer.count != other.integer.count {
                return integer.count < other.integer.count ? .orderedAscending : .orderedDescending
            }
            for (a, b) in zip(integer, other.integer) where a != b {
                return a < b ? .orderedAscending : .orderedDescending
            }
            for (a, b) in zip(fraction, other.fraction) where a != b {
                return a < b ? .orderedAscending : .orderedDescending
            }
            if fraction.count == other.fraction.count { return .orderedSame }
            return fraction.count < other.fraction.count ? .orderedAscending : .orderedDescending
        }
    }
}
