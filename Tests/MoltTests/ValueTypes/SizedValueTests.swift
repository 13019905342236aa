import Foundation
import Testing
import Molt

/// The sized and exact number types (int16, int32, float, decimal): every value round-trips exactly on every
/// store kind, and a write of a value the type cannot hold is refused, naming it.
@Suite("Value types: int16, int32, float, decimal")
struct SizedValueTests {
    static let schema = Schema(version: 1) {
        Entity("Item") {
            Attribute("name", .string)
            Attribute("small", .int16, isOptional: true)
            Attribute("medium", .int32, isOptional: true)
            Attribute("single", .float, isOptional: true)
            Attribute("price", .decimal, isOptional: true)
        }
    }

    static func decimal(_ text: String) -> Value { .decimal(Decimal(string: text)!) }

    /// The extremes of each type, one object each.
    static let extremes: [[String: Value]] = [
        [
            "name": "min", "small": .int(Int64(Int16.min)), "medium": .int(Int64(Int32.min)),
            "single": .double(Double(-Float.greatestFiniteMagnitude)),
            "price": decimal("-12345678901234567890123456789012345678"),
        ],
        [
            "name": "max", "small": .int(Int64(Int16.max)), "medium": .int(Int64(Int32.max)),
            "single": .double(Double(Float.greatestFiniteMagnitude)),
            "price": decimal("12345678901234567890123456789012345678"),
        ],
        [
            "name": "tiny", "small": 0, "medium": -1, "single": .double(Double(Float.leastNonzeroMagnitude)),
            "price": decimal("-0.000000000000000000000000000000000001"),
        ],
        ["name": "scale", "small": -1, "medium": 0, "single": .double(Double(Float(0.1))), "price": decimal("1.10")],
        ["name": "infinite", "single": .double(.infinity), "price": decimal("0")],
        ["name": "empty"],
    ]

    @Test("every value of each new type round-trips exactly, extremes included", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        var store = try kind.makeStore(schema: Self.schema, in: dir)
        try store.write { objects in for values in Self.extremes { _ = try objects.insert("Item", values) } }
        if kind != .memory {
            try store.close()
            store = try kind.open(in: dir, schema: Self.schema)
        }
        defer { try? store.close() }
        let read = try store.read { objects in try objects.fetch("Item") }
        #expect(read.count == Self.extremes.count)
        for (object, values) in zip(read, Self.extremes) {
            for name in ["small", "medium", "single", "price"] {
                #expect(object[name] == (values[name] ?? .null), "\(values["name"]!).\(name)")
            }
        }
        #expect(read[3]["price"].decimal == Decimal(string: "1.1"))
        #expect(read[2]["single", as: Float.self] == Float.leastNonzeroMagnitude)
        #expect(read[0]["small", as: Int16.self] == Int16.min && read[1]["medium", as: Int32.self] == Int32.max)
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var attribute: String
        var value: Value
        var message: String
        var testDescription: String { "\(attribute) = \(value)" }
    }

    static let refusals: [Refusal] = [
        Refusal(
            attribute: "small", value: 32768,
            message:
                "Attribute 'Item.small' holds int16 values (-32768 through 32767): the value 32768 does not fit, and Molt never truncates a value; nothing was written. Write a value in range, or widen the attribute (to int32) in a new schema version."
        ),
        Refusal(
            attribute: "medium", value: .int(Int64(Int32.min) - 1),
            message:
                "Attribute 'Item.medium' holds int32 values (-2147483648 through 2147483647): the value -2147483649 does not fit, and Molt never truncates a value; nothing was written. Write a value in range, or widen the attribute (to int) in a new schema version."
        ),
        Refusal(
            attribute: "single", value: 0.1,
            message:
                "Attribute 'Item.single' holds float (32-bit) values: the value 0.1 has no exact float (the nearest is 0.10000000149011612), and Molt never rounds a value silently; nothing was written. Write a value a Float holds (Double(Float(x)) rounds as you choose), or make the attribute a double."
        ),
        Refusal(
            attribute: "single", value: 1e300,
            message:
                "Attribute 'Item.single' holds float (32-bit) values: the value 1.0e+300 is beyond a float's range (±3.4028235e+38), and Molt never rounds a value silently; nothing was written. Write a value a Float holds (Double(Float(x)) rounds as you choose), or make the attribute a double."
        ),
        Refusal(
            attribute: "single", value: .int(16_777_217),
            message:
                "Attribute 'Item.single' holds float (32-bit) values: the value 16777217 has no exact float, and Molt never rounds a value silently; nothing was written. Write a value a Float holds, or make the attribute a double."
        ),
        Refusal(
            attribute: "price", value: 0.1,
            message:
                "Attribute 'Item.price' holds decimal values: the double 0.1 is binary, not an exact decimal, and Molt never rounds a value silently; nothing was written. Write a Decimal (`.decimal(Decimal(string: \"0.1\")!)`)."
        ),
        Refusal(
            attribute: "price", value: .decimal(.nan),
            message:
                "Attribute 'Item.price' cannot store NaN: Molt stores numbers, or null explicitly; nothing was written. Store a number, or null."
        ),
    ]

    @Test(
        "a write of a value out of range is refused, naming entity, attribute and value, and nothing is written",
        arguments: StoreKind.allCases, refusals)
    func outOfRange(kind: StoreKind, refusal: Refusal) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let insert = moltError {
            try store.write { _ = try $0.insert("Item", ["name": "a", refusal.attribute: refusal.value]) }
        }
        #expect(insert?.code == .invalidValue)
        #expect(insert?.message == refusal.message)
        #expect(insert?.entity == "Item" && insert?.property == refusal.attribute)
        let id = try store.write { try $0.insert("Item", ["name": "b"]).id! }
        let update = moltError {
            try store.write { objects in
                var object = try objects.object("Item", id: id)!
                object[refusal.attribute] = refusal.value
                try objects.update(object)
            }
        }
        #expect(update?.code == .invalidValue && update?.entity == "Item" && update?.property == refusal.attribute)
        #expect(try store.read { try $0.fetch("Item").map { $0[refusal.attribute] } } == [.null])
    }

    @Test("a value that a sized type holds exactly is accepted from a wider kind", arguments: StoreKind.allCases)
    func exactValuesAccepted(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let values: [String: Value] = ["name": "a", "single": .int(16_777_216), "price": .int(Int64.min), "small": 7]
        let object = try store.write { try $0.insert("Item", values) }
        let read = try store.read { try $0.object("Item", id: object.id!)! }
        #expect(read["single"] == .double(16_777_216) && read["price"] == .decimal(Decimal(Int64.min)))
        #expect(read["small"] == 7)
    }
}
