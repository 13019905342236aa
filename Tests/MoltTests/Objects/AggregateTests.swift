import Foundation
import GRDB
import Molt
import Testing

/// Sums, extremes, averages, distinct values and counts per value, computed by the engine: the same answers on
/// every store kind, exact or refused.
@Suite("Aggregates on every engine")
struct AggregateTests {
    static let schema = Schema(version: 1) {
        Entity("Item") {
            Attribute("kind", .string, isOptional: true)
            Attribute("pages", .int)
            Attribute("price", .double)
            Attribute("created", .date)
            Attribute("inPrint", .bool)
        }
    }

    static let day = Date(timeIntervalSince1970: 1_700_000_000.25)

    /// Five items: two books, two discs, one without a kind.
    static func filled(_ kind: StoreKind, in dir: TemporaryDirectory) throws -> Store {
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        let rows: [(Value, Int64, Double, Double, Bool)] = [
            ("book", 300, 12.5, 0, true), ("disc", 1, 9.25, 86_400, false), ("book", 120, 30, -86_400, true),
            (.null, 7, 0.5, 10, false), ("disc", 2, 1.75, 20, true),
        ]
        try store.write { objects in
            for (kind, pages, price, offset, inPrint) in rows {
                try objects.insert(
                    "Item",
                    [
                        "kind": kind, "pages": .int(pages), "price": .double(price),
                        "created": .date(Self.day.addingTimeInterval(offset)), "inPrint": .bool(inPrint),
                    ])
            }
        }
        return store
    }

    @Test("sum, min, max and average over all objects and over a predicate", arguments: StoreKind.allCases)
    func numbers(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try Self.filled(kind, in: dir)
        defer { try? store.close() }
        try store.read { (objects: Objects) throws in
            #expect(try objects.sum("pages", of: "Item") == .int(430))
            #expect(try objects.sum("price", of: "Item") == .double(54))
            #expect(try objects.sum("pages", of: "Item", where: .equal("kind", "book")) == .int(420))
            #expect(try objects.sum("pages", of: "Item", where: .equal("kind", "none")) == .int(0))
            #expect(try objects.sum("price", of: "Item", where: .equal("kind", "none")) == .double(0))
            #expect(try objects.min("pages", of: "Item") == .int(1))
            #expect(try objects.max("price", of: "Item") == .double(30))
            #expect(try objects.min("kind", of: "Item") == .string("book"))
            #expect(try objects.max("kind", of: "Item") == .string("disc"))
            #expect(try objects.min("created", of: "Item") == .date(Self.day.addingTimeInterval(-86_400)))
            #expect(try objects.max("created", of: "Item") == .date(Self.day.addingTimeInterval(86_400)))
            #expect(try objects.max("pages", of: "Item", where: .equal("kind", "none")) == .null)
            #expect(try objects.average("pages", of: "Item") == 86)
            #expect(try objects.average("price", of: "Item", where: .equal("kind", "disc")) == 5.5)
            #expect(try objects.average("price", of: "Item", where: .equal("kind", "none")) == nil)
        }
    }

    @Test("distinct values and counts per value, sorted, null first", arguments: StoreKind.allCases)
    func groups(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try Self.filled(kind, in: dir)
        defer { try? store.close() }
        try store.read { (objects: Objects) throws in
            #expect(try objects.distinctValues("kind", of: "Item") == [.null, "book", "disc"])
            let counts = try objects.counts(groupedBy: "kind", of: "Item")
            #expect(counts.map(\.value) == [.null, "book", "disc"])
            #expect(counts.map(\.count) == [1, 2, 2])
            let inPrint = try objects.counts(groupedBy: "inPrint", of: "Item", where: .greater("pages", 1))
            #expect(inPrint.map(\.value) == [false, true])
            #expect(inPrint.map(\.count) == [1, 3])
        }
    }

