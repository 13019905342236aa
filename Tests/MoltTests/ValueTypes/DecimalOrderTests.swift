import Foundation
import Testing
@testable import Molt

/// Decimals compare and sort by value on every engine: negative numbers, differing scales and 38 digits
/// included (SQLite through the `molt_decimal` collation of its text, PostgreSQL through `numeric`).
@Suite("Decimal values: sorting and predicates by value")
struct DecimalOrderTests {
    static let schema = Schema(version: 1) {
        Entity("Price") {
            Attribute("label", .string)
            Attribute("amount", .decimal, isOptional: true)
        }
        Entity("Tagged") {
            Attribute("amount", .decimal)
            Index(["amount"], unique: true)
        }
    }

    /// Texts in the order of their values (1.1 and 1.10 are equal: both keep their insertion order).
    static let ordered = [
        "-12345678901234567890123456789012345678", "-100", "-10", "-9.5", "-0.001", "0",
        "0.000000000000000000000000000000000001",
        "0.5", "1.1", "1.10", "2", "9", "10", "100.25", "12345678901234567890123456789012345678",
    ]

    static func d(_ text: String) -> Value { .decimal(Decimal(string: text)!) }

    static func fill(_ store: Store) throws {
        // Inserted out of order, so that a sort that followed insertion (or text) order would show.
        let shuffled = [7, 3, 14, 0, 9, 5, 12, 1, 10, 8, 2, 13, 4, 11, 6]
        try store.write { objects in
            for i in shuffled {
                _ = try objects.insert("Price", ["label": .string(Self.ordered[i]), "amount": d(Self.ordered[i])])
            }
            _ = try objects.insert("Price", ["label": "none"])
        }
    }

    @Test("sorting by a decimal orders by value, ascending and descending", arguments: StoreKind.allCases)
    func sorting(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try Self.fill(store)
        let ascending = try store.read { objects in
            try objects.fetch(
                "Price", where: .isNotNull("amount"), orderBy: [.ascending("amount"), .ascending("label")]
            )
            .map { $0["amount"].decimal! }
        }
        #expect(ascending == Self.ordered.map { Decimal(string: $0)! })
        let descending = try store.read { objects in
            try objects.fetch("Price", where: .isNotNull("amount"), orderBy: [.descending("amount")]).map {
                $0["amount"].decimal!
            }
        }
        #expect(descending == Self.ordered.reversed().map { Decimal(string: $0)! })
    }

    struct Comparison: CustomTestStringConvertible, Sendable {
        var predicate: ObjectPredicate
        var expected: [String]
        var testDescription: String { "\(predicate)" }
    }

    static let comparisons: [Comparison] = [
        Comparison(predicate: .less("amount", d("-9.5")), expected: Array(ordered[0..<3])),
        Comparison(predicate: .lessOrEqual("amount", d("-9.50")), expected: Array(ordered[0..<4])),
        Comparison(predicate: .equal("amount", d("1.1")), expected: ["1.1", "1.10"]),
        Comparison(predicate: .equal("amount", d("1.100")), expected: ["1.1", "1.10"]),
        Comparison(predicate: .notEqual("amount", d("1.1")), expected: ordered.filter { $0 != "1.1" && $0 != "1.10" }),
        Comparison(predicate: .greater("amount", d("9")), expected: Array(ordered[12...])),
        Comparison(predicate: .greaterOrEqual("amount", .int(10)), expected: Array(ordered[12...])),
        Comparison(predicate: .greater("amount", d("0")) && .less("amount", d("1")), expected: Array(ordered[6..<8])),
        Comparison(predicate: .in("amount", [d("-10.0"), d("100.250"), .int(2)]), expected: ["-10", "2", "100.25"]),
    ]

