import Foundation
import Testing
import Molt

/// Widening type changes: every value is converted exactly as documented.
@Suite("Inferred migration: widening conversions")
struct InferredConversionTests {
    /// One widening change of a Library book attribute, and the values every book must hold afterwards.
    struct Conversion: CustomTestStringConvertible, Sendable {
        var attribute: String
        var to: AttributeType
        /// The expected value of books 0…5.
        var expected: [Value]
        /// The attribute's default in the new type, when it has one.
        var newDefault: Value? = nil

        var testDescription: String { "\(attribute) → \(to.rawValue)" }
    }

    static let conversions: [Conversion] = [
        Conversion(attribute: "pages", to: .double, expected: [-50.0, 50.0, 150.0, 250.0, 350.0, 450.0]),
        Conversion(attribute: "inPrint", to: .int, expected: [1, 0, 1, 0, 1, 0], newDefault: 1),
        Conversion(attribute: "pages", to: .string, expected: ["-50", "50", "150", "250", "350", "450"]),
        Conversion(attribute: "price", to: .string, expected: ["9.5", .null, "12.25", "0.1", .null, "1.0e+20"]),
        Conversion(
            attribute: "inPrint", to: .string, expected: ["true", "false", "true", "false", "true", "false"],
            newDefault: "true"),
        Conversion(
            attribute: "published", to: .string,
            expected: [
                "2023-11-14T22:13:20.500Z", "2023-11-15T22:13:20.750Z", "2023-11-16T22:13:21.000Z",
                "2023-11-17T22:13:21.250Z", "2023-11-18T22:13:21.500Z", "2023-11-19T22:13:21.750Z",
            ]),
        Conversion(attribute: "code", to: .string, expected: Library.codes.map { .string($0.uuidString) }),
    ]

