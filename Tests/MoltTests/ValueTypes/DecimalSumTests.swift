import Foundation
import Testing
@testable import Molt

/// `DecimalText.Sum`: exact whatever the terms, in `Decimal` while that is exact and digit by digit past it.
@Suite("Decimal sums: exact or refused")
struct DecimalSumTests {
    static func sum(_ texts: [String]) -> DecimalText.Sum {
        var sum = DecimalText.Sum()
        for text in texts { sum.add(Decimal(string: text)!) }
        return sum
    }

    static let nines = String(repeating: "9", count: 38)

    @Test(
        "terms of every sign and scale add up exactly",
        arguments: [
            ([], "0"), (["0.1", "0.2"], "0.3"), (["-10", "-9.5", "0.25"], "-19.25"),
            ([nines, "0.1"], "\(nines).1"), (["-\(nines)", "-0.01"], "-\(nines).01"),
            ([nines, nines], "1" + String(repeating: "9", count: 37) + "8"),
            ([nines, "0.1", "-0.1"], nines), ([nines, "0.5", "-\(nines)", "-0.25"], "0.25"),
            ([nines, "1", "-\(nines)", "-1"], "0"),
            (["-\(nines)", "-1", "1e-30", nines], "-0.999999999999999999999999999999"),
        ])
    func exact(terms: [String], expected: String) {
        let sum = Self.sum(terms)
        #expect(sum.text == expected)
        #expect(sum.decimal.map(DecimalText.text) == DecimalText.decimal(fromText: expected).map(DecimalText.text))
    }

    @Test("a sum a Decimal cannot hold has no decimal, and its text has every digit")
    func beyondDecimal() {
        let sum = Self.sum([Self.nines, "0.1"])
        #expect(sum.decimal == nil)
        #expect(sum.text == "\(Self.nines).1")
    }
}