    @Test("<, <=, =, !=, >, >= and IN compare decimals by value", arguments: StoreKind.allCases, comparisons)
    func predicates(kind: StoreKind, comparison: Comparison) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try Self.fill(store)
        let labels = try store.read { objects in
            try objects.fetch("Price", where: comparison.predicate).map { $0["label"].string! }
        }
        #expect(Set(labels) == Set(comparison.expected))
        #expect(labels.count == comparison.expected.count)
    }

    @Test("a double compared with a decimal is refused: it is not an exact decimal", arguments: StoreKind.allCases)
    func doubleRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let error = moltError { _ = try store.read { try $0.fetch("Price", where: .less("amount", 0.1)) } }
        #expect(
            error?.message
                == "The filter compares 'Price.amount', which holds decimal values, with 0.1, which no decimal value equals exactly. Compare with a decimal value."
        )
    }

    @Test("a unique index over a decimal treats 1.1 and 1.10 as the same value", arguments: StoreKind.allCases)
    func uniqueByValue(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try store.write { _ = try $0.insert("Tagged", ["amount": Self.d("1.1")]) }
        let error = moltError { try store.write { _ = try $0.insert("Tagged", ["amount": Self.d("1.10")]) } }
        #expect(error != nil)
        #expect(try store.read { try $0.count("Tagged") } == 1)
    }

    @Test("the one conversion rule set: a value converts to a sized type only when the type holds it exactly")
    func conversions() {
        #expect(ValueConversion.convert(.int(32768), to: .int16) == nil)
        #expect(ValueConversion.convert(.int(-32768), to: .int16) == .int(-32768))
        #expect(ValueConversion.convert(.int(Int64(Int32.max) + 1), to: .int32) == nil)
        #expect(ValueConversion.convert(.double(0.1), to: .float) == nil)
        #expect(ValueConversion.convert(.double(0.5), to: .float) == .double(0.5))
        #expect(ValueConversion.convert(.int(16_777_217), to: .float) == nil)
        #expect(ValueConversion.convert(.int(Int64.min), to: .decimal) == .decimal(Decimal(Int64.min)))
        #expect(ValueConversion.convert(Self.d("12.5"), to: .int) == nil)
        #expect(ValueConversion.convert(Self.d("-40000"), to: .int32) == .int(-40000))
        #expect(ValueConversion.convert(Self.d("-40000"), to: .int16) == nil)
        #expect(ValueConversion.convert(Self.d("1.10"), to: .string) == .string("1.1"))
        #expect(Attribute("a", .int16).coerce(.int(32768)) == nil)
        #expect(Attribute("a", .float).coerce(.double(0.1)) == nil)
    }

    @Test("the decimal text: canonical, strict, compared by value")
    func decimalText() {
        #expect(DecimalText.canonical("-01.50e1") == "-15")
        #expect(DecimalText.canonical("0.000") == "0" && DecimalText.canonical("-0.0") == "0")
        #expect(DecimalText.canonical("1e-3") == "0.001" && DecimalText.canonical("+2.50") == "2.5")
        #expect(
            DecimalText.canonical("1.5x") == nil && DecimalText.canonical("") == nil
                && DecimalText.canonical(".") == nil)
        #expect(DecimalText.decimal(fromText: "1.5x") == nil)
        // A 40th digit would be rounded by Decimal(string:): refused instead.
        #expect(DecimalText.decimal(fromText: "1234567890123456789012345678901234567891") == nil)
        #expect(DecimalText.decimal(fromText: "12345678901234567890123456789012345678") != nil)
        let texts = ["abc", "10", "-9.5", "1.10", "9", "-10", "1.1", "0", "-0.0"]
        let sorted = texts.sorted { DecimalText.compare($0, $1) == .orderedAscending }
        #expect(
            sorted.filter { $0 != "1.1" && $0 != "1.10" && $0 != "0" && $0 != "-0.0" } == [
                "-10", "-9.5", "9", "10", "abc",
            ])
        #expect(DecimalText.compare("1.1", "1.10") == .orderedSame && DecimalText.compare("-0.0", "0") == .orderedSame)
        #expect(
            DecimalText.compare("-1", "-0.5") == .orderedAscending
                && DecimalText.compare("0.05", "0.5") == .orderedAscending)
    }
}
