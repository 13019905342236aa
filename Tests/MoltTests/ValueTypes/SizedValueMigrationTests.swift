import Foundation
import Testing
import Molt

/// Migrations in and out of the new number types: widenings are inferred and keep every value exactly
/// (int16 → int32 → int → decimal, float → double, and on to string); narrowings are refused before anything
/// is written, and a stage that narrows is refused at the value that does not fit, naming it.
@Suite("Value types: widening and narrowing migrations")
struct SizedValueMigrationTests {
    static let v1 = Schema(version: 1) {
        Entity("Reading") {
            Attribute("count", .int16)
            Attribute("level", .float, isOptional: true)
            Attribute("total", .int32, isOptional: true)
        }
    }

    static let counts: [Int64] = [Int64(Int16.min), -1, 0, 1, Int64(Int16.max)]
    static let levels: [Value] = [
        .double(Double(-Float.greatestFiniteMagnitude)), .double(Double(Float.leastNonzeroMagnitude)),
        .double(Double(Float(0.1))), .null, .double(Double(Float.greatestFiniteMagnitude)),
    ]
    static let totals: [Value] = [.int(Int64(Int32.min)), .null, 7, .int(Int64(Int32.max)), -40_000]

    static func fill(_ objects: Objects) throws {
        for i in counts.indices {
            _ = try objects.insert("Reading", ["count": .int(counts[i]), "level": levels[i], "total": totals[i]])
        }
    }

    static func changing(_ schema: Schema, _ version: Int, _ types: [String: AttributeType]) -> Schema {
        var next = schema
        next.version = version
        for (name, type) in types {
            let index = next.entities[0].attributes.firstIndex { $0.name == name }!
            next.entities[0].attributes[index].type = type
        }
        return next
    }

    /// Opens the store at `v1`, filled, then migrates it through `schemas` in one plan; returns before and after.
    static func migrate(
        _ kind: StoreKind, through schemas: [Schema], in dir: TemporaryDirectory
    ) throws -> (before: StoreDump, after: StoreDump) {
        let location = try kind.location(in: dir)
        let before = try Library.makeStore(at: location, schema: v1, kind: kind, fill: fill)
        let plan = try MigrationPlan(schemas: [v1] + schemas)
        let store = try Store.open(at: location, schema: schemas.last!, options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        return (before, try StoreDump(store))
    }

    @Test(
        "int16 → int32 → int → decimal and float → double keep every value, step by step or at once",
        arguments: StoreKind.durable, [false, true])
    func widenings(kind: StoreKind, atOnce: Bool) throws {
        let dir = TemporaryDirectory()
        let v2 = Self.changing(Self.v1, 2, ["count": .int32, "level": .double, "total": .int])
        let v3 = Self.changing(v2, 3, ["count": .int, "total": .decimal])
        let v4 = Self.changing(v3, 4, ["count": .decimal])
        let schemas =
            atOnce
            ? [Self.changing(Self.v1, 2, ["count": .decimal, "level": .double, "total": .decimal])] : [v2, v3, v4]
        let (before, after) = try Self.migrate(kind, through: schemas, in: dir)
        let expected = before.mapping("Reading") { state in
            state.values["count"] = .decimal(Decimal(state.values["count"]!.int!))
            state.values["total"] = state.values["total"]!.int.map { .decimal(Decimal($0)) } ?? .null
        }
        #expect(after == expected)
        #expect(after.count("Reading") == 5)
        let store = try kind.open(in: dir, schema: schemas.last!)
        defer { try? store.close() }
        // The widened values compare by value in their new type.
        let sorted = try store.read { objects in
            try objects.fetch("Reading", where: .greater("count", .decimal(-2)), orderBy: [.descending("count")])
                .map { $0["count"].decimal! }
        }
        #expect(sorted == [32767, 1, 0, -1])
    }

    @Test("int16, int32, float and decimal widen to string with their exact text", arguments: StoreKind.durable)
    func toString(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v2 = Self.changing(Self.v1, 2, ["count": .int32, "total": .decimal])
        let v3 = Self.changing(v2, 3, ["count": .string, "level": .string, "total": .string])
        let (_, after) = try Self.migrate(kind, through: [v2, v3], in: dir)
        let rows = after.entities["Reading"]!.keys.sorted().map { after.entities["Reading"]![$0]!.values }
        #expect(rows.map { $0["count"]! } == ["-32768", "-1", "0", "1", "32767"])
        #expect(rows.map { $0["total"]! } == ["-2147483648", .null, "7", "2147483647", "-40000"])
        #expect(
            rows.map { $0["level"]! } == [
                "-3.4028234663852886e+38", "1.401298464324817e-45", "0.10000000149011612", .null,
                "3.4028234663852886e+38",
            ])
    }

    struct Narrowing: CustomTestStringConvertible, Sendable {
        var attribute: String
        var from: AttributeType
        var to: AttributeType
        var testDescription: String { "\(attribute): \(from.rawValue) → \(to.rawValue)" }
    }

