import Foundation
import Testing
@testable import Molt

/// What a stage writes is what the store keeps, on every engine: the PostgreSQL engine sends a stage's updates
/// in batches of array literals, whose quoting must not change a byte.
@Suite("Custom stages: every value written back whole")
struct StageValuesTests {
    static let attributes: [(String, AttributeType)] = [
        ("s", .string), ("d", .data), ("x", .double), ("i", .int), ("b", .bool), ("u", .uuid), ("t", .date),
    ]
    static let v1 = Schema(version: 1) {
        Entity("Thing") { Attribute("n", .int) }
    }
    static let v2 = Schema(version: 2) {
        Entity("Thing", attributes: [Attribute("n", .int)] + attributes.map { Attribute($0.0, $0.1, isOptional: true) })
    }

    /// Values that quoting, escaping or a text round trip could change.
    static let values: [[String: Value]] = [
        ["s": "\"", "d": .data(Data([0, 0x5C, 0x22, 0xFF])), "x": .double(-0.0), "i": .int(.min), "b": true],
        ["s": "\\", "d": .data(Data()), "x": .double(.infinity), "i": .int(.max), "b": false],
        ["s": "{a,b}", "d": .data(Data("\\x41".utf8)), "x": .double(-.infinity), "i": 0],
        ["s": "NULL", "x": .double(1e-300), "u": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)],
        ["s": "", "x": .double(0.1), "t": .date(Date(timeIntervalSince1970: -1.5))],
        [
            "s": " spaced, \"quoted\" \\ back ", "x": .double(.greatestFiniteMagnitude),
            "t": .date(Date(timeIntervalSince1970: 1_700_000_000.123456)),
        ],
        ["s": "é漢🙂\t\n", "x": .double(.leastNonzeroMagnitude)],
        [:],
    ]

    @Test(
        "strings, bytes, numbers at their limits, dates, UUIDs and nulls come back as the stage wrote them",
        arguments: StoreKind.durable)
    func everyValueWhole(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        let count = 2_500  // more than two of the stage's batches of 1,024
        let old = try Store.open(at: location, schema: Self.v1, options: kind.options)
        try old.write { objects in
            for n in 0..<count { try objects.insert("Thing", ["n": .int(Int64(n))]) }
        }
        try old.close()
        let stage = MigrationStage.custom(from: 1, to: 2) { migration in
            try migration.enumerateObjects(ofType: "Thing") { old, new in
                let n = Int(old["n"].int!)
                for (name, value) in Self.values[n % Self.values.count] { new[name] = value }
            }
        }
        let plan = try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [stage])
        let store = try Store.open(at: location, schema: Self.v2, options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        let things = try store.read { try $0.fetch("Thing") }
        #expect(things.count == count)
        for thing in things {
            let expected = Self.values[Int(thing["n"].int!) % Self.values.count]
            for (name, _) in Self.attributes {
                #expect(thing[name] == (expected[name] ?? .null), "object \(thing["n"]), attribute \(name)")
            }
        }
    }
}