    @Test("a sum of integers beyond 64 bits throws rather than wrapping or rounding", arguments: StoreKind.allCases)
    func overflow(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try store.write { objects in
            for pages in [Int64.max, 1] {
                try objects.insert(
                    "Item", ["pages": .int(pages), "price": 0, "created": .date(Self.day), "inPrint": false])
            }
        }
        let error = #expect(throws: MoltError.self) { try store.read { try $0.sum("pages", of: "Item") } }
        #expect(error?.code == .invalidValue)
        #expect(error?.entity == "Item")
        #expect(error?.property == "pages")
        #expect(
            error?.message.contains("The sum of 'Item.pages' over the matching objects does not fit a 64-bit integer")
                == true)
        #expect(try store.read { try $0.max("pages", of: "Item") } == .int(.max))
        // The same sum over a predicate that leaves the 1 out fits.
        #expect(try store.read { try $0.sum("pages", of: "Item", where: .greater("pages", 1)) } == .int(.max))
    }

    @Test(
        "a sum of decimals is exact: digits past what a Decimal holds are refused, never rounded away",
        arguments: StoreKind.allCases)
    func decimalSumBeyondDecimal(kind: StoreKind) throws {
        let schema = Schema(version: 1) {
            Entity("Entry") {
                Attribute("group", .int)
                Attribute("amount", .decimal)
            }
        }
        let nines = String(repeating: "9", count: 38)
        let rows: [(Int64, String)] = [
            (1, nines), (1, "0.1"),  // beyond a Decimal: refused
            (2, "12345678901234567890123456789012345678"), (2, "0.1"),  // 39 digits a Decimal holds
            (3, nines), (3, "0.1"), (3, "-0.1"),  // beyond a Decimal on the way, exact at the end
            (4, nines), (4, nines), (4, "-\(nines)"),  // twice the largest on the way
        ]
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: schema, in: dir)
        defer { try? store.close() }
        try store.write { (objects: Objects) throws in
            for (group, text) in rows {
                try objects.insert("Entry", ["group": .int(group), "amount": .decimal(Decimal(string: text)!)])
            }
        }
        try store.read { (objects: Objects) throws in
            let error = #expect(throws: MoltError.self) {
                try objects.sum("amount", of: "Entry", where: .equal("group", 1))
            }
            #expect(error?.code == .invalidValue)
            #expect(error?.entity == "Entry")
            #expect(error?.property == "amount")
            #expect(error?.message.contains("is \(nines).1, which has more digits than a Decimal holds") == true)
            let held = try objects.sum("amount", of: "Entry", where: .equal("group", 2))
            #expect(held == .decimal(Decimal(string: "12345678901234567890123456789012345678.1")!))
            #expect(held.decimal.map(DecimalText.text) == "12345678901234567890123456789012345678.1")
            #expect(
                try objects.sum("amount", of: "Entry", where: .equal("group", 3)) == .decimal(Decimal(string: nines)!))
            #expect(
                try objects.sum("amount", of: "Entry", where: .equal("group", 4)) == .decimal(Decimal(string: nines)!))
            #expect(try objects.sum("amount", of: "Entry", where: .equal("group", 5)) == .decimal(0))
        }
    }

    @Test(
        "sized integers sum as 64-bit integers, decimals exactly, extremes of decimals by value",
        arguments: StoreKind.allCases)
    func sizedAndDecimal(kind: StoreKind) throws {
        let schema = Schema(version: 1) {
            Entity("Line") {
                Attribute("quantity", .int16)
                Attribute("amount", .decimal, isOptional: true)
                Attribute("weight", .float)
            }
        }
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: schema, in: dir)
        defer { try? store.close() }
        let amounts = ["0.1", "0.2", "-10", "-9.5", "12345678901234567890.123456789012345678"]
        try store.write { (objects: Objects) throws in
            for text in amounts {
                try objects.insert(
                    "Line",
                    ["quantity": .int(Int64(Int16.max)), "amount": .decimal(Decimal(string: text)!), "weight": 0.5])
            }
            try objects.insert("Line", ["quantity": 1, "amount": .null, "weight": 0.25])
        }
        try store.read { (objects: Objects) throws in
            #expect(try objects.sum("quantity", of: "Line") == .int(5 * Int64(Int16.max) + 1))
            let expected = amounts.map { Decimal(string: $0)! }.reduce(0, +)
            #expect(try objects.sum("amount", of: "Line") == .decimal(expected))
            #expect(try objects.sum("weight", of: "Line") == .double(2.75))
            #expect(try objects.min("amount", of: "Line") == .decimal(-10))
            #expect(try objects.max("amount", of: "Line") == .decimal(Decimal(string: amounts[4])!))
            #expect(try objects.average("quantity", of: "Line", where: .equal("quantity", 1)) == 1)
        }
    }

    @Test(
        "a value of another type, written behind Molt's back, is refused rather than passed on",
        arguments: StoreKind.files)
    func editedOutsideMolt(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.filled(kind, in: dir).close()
        let queue = try DatabaseQueue(path: dir.file().path)
        try queue.write { try $0.execute(sql: #"UPDATE "Item" SET "pages" = 'many' WHERE "_id" = 1"#) }
        try queue.close()
        let store = try kind.open(in: dir, schema: Self.schema)
        defer { try? store.close() }
        let error = #expect(throws: MoltError.self) { try store.read { try $0.max("pages", of: "Item") } }
        #expect(error?.message.contains("returned a value of another type than int") == true)
        #expect(throws: MoltError.self) { try store.read { try $0.counts(groupedBy: "pages", of: "Item") } }
    }

    @Test("an aggregate of a missing attribute, or of a type without one, names the fix")
    func refusals() throws {
        let store = try Store.inMemory(schema: Self.schema)
        let missing = #expect(throws: MoltError.self) { try store.read { try $0.sum("weight", of: "Item") } }
        #expect(missing?.message.contains("has no attribute 'weight'") == true)
        #expect(missing?.property == "weight")
        let wrongType = #expect(throws: MoltError.self) { try store.read { try $0.sum("kind", of: "Item") } }
        #expect(
            wrongType?.message.contains(
                "Cannot compute the sum of 'Item.kind', which holds string values; the sum is computed over decimal, double, float, int, int16, int32 attributes."
            ) == true)
        #expect(throws: MoltError.self) { try store.read { try $0.max("inPrint", of: "Item") } }
        #expect(throws: MoltError.self) { try store.read { try $0.average("created", of: "Item") } }
    }
}
