import Foundation
import Testing
@testable import Molt

/// One rule set for every conversion path: lossless, or refused with the same message; and every write path
/// stores strings and bytes whole.
@Suite("No silent loss: one conversion rule set, whole values")
struct ConversionRuleTests {
    static let big: Int64 = 9_007_199_254_740_993  // 2^53 + 1: no exact double

    static let v1 = Schema(version: 1) {
        Entity("Reading") {
            Attribute("value", .int); Attribute("taken", .date)
        }
    }
    static let v2 = Schema(version: 2) {
        Entity("Reading") {
            Attribute("value", .double); Attribute("taken", .string)
        }
    }
    static let v2Renamed = Schema(version: 2) {
        Entity("Reading") {
            Attribute("amount", .double, isOptional: true)
            Attribute("taken", .date)
        }
    }

    static func makeStore(_ url: StoreLocation, kind: StoreKind, value: Int64, taken: Date) throws {
        let store = try Store.open(at: url, schema: v1, options: kind.options)
        defer { try? store.close() }
        try store.write { _ = try $0.insert("Reading", ["value": .int(value), "taken": .date(taken)]) }
    }

    /// The message every path gives for the integer 2^53 + 1 becoming a double of `attribute`, in version 2.
    static func refusal(_ attribute: String) -> String {
        "Attribute 'Reading.\(attribute)' cannot be widened from 'int' to 'double' in version 2: the value 9007199254740993 of the object with _id 1 has no exact double, and Molt never rounds a value silently. Convert the values in a custom stage to version 2, or keep the attribute an int."
    }

    @Test(
        "an integer beyond 2^53 becoming a double is refused on every path, with the same message",
        arguments: StoreKind.durable)
    func inexactDoubleEverywhere(kind: StoreKind) throws {
        let taken = Date(timeIntervalSince1970: 1_700_000_000)
        let stages: [(String, MigrationStage?, Schema)] = [
            (
                "inferred", nil,
                Schema(version: 2) {
                    Entity("Reading") {
                        Attribute("value", .double); Attribute("taken", .date)
                    }
                }
            ),
            ("stage workspace", .custom(from: 1, to: 2) { _ in }, Self.v2),
            (
                "renameProperty",
                .custom(from: 1, to: 2) { try $0.renameProperty(onType: "Reading", from: "value", to: "amount") },
                Self.v2Renamed
            ),
        ]
        for (path, stage, target) in stages {
            let dir = TemporaryDirectory()
            let url = try kind.location(in: dir)
            try Self.makeStore(url, kind: kind, value: Self.big, taken: taken)
            let bytes = FileState(url)
            let plan = try MigrationPlan(schemas: [Self.v1, target], stages: stage.map { [$0] } ?? [])
            let error = moltError {
                _ = try Store.open(at: url, schema: target, options: kind.options.migrating(with: plan))
            }
            #expect(error?.message == Self.refusal(path == "renameProperty" ? "amount" : "value"), "\(path)")
            #expect(FileState(url) == bytes, "\(path)")
        }
    }

    @Test(
        "a mapping whose expression gives an integer beyond 2^53 for a double attribute is refused",
        arguments: StoreKind.durable)
    func inexactDoubleMapping(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        try Self.makeStore(url, kind: kind, value: Self.big, taken: Date(timeIntervalSince1970: 0))
        let bytes = FileState(url)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2Renamed],
            stages: [
                .mapping(from: 1, to: 2, [EntityMapping(destination: "Reading", attributes: ["amount": "value + 0"])])
            ])
        let error = moltError {
            _ = try Store.open(at: url, schema: Self.v2Renamed, options: kind.options.migrating(with: plan))
        }
        #expect(
            error?.message
                == "Attribute 'Reading.amount' cannot be widened from 'int' to 'double' in version 2: the value 9007199254740993 (given by the expression `value + 0` of the mapping of 'Reading' into 'Reading', for source _id 1) has no exact double, and Molt never rounds a value silently. Convert the values in a custom stage to version 2, or keep the attribute an int."
        )
        #expect(FileState(url) == bytes)
    }

    @Test("a stage's write of an integer beyond 2^53 into a double attribute is refused, naming it")
    func inexactDoubleWrite() throws {
        let store = try Store.inMemory(schema: Self.v2Renamed)
        let error = moltError {
            try store.write { _ = try $0.insert("Reading", ["amount": .int(Self.big), "taken": .date(Date())]) }
        }
        #expect(
            error?.message
                == "Attribute 'Reading.amount' holds double values, but the value 9007199254740993 has no exact double, and Molt never rounds a value silently. Write the double you want (rounded as you choose), or keep the attribute an int."
        )
        try store.write { _ = try $0.insert("Reading", ["amount": .int(1 << 53), "taken": .date(Date())]) }
        #expect(try store.read { try $0.fetch("Reading").first?["amount"] } == .double(9_007_199_254_740_992))
    }

    @Test(
        "date → string keeps every digit and reads back as the same date, inferred or in a stage",
        arguments: StoreKind.durable)
    func dateToString(kind: StoreKind) throws {
        let taken = Date(timeIntervalSince1970: 1_700_000_000.123456789)
        var texts: [Value] = []
        for stage in [nil, MigrationStage.custom(from: 1, to: 2) { _ in }] {
            let dir = TemporaryDirectory()
            let url = try kind.location(in: dir)
            try Self.makeStore(url, kind: kind, value: 3, taken: taken)
            let plan = try MigrationPlan(schemas: [Self.v1, Self.v2], stages: stage.map { [$0] } ?? [])
            let store = try Store.open(at: url, schema: Self.v2, options: kind.options.migrating(with: plan))
            texts.append(try store.read { try $0.fetch("Reading")[0]["taken"] })
            try store.close()
        }
        #expect(texts[0] == texts[1])
        let text = try #require(texts[0].string)
        #expect(text.hasPrefix("2023-11-14T22:13:20.12345"))
        #expect(ValueConversion.secondsSince1970(fromText: text) == taken.timeIntervalSince1970)
        #expect(ValueConversion.convert(.date(taken), to: .string) == texts[0])
    }

    /// PostgreSQL text cannot hold NUL: there such a string is refused, naming the attribute (PostgresServerTests).
    @Test("strings with a NUL and bytes are stored whole on every write path", arguments: StoreKind.sqlite)
    func wholeValues(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let schema = Schema(version: 1) {
            Entity("Blob") {
                Attribute("text", .string)
                Attribute("bytes", .data)
                Attribute("fallback", .string, default: "a\u{0}b")
            }
        }
        let text = "before\u{0}after é"
        let bytes = Data([0, 1, 0, 255, 0])
        let store = try kind.makeStore(schema: schema, in: dir)
        defer { try? store.close() }
        try store.write { objects in
            var object = try objects.insert("Blob", ["text": .string(text), "bytes": .data(bytes)])
            object["text"] = .string(text + "\u{0}")
            try objects.update(object)
            _ = try objects.insert("Blob", ["text": .string(text), "bytes": .data(Data())])
        }
        let stored = try store.read { try $0.fetch("Blob") }
        #expect(stored.map { $0["text"] } == [.string(text + "\u{0}"), .string(text)])
        #expect(stored.map { $0["bytes"] } == [.data(bytes), .data(Data())])
        #expect(stored.map { $0["fallback"] } == [.string("a\u{0}b"), .string("a\u{0}b")])
    }
}