    @Test("a widening type change converts every value exactly", arguments: StoreKind.durable, conversions)
    func widen(kind: StoreKind, conversion: Conversion) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) {
            $0.edit("Book") {
                $0.editAttribute(conversion.attribute) {
                    $0.type = conversion.to
                    $0.defaultValue = conversion.newDefault
                }
            }
        }
        let (before, after, history) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        let books = before.entities["Book"]!.keys.sorted()
        let expected = before.mapping("Book") { state in
            let isbn = state.values["isbn"]!.string!
            state.values[conversion.attribute] = conversion.expected[Int(isbn.dropFirst(5))!]
        }
        #expect(after == expected)
        #expect(books.count == 6)
        let old = Library.v0().entity(named: "Book")!.attribute(named: conversion.attribute)!.type
        #expect(
            history.map(\.steps) == [
                [
                    "0 → 1 inferred: Attribute 'Book.\(conversion.attribute)' has changed type from '\(old.rawValue)' to '\(conversion.to.rawValue)'."
                ]
            ])
    }

    @Test("a converted attribute can be filtered and sorted with its new type", arguments: StoreKind.durable)
    func convertedValuesBehaveAsNewType(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.editAttribute("pages") { $0.type = .double } } }
        _ = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        let store = try Store.open(at: try kind.location(in: dir), schema: v1, options: kind.options)
        let titles = try store.read { objects in
            try objects.fetch("Book", where: .greater("pages", 100.5), orderBy: [.descending("pages")]).map {
                $0["title"]
            }
        }
        #expect(titles == ["Book 5", "Book 4", "Book 3", "Book 2"])
    }

    @Test(
        "a type change reports the rows it rewrites and the objects it updates, counted in one pass",
        arguments: StoreKind.durable)
    func conversionProgress(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let v0 = Library.v0()
        let v1 = v0.next(1) { $0.edit("Book") { $0.editAttribute("price") { $0.type = .string } } }
        let v2 = v1.next(2) { $0.edit("Book") { $0.editAttribute("pages") { $0.type = .double } } }
        try Library.makeStore(at: url, schema: v0, kind: kind)
        let events = Events()
        var options = kind.options.migrating(with: try MigrationPlan(schemas: [v0, v1, v2]))
        options.progress = { events.append($0) }
        let store = try Store.open(at: url, schema: v2, options: options)
        defer { try? store.close() }
        // Six books, rewritten once for both steps; two have no price, so four prices are converted; pages is
        // required, so every book's is.
        let rewrite = events.all.filter { $0.phase == "rebuilding 'Book'" }
        #expect(rewrite.map(\.completed) == [0, 6])
        #expect(rewrite.allSatisfy { $0.total == 6 && $0.entity == "Book" })
        #expect(try store.history().first?.stepRecords.map(\.objectsUpdated) == [4, 6])
        #expect(try store.read { try $0.fetch("Book").compactMap { $0["pages"].double } }.count == 6)
        #expect(events.all.last?.fractionCompleted == 1)
    }

    @Test(
        "int → double is refused when a stored integer has no exact double, and nothing is written",
        arguments: StoreKind.durable)
    func inexactDoubleRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let v0 = Library.v0()
        let before = try Library.makeStore(at: url, schema: v0, kind: kind) { objects in
            try Library.fill(objects)
            var book = try objects.object("Book", primaryKey: "isbn-2")!
            book["pages"] = .int(9_007_199_254_740_993)
            try objects.update(book)
        }
        let bytes = FileState(url)
        let v1 = v0.next(1) {
            $0.edit("Book") {
                $0.editAttribute("pages") {
                    $0.name = "leaves"; $0.originalName = "pages"
                }
            }
        }
        let v2 = v1.next(2) { $0.edit("Book") { $0.editAttribute("leaves") { $0.type = .double } } }
        let plan = try MigrationPlan(schemas: [v0, v1, v2])
        let error = moltError { _ = try Store.open(at: url, schema: v2, options: kind.options.migrating(with: plan)) }
        #expect(error?.code == .migrationNotInferable)
        #expect(
            error?.message
                == "Attribute 'Book.leaves' cannot be widened from 'int' to 'double' in version 2: the value 9007199254740993 of the object with _id 3 has no exact double, and Molt never rounds a value silently. Convert the values in a custom stage to version 2, or keep the attribute an int."
        )
        #expect(FileState(url) == bytes)
        #expect(try StoreDump(at: url, schema: v0, options: kind.options) == before)
    }

    /// ±2^53 are the count's bounds, within which every integer is exact; 2^60 and -2^63 lie beyond, where
    /// each value is checked, and have exact doubles too.
    @Test(
        "int → double keeps integers up to 2^53, and those beyond that have an exact double, exactly",
        arguments: StoreKind.durable)
    func exactDoublesPass(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let fill: (Objects) throws -> Void = { objects in
            try Library.fill(objects)
            let pages: [(String, Int64)] = [
                ("isbn-2", 9_007_199_254_740_992), ("isbn-3", -9_007_199_254_740_992), ("isbn-4", 1 << 60),
                ("isbn-5", .min),
            ]
            for (isbn, pages) in pages {
                var book = try objects.object("Book", primaryKey: .string(isbn))!
                book["pages"] = .int(pages)
                try objects.update(book)
            }
        }
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.editAttribute("pages") { $0.type = .double } } }
        let (before, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir, fill: fill)
        #expect(after == before.converting("Book", "pages") { .double(Double($0.int!)) })
        #expect(after.entities["Book"]!.values.contains { $0.values["pages"] == .double(9_007_199_254_740_992) })
        #expect(after.entities["Book"]!.values.contains { $0.values["pages"] == .double(0x1p60) })
        #expect(after.entities["Book"]!.values.contains { $0.values["pages"] == .double(-0x1p63) })
    }

    @Test("double → string keeps every digit a double needs to read back the same", arguments: StoreKind.durable)
    func doubleToStringRoundTrips(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let values: [Double] = [0.1 + 0.2, 1.0 / 3, 123_456_789.123_456_789, 2.5, -0.001, 1e-7, 6.02214076e23]
        let texts = [
            "0.30000000000000004", "0.3333333333333333", "123456789.12345679", "2.5", "-0.001", "1.0e-07",
            "6.02214076e+23",
        ]
        let fill: (Objects) throws -> Void = { objects in
            try Library.fill(objects)
            for (i, value) in values.enumerated() {
                _ = try objects.insert(
                    "Book",
                    [
                        "isbn": .string("d-\(i)"), "title": "D", "pages": 1, "price": .double(value),
                        "published": .date(Library.dates[0]),
                        "code": .uuid(UUID()),
                    ])
            }
        }
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.editAttribute("price") { $0.type = .string } } }
        let (_, after, _) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir, fill: fill)
        let converted = after.entities["Book"]!.values.filter { $0.values["isbn"]!.string!.hasPrefix("d-") }
            .sorted { $0.values["isbn"]!.string! < $1.values["isbn"]!.string! }
            .map { $0.values["price"]!.string! }
        #expect(converted == texts)
        #expect(zip(converted, values).allSatisfy { Double($0.0.replacingOccurrences(of: ".0e", with: "e")) == $0.1 })
    }
}
