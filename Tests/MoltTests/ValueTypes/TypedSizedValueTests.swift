import Foundation
import Testing
import Molt

/// Typed models with `Int16`, `Int32`, `Float` and `Decimal` properties, on every store kind: what `@Model`
/// expands to for such a struct (the macro maps the four types to `int16`, `int32`, `float` and `decimal`).
@Suite("Value types: typed models")
struct TypedSizedValueTests {
    /// What `@Model struct Meter { var small: Int16; var medium: Int32; var level: Float; var price: Decimal;
    /// var discount: Decimal? }` expands to.
    struct Meter: PersistentModel, Equatable {
        var small: Int16
        var medium: Int32
        var level: Float
        var price: Decimal
        var discount: Decimal?
        var persistentID: Int64? = nil

        init(small: Int16, medium: Int32, level: Float, price: Decimal, discount: Decimal?) {
            (self.small, self.medium, self.level, self.price, self.discount) = (small, medium, level, price, discount)
        }

        static let entity = Entity(
            "Meter",
            attributes: [
                Attribute("small", Int16.attributeType), Attribute("medium", Int32.attributeType),
                Attribute("level", Float.attributeType), Attribute("price", Decimal.attributeType),
                Attribute("discount", Decimal?.attributeType, isOptional: true),
            ])

        init(row: ModelRow) throws {
            persistentID = row.id
            small = try row.value(at: 0)
            medium = try row.value(at: 1)
            level = try row.value(at: 2)
            price = try row.value(at: 3)
            discount = try row.value(at: 4)
        }

        func encode(to columns: inout ModelColumns) {
            columns.append(small)
            columns.append(medium)
            columns.append(level)
            columns.append(price)
            columns.append(discount)
        }

        static func propertyName(for keyPath: PartialKeyPath<Meter>) -> String? {
            switch keyPath {
            case \Meter.small: return "small"
            case \Meter.medium: return "medium"
            case \Meter.level: return "level"
            case \Meter.price: return "price"
            case \Meter.discount: return "discount"
            default: return nil
            }
        }
    }

    static let schema = Schema(version: 1, entities: [Meter.entity])

    static let meters = [
        Meter(
            small: .min, medium: .min, level: -.greatestFiniteMagnitude,
            price: Decimal(string: "-12345678901234567890123456789012345678")!, discount: nil),
        Meter(
            small: .max, medium: .max, level: .greatestFiniteMagnitude,
            price: Decimal(string: "12345678901234567890123456789012345678")!, discount: Decimal(string: "0.05")),
        Meter(
            small: 0, medium: -1, level: .leastNonzeroMagnitude, price: Decimal(string: "1.10")!,
            discount: Decimal(string: "-0.000000000000000000000000000000000001")),
        Meter(small: 5, medium: 6, level: 0.1, price: Decimal(string: "9.5")!, discount: 0),
    ]

    @Test("the Swift types name the new attribute types")
    func types() {
        #expect(Meter.entity.attributes.map(\.type) == [.int16, .int32, .float, .decimal, .decimal])
    }

    @Test(
        "typed models round-trip every value exactly, and compare and sort decimals by value",
        arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let inserted = try store.write { objects in try Self.meters.map { try objects.insert($0) } }
        let read = try store.read { try $0.fetch(Meter.self) }
        #expect(read == inserted)
        #expect(read.map(\.level) == Self.meters.map(\.level))
        let sorted = try store.read { objects in
            try objects.fetch(Meter.self, where: \.price > Decimal(string: "1.1")!, orderBy: [.descending(\.price)])
        }
        #expect(sorted.map(\.small) == [.max, 5])
        let equal = try store.read { try $0.fetch(Meter.self, where: \.price == Decimal(string: "1.100")!) }
        #expect(equal.map(\.medium) == [-1])
        let dynamic = try store.read { try $0.fetch("Meter", orderBy: [.ascending("small")]).map { $0["level"] } }
        #expect(dynamic.first == .double(Double(-Float.greatestFiniteMagnitude)))
    }

    @Test("a typed write of a NaN decimal is refused, naming entity and attribute", arguments: StoreKind.allCases)
    func nanRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let error = moltError {
            try store.write { _ = try $0.insert(Meter(small: 1, medium: 1, level: 1, price: .nan, discount: nil)) }
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.entity == "Meter" && error?.property == "price")
        #expect(try store.read { try $0.count("Meter") } == 0)
    }

    @Test(
        "a stored value out of a typed property's range is reported when read, naming the attribute",
        arguments: StoreKind.sqlite)
    func outOfRangeRead(kind: StoreKind) throws {
        // An int attribute read by a model whose property is Int16: the schema of another version.
        let wide = Schema(version: 1) {
            Entity("Meter") {
                Attribute("small", .int); Attribute("medium", .int32); Attribute("level", .float)
                Attribute("price", .decimal); Attribute("discount", .decimal, isOptional: true)
            }
        }
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: wide, in: dir)
        defer { try? store.close() }
        try store.write { _ = try $0.insert("Meter", ["small": 40_000, "medium": 1, "level": 1, "price": 1]) }
        let error = moltError { _ = try store.read { try $0.fetch(Meter.self) } }
        #expect(error != nil)
    }
}
