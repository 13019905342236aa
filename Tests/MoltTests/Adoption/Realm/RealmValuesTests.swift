import Foundation
import Molt
import Testing

@testable import MoltAdoption

/// How Realm's values become Molt's: a `Decimal128` as the same `Decimal` or refused, a timestamp as the `Date`
/// Realm Swift reads; and every edge value of realm-core's file of all types either converted exactly or refused.
@Suite("Realm files: values")
struct RealmValuesTests {
    /// The BID128 decimal `coefficient` × 10^`exponent`.
    static func decimal(_ coefficient: UInt64, exponent: Int, negative: Bool = false) -> RealmDecimal128 {
        RealmDecimal128(low: coefficient, high: (negative ? 1 << 63 : 0) | UInt64(exponent + 6176) << 49)
    }

    @Test(
        "a Decimal128 is the same Decimal, its scale dropped, or refused when Decimal cannot hold it",
        arguments: [
            (decimal(15, exponent: -1), "1.5"), (decimal(110, exponent: -2), "1.1"), (decimal(0, exponent: -2), "0"),
            (decimal(0, exponent: 0, negative: true), "0"), (decimal(42, exponent: 0, negative: true), "-42"),
            (decimal(1, exponent: 127), "1" + String(repeating: "0", count: 127)),
            (decimal(1, exponent: 130), "1" + String(repeating: "0", count: 130)),
            (decimal(123_456_789_012_345_678, exponent: -18), "0.123456789012345678"),
            (decimal(1, exponent: -6176), nil), (decimal(1, exponent: 6111), nil),
            (RealmDecimal128(low: 0, high: 0x7c00_0000_0000_0000), nil),
            (RealmDecimal128(low: 0, high: 0xf800_0000_0000_0000), nil),
        ] as [(RealmDecimal128, String?)])
    func decimals(number: RealmDecimal128, expected: String?) {
        let converted = RealmValues.decimal(number)
        #expect(converted.map { "\($0)" } == expected, "\(number)")
    }

    @Test("34 digits, the most a Decimal128 has, are kept whole")
    func thirtyFourDigits() throws {
        // 10^34 - 1 = 0x1ED09BEAD87C0_378D8E63FFFFFFFF.
        let number = RealmDecimal128(low: 0x378D_8E63_FFFF_FFFF, high: 0x0001_ED09_BEAD_87C0 | UInt64(6176 - 4) << 49)
        let converted = try #require(RealmValues.decimal(number))
        #expect("\(converted)" == "999999999999999999999999999999.9999")
    }

    @Test("a timestamp is the Date Realm Swift reads: seconds + nanoseconds / 1e9 since 1970")
    func dates() {
        let stamp = RealmTimestamp(seconds: 1_700_003_637, nanoseconds: 919_000_000)
        #expect(RealmValues.date(stamp) == Date(timeIntervalSince1970: 1_700_003_637.919))
        #expect(RealmValues.date(RealmTimestamp(seconds: -1, nanoseconds: -500_000_000)).timeIntervalSince1970 == -1.5)
        #expect(RealmValues.date(RealmTimestamp(seconds: 0, nanoseconds: 0)) == Date(timeIntervalSince1970: 0))
    }

    @Test(
        "every scalar of the file of all types converts or is refused naming the object, never anything else",
        .enabled(if: ForeignStores.isPresent, "needs ../shared/foreign-stores"))
    func allTypesScalars() throws {
        let file = try RealmFile(at: ForeignStores.url("realm/alltypes.realm"))
        let table = try #require(file.table(named: "class_AllTypes"))
        var converted = 0
        var refused: Set<String> = []
        try file.forEachObject(in: table) { object in
            for (index, column) in table.columns.enumerated()
            where column.collection == .none && ![.mixed, .link, .backlink, .typedLink].contains(column.kind) {
                do {
                    _ = try RealmValues.value(object.values[index], column, of: "AllTypes", key: object.key)
                    converted += 1
                } catch let error as MoltError {
                    #expect(error.code == .invalidValue && error.property == column.name, "\(error)")
                    refused.insert(column.name)
                }
            }
        }
        #expect(converted > 0)
        // NaN in the floating-point columns and the decimals a Decimal cannot hold (1E-6176, NaN, -Inf); nothing else.
        let floatingOrDecimal = refused.allSatisfy { name in
            ["float", "double", "decimal"].contains { name.lowercased().contains($0) }
        }
        #expect(floatingOrDecimal, "\(refused)")
    }
}
