import Foundation

/// An IEEE 754-2008 decimal128 in binary-integer decimal (BID) encoding, as realm-core stores `Decimal128`.
///
/// Realm stores a column's decimals in 4, 8 or 16 bytes each (BID32, BID64, BID128), as small as its values
/// allow; each is widened here to the 128-bit form without changing its value. ``description`` writes the
/// value exactly (`coefficient E exponent`), never through a binary floating point.
package struct RealmDecimal128: Sendable, Hashable, CustomStringConvertible {
    /// The low and high 64-bit words of the BID128 encoding.
    package var low: UInt64
    package var high: UInt64

    package init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// Realm's null decimal (a NaN with payload 0xaa).
    static let null = RealmDecimal128(low: 0xaa, high: 0x7c00_0000_0000_0000)

    var isNaN: Bool { high & 0x7c00_0000_0000_0000 == 0x7c00_0000_0000_0000 }
    var isInfinite: Bool { !isNaN && high & 0x7800_0000_0000_0000 == 0x7800_0000_0000_0000 }
    var isNegative: Bool { high & 0x8000_0000_0000_0000 != 0 }

    /// The exponent (bias 6176 removed) and the coefficient's two words, for a finite value.
    var parts: (exponent: Int, coefficientHigh: UInt64, coefficientLow: UInt64) {
        if high & 0x6000_0000_0000_0000 == 0x6000_0000_0000_0000 {
            // The "large coefficient" form: always more than 34 digits, so non-canonical: the value is zero.
            let exponent = Int((high >> 47) & 0x3FFF) - 6176
            return (exponent, 0, 0)
        }
        let exponent = Int((high >> 49) & 0x3FFF) - 6176
        let coefficientHigh = high & 0x0001_FFFF_FFFF_FFFF
        // A coefficient of more than 34 digits (above 10^34 - 1) is non-canonical and reads as zero.
        if coefficientHigh > 0x1_ED09_BEAD_87C0
            || (coefficientHigh == 0x1_ED09_BEAD_87C0 && low > 0x378D_8E63_FFFF_FFFF)
        {
            return (exponent, 0, 0)
        }
        return (exponent, coefficientHigh, low)
    }

    /// Widens a BID32 (bias 101) or BID64 (bias 398) value of `bits` bits to BID128, value for value.
    init(narrow value: UInt64, bits: Int) {
        let sign: UInt64 = (value >> UInt64(bits - 1)) & 1
        let exponentBits = bits == 32 ? 8 : 10
        let bias = bits == 32 ? 101 : 398
        let combination = (value >> UInt64(bits - 3)) & 3  // The two bits after the sign.
        let special = (value >> UInt64(bits - 5)) & 0xF  // The four bits after the sign.
        if special == 0xF {
            // NaN (quiet or signaling), payload dropped: realm-core keeps NaNs as NaN.
            self.init(low: 0, high: sign << 63 | 0x7c00_0000_0000_0000)
            return
        }
        if special == 0xE {
            self.init(low: 0, high: sign << 63 | 0x7800_0000_0000_0000)
            return
        }
        let exponent: Int
        var coefficient: UInt64
        let coefficientBits = bits - 1 - exponentBits
        if combination == 3 {
            exponent = Int((value >> UInt64(coefficientBits - 2)) & ((1 << UInt64(exponentBits)) - 1))
            coefficient = (value & ((1 << UInt64(coefficientBits - 2)) - 1)) | (1 << UInt64(coefficientBits))
        } else {
            exponent = Int((value >> UInt64(coefficientBits)) & ((1 << UInt64(exponentBits)) - 1))
            coefficient = value & ((1 << UInt64(coefficientBits)) - 1)
        }
        let maximum: UInt64 = bits == 32 ? 9_999_999 : 9_999_999_999_999_999
        if coefficient > maximum { coefficient = 0 }  // Non-canonical: zero, as IEEE says.
        let biased = UInt64(exponent - bias + 6176)
        self.init(low: coefficient, high: sign << 63 | biased << 49)
    }

    /// The value written exactly: `-123E-2`, `0E+0`, `NaN`, `-Inf`.
    package var description: String {
        if isNaN { return "NaN" }
        if isInfinite { return isNegative ? "-Inf" : "+Inf" }
        let (exponent, coefficientHigh, coefficientLow) = parts
        let digits = Self.decimalDigits(high: coefficientHigh, low: coefficientLow)
        return "\(isNegative ? "-" : "")\(digits)E\(exponent >= 0 ? "+" : "")\(exponent)"
    }

    /// The decimal digits of the 128-bit unsigned integer `high:low`.
    static func decimalDigits(high: UInt64, low: UInt64) -> String {
        var words = [UInt32(high >> 32), UInt32(high & 0xFFFF_FFFF), UInt32(low >> 32), UInt32(low & 0xFFFF_FFFF)]
        var chunks: [UInt32] = []
        while words.contains(where: { $0 != 0 }) {
            var remainder: UInt64 = 0
            for index in words.indices {
                let current = remainder << 32 | UInt64(words[index])
                words[index] = UInt32(current / 1_000_000_000)
                remainder = current % 1_000_000_000
            }
            chunks.append(UInt32(remainder))
        }
        guard let last = chunks.popLast() else { return "0" }
        return String(last) + chunks.reversed().map { String(format: "%09u", $0) }.joined()
    }
}