    static let narrowings: [Narrowing] = [
        Narrowing(attribute: "total", from: .int32, to: .int16),
        Narrowing(attribute: "level", from: .float, to: .int32),
        Narrowing(attribute: "count", from: .int16, to: .bool),
        Narrowing(attribute: "level", from: .double, to: .float),
        Narrowing(attribute: "total", from: .int, to: .int32),
        Narrowing(attribute: "total", from: .decimal, to: .int),
        Narrowing(attribute: "total", from: .decimal, to: .double),
        Narrowing(attribute: "total", from: .int32, to: .float),
    ]

    @Test(
        "an inferred narrowing is refused before anything is written, naming the attribute and the types",
        arguments: StoreKind.durable, narrowings)
    func narrowingRefused(kind: StoreKind, narrowing: Narrowing) throws {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        let v1 = Self.changing(Self.v1, 1, [narrowing.attribute: narrowing.from])
        let fill: (Objects) throws -> Void = { objects in
            for i in Self.counts.indices {
                var values: [String: Value] = ["count": .int(Self.counts[i])]
                values[narrowing.attribute] = narrowing.from == .decimal ? .decimal(Decimal(i)) : .int(Int64(i))
                _ = try objects.insert("Reading", values)
            }
        }
        let before = try Library.makeStore(at: location, schema: v1, kind: kind, fill: fill)
        let bytes = FileState(location)
        let v2 = Self.changing(v1, 2, [narrowing.attribute: narrowing.to])
        let error = moltError {
            let plan = try MigrationPlan(schemas: [v1, v2])
            _ = try Store.open(at: location, schema: v2, options: kind.options.migrating(with: plan))
        }
        #expect(
            error?.message.contains(
                "- Attribute 'Reading.\(narrowing.attribute)' has changed type from '\(narrowing.from.rawValue)' to '\(narrowing.to.rawValue)' between versions 1 and 2; this conversion may lose data"
            ) == true, "\(error?.message ?? "no error")")
        #expect(FileState(location) == bytes)
        #expect(try StoreDump(at: location, schema: v1, options: kind.options) == before)
    }

    @Test(
        "a stage that narrows int32 → int16 converts the values that fit and is refused, naming the one that does not",
        arguments: StoreKind.durable)
    func stageNarrowing(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        let before = try Library.makeStore(at: location, schema: Self.v1, kind: kind, fill: Self.fill)
        let bytes = FileState(location)
        let v2 = Self.changing(Self.v1, 2, ["total": .int16])
        let plan = try MigrationPlan(
            schemas: [Self.v1, v2],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    try migration.enumerateObjects(ofType: "Reading") { old, new in new["total"] = old["total"] }
                }
            ])
        let error = moltError {
            _ = try Store.open(at: location, schema: v2, options: kind.options.migrating(with: plan))
        }
        #expect(error?.code == .invalidValue)
        #expect(
            error?.message.contains(
                "Attribute 'Reading.total' holds int16 values (-32768 through 32767): the value -2147483648 of the object with _id 1 does not fit, and Molt never truncates a value"
            ) == true, "\(error?.message ?? "no error")")
        #expect(FileState(location) == bytes)
        #expect(try StoreDump(at: location, schema: Self.v1, options: kind.options) == before)
    }

    @Test(
        "a mapping into a float converts the values a Float holds and refuses one it does not, naming it",
        arguments: StoreKind.durable)
    func mappingIntoFloat(kind: StoreKind) throws {
        var v2 = Self.v1
        v2.version = 2
        v2.entities[0].attributes.append(Attribute("half", .float, isOptional: true))
        func plan(_ expression: String) throws -> MigrationPlan {
            try MigrationPlan(
                schemas: [Self.v1, v2],
                stages: [
                    .mapping(from: 1, to: 2, [EntityMapping(destination: "Reading", attributes: ["half": expression])])
                ])
        }
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        let before = try Library.makeStore(at: location, schema: Self.v1, kind: kind, fill: Self.fill)
        let bytes = FileState(location)
        let error = moltError {
            _ = try Store.open(
                at: location, schema: v2, options: kind.options.migrating(with: try plan("count / 10.0")))
        }
        #expect(
            error?.message
                == "Attribute 'Reading.half' holds float (32-bit) values: the value -3276.8 (given by the expression `count / 10.0` of the mapping of 'Reading' into 'Reading', for source _id 1) has no exact float (the nearest is -3276.800048828125), and Molt never rounds a value silently; nothing was written. Write a value a Float holds (Double(Float(x)) rounds as you choose), or make the attribute a double."
        )
        #expect(FileState(location) == bytes)
        let store = try Store.open(
            at: location, schema: v2, options: kind.options.migrating(with: try plan("count * 0.5")))
        defer { try? store.close() }
        let expected = before.mapping("Reading") { $0.values["half"] = .double(Double($0.values["count"]!.int!) / 2) }
        #expect(try StoreDump(store) == expected)
    }
}
