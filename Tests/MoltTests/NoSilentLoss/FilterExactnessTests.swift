import Foundation
import Testing
@testable import Molt

@Suite("No silent loss: filters compare exactly, on every engine")
struct FilterExactnessTests {
    static let schema = Schema(version: 1) {
        Entity("Reading") {
            Attribute("amount", .double); Attribute("count", .int)
        }
    }

    @Test(
        "a number is compared in the attribute's type; one the type cannot hold exactly is refused, never rounded",
        arguments: StoreKind.allCases)
    func exactComparisons(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try store.write { objects in
            _ = try objects.insert("Reading", ["amount": .double(9_007_199_254_740_992), "count": 3])
            _ = try objects.insert("Reading", ["amount": 1.5, "count": 4])
        }
        // Exact across types: an int against a double attribute, a whole double against an int one.
        #expect(try store.read { try $0.count("Reading", where: .equal("amount", .int(1 << 53))) } == 1)
        #expect(try store.read { try $0.count("Reading", where: .equal("count", .double(3))) } == 1)
        #expect(try store.read { try $0.count("Reading", where: .in("count", [.double(3), .double(4)])) } == 2)
        // 2^53 + 1 has no double: on PostgreSQL it would be read as 2^53 and match the first reading (and a
        // deleteAll with it would delete it).
        let beyond: Value = .int((1 << 53) + 1)
        let error = moltError {
            try store.write { objects in _ = try objects.deleteAll("Reading", where: .equal("amount", beyond)) }
        }
        #expect(error?.code == .invalidValue)
        #expect(
            error?.message
                == "The filter compares 'Reading.amount', which holds double values, with 9007199254740993, which no double value equals exactly. Compare with a double value."
        )
        #expect(
            moltError { _ = try store.read { try $0.count("Reading", where: .less("count", .double(3.5))) } }?.code
                == .invalidValue)
        #expect(try store.read { try $0.count("Reading") } == 2)
    }
}
