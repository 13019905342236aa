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
        Conversion(attribute: "inPrint", to: .string, expected: ["true", "false", "true", "false", "true", "false"], newDefault: "true"),
        Conversion(attribute: "published", to: .string, expected: [
            "2023-11-14T22:13:20.500Z", "2023-11-15T22:13:20.750Z", "2023-11-16T22:13:21.000Z",
            "2023-11-17T22:13:21.250Z", "2023-11-18T22:13:21.500Z", "2023-11-19T22:13:21.750Z",
        ]),
        Conversion(attribute: "code", to: .string, expected: Library.codes.map { .string($0.uuidString) }),
    ]

    @Test("a widening type change converts every value exactly", arguments: StoreKind.files, conversions)
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
        #expect(history.map(\.steps) == [["0 → 1 inferred: Attribute 'Book.\(conversion.attribute)' has changed type from '\(old.rawValue)' to '\(conversion.to.rawValue)'."]])
    }

    @Test("a converted attribute can be filtered and sorted with its new type", arguments: StoreKind.files)
    func convertedValuesBehaveAsNewType(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.editAttribute("pages") { $0.type = .double } } }
        _ = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        let store = try Store.open(at: dir.file(), schema: v1, options: kind.options)
        let titles = try store.read { objects in
            try objects.fetch("Book", where: .greater("pages", 100.5), orderBy: [.descending("pages")]).map { $0["title"] }
        }
        #expect(titles == ["Book 5", "Book 4", "Book 3", "Book 2"])
    }
}
