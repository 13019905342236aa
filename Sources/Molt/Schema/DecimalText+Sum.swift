import Foundation

extension DecimalText {
    /// An exact sum of decimals: added in `Decimal` while every addition is exact, and digit by digit, with as
    /// many digits as it takes, from the first one that `Decimal` would round (a 38-digit value and `0.1`).
    ///
    /// ```swift
    /// var sum = DecimalText.Sum()
    /// sum.add(Decimal(string: "99999999999999999999999999999999999999")!)
    /// sum.add(Decimal(string: "0.1")!)
    /// sum.text        // "99999999999999999999999999999999999999.1"
    /// sum.decimal     // nil: no Decimal holds it
    /// ```
    package struct Sum {
        /// The sum while `Decimal` holds it exactly.
        private var fast = Decimal(0)
        /// The sum digit by digit, once an addition in `Decimal` would have rounded.
        private var exact: ExactSum?

        package init() {}

        package mutating func add(_ value: Decimal) {
            if exact == nil {
                var total = Decimal(), lhs = fast, rhs = value
                if NSDecimalAdd(&total, &lhs, &rhs, .plain) == .noError {
                    fast = total
                    return
                }
                exact = ExactSum(fast)
            }
            exact?.add(value)
        }

        /// The sum's canonical text, every digit kept.
        package var text: String { exact?.text ?? DecimalText.text(fast) }

        /// The sum, when a `Decimal` holds it exactly; nil when it has more digits than a `Decimal` holds.
        package var decimal: Decimal? { exact.map { DecimalText.decimal(fromText: $0.text) } ?? fast }
    }

    /// A sum of decimal numbers with as many digits as it needs: the positive and the negative terms are added
    /// apart, as magnitudes of decimal digits over a common number of fraction digits, and subtracted at the end.
    private struct ExactSum {
        /// Digits, least significant first, of the sum of the positive terms and of the negative ones' magnitudes.
        private var positive: [UInt8] = [], negative: [UInt8] = []
        /// How many of the digits are after the decimal point.
        private var scale = 0

        init(_ start: Decimal) { add(start) }

        mutating func add(_ value: Decimal) {
            guard let number = Number(DecimalText.text(value).utf8) else { return }
            let fraction = number.fraction.count
            if fraction > scale {
                let shift = [UInt8](repeating: 0, count: fraction - scale)
                positive.insert(contentsOf: shift, at: 0)
                negative.insert(contentsOf: shift, at: 0)
                scale = fraction
            }
            // The term's digits, least significant first, aligned to `scale` fraction digits.
            let zero = UInt8(ascii: "0")
            var digits = [UInt8](repeating: 0, count: scale - fraction)
            digits.reserveCapacity(digits.count + fraction + number.integer.count)
            for digit in (number.integer + number.fraction).reversed() { digits.append(digit - zero) }
            if number.isNegative {
                Self.add(digits, to: &negative)
            } else {
                Self.add(digits, to: &positive)
            }
        }

        private static func add(_ digits: [UInt8], to total: inout [UInt8]) {
            if total.count < digits.count {
                total.append(contentsOf: repeatElement(0, count: digits.count - total.count))
            }
            var carry: UInt8 = 0
            var index = 0
            while index < digits.count || carry != 0 {
                if index == total.count { total.append(0) }
                let digit = total[index] + (index < digits.count ? digits[index] : 0) + carry
                total[index] = digit % 10
                carry = digit / 10
                index += 1
            }
        }

        /// `lhs - rhs` for magnitudes with `lhs >= rhs`.
        private static func subtract(_ rhs: [UInt8], from lhs: [UInt8]) -> [UInt8] {
            var result = lhs
            var borrow: Int = 0
            for index in result.indices {
                var digit = Int(result[index]) - borrow - (index < rhs.count ? Int(rhs[index]) : 0)
                borrow = digit < 0 ? 1 : 0
                if digit < 0 { digit += 10 }
                result[index] = UInt8(digit)
            }
            return result
        }

        private static func trimmed(_ digits: [UInt8]) -> ArraySlice<UInt8> {
            let end = (digits.lastIndex(where: { $0 != 0 }) ?? -1) + 1
            return digits[..<end]
        }

        /// Whether magnitude `lhs` is smaller than `rhs`.
        private static func less(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
            let (a, b) = (trimmed(lhs), trimmed(rhs))
            if a.count != b.count { return a.count < b.count }
            for index in a.indices.reversed() where a[index] != b[index] { return a[index] < b[index] }
            return false
        }

        var text: String {
            let isNegative = Self.less(positive, negative)
            let magnitude =
                isNegative ? Self.subtract(positive, from: negative) : Self.subtract(negative, from: positive)
            let zero = UInt8(ascii: "0")
            var integer = magnitude.count > scale ? Array(magnitude[scale...].reversed()) : []
            var fraction = Array(magnitude.prefix(scale).reversed())
            while integer.first == 0 { integer.removeFirst() }
            while fraction.last == 0 { fraction.removeLast() }
            if integer.isEmpty && fraction.isEmpty { return "0" }
            var result = isNegative ? "-" : ""
            result += integer.isEmpty ? "0" : String(decoding: integer.map { $0 + zero }, as: UTF8.self)
            if !fraction.isEmpty { result += "." + String(decoding: fraction.map { $0 + zero }, as: UTF8.self) }
            return result
        }
    }
}
