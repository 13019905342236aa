import Foundation
import Molt
import MoltMacros
import Testing

/// `@Model` maps `Int16`, `Int32`, `Float` and `Decimal` properties to the exact attribute types.
@Suite("Typed models: sized numbers and decimals")
struct SizedValueModelTests {
    @Model struct Account {
        var code: Int16
        var count: Int32
        var rate: Float
        var balance: Decimal
        var limit: Decimal?
    }

    static let schema = Schema(version: 1, entities: [Account.entity])

    @Test("the macro names the exact types")
    func entity() {
        #expect(Account.entity.attributes.map(\.type) == [.int16, .int32, .float, .decimal, .decimal])
        #expect(Account.entity.attributes.map(\.isOptional) == [false, false, false, false, true])
    }

    @Test("every value round-trips exactly, and decimals compare by value", arguments: TypedStoreKind.allCases)
    func roundTrip(kind: TypedStoreKind) throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(Self.schema, in: folder.url)
        defer { try? store.close() }
        let big = Decimal(string: "12345678901234567890123456789012345678")!
        try store.write { objects in
            _ = try objects.insert(
                Account(code: .min, count: .max, rate: .leastNonzeroMagnitude, balance: big, limit: nil))
            _ = try objects.insert(Account(code: 7, count: -1, rate: 0.1, balance: Decimal(string: "-1.10")!, limit: 5))
        }
        let accounts = try store.read { try $0.fetch(Account.self, orderBy: [.ascending(\.balance)]) }
        #expect(accounts.map(\.code) == [7, .min])
        #expect(accounts.map(\.rate) == [0.1, .leastNonzeroMagnitude])
        #expect(accounts.map(\.balance) == [Decimal(string: "-1.1")!, big])
        #expect(accounts.map(\.limit) == [5, nil])
        let negative = try store.read { try $0.fetch(Account.self, where: \.balance < 0) }
        #expect(negative.map(\.count) == [-1])
    }
}
