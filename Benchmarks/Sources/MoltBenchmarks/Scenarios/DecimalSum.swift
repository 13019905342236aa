import Foundation
import Molt

/// The price of exact decimals (issue 22): summing a `decimal` attribute over N objects against the same sum
/// over a `double` attribute, both as typed fetches in one read (a `Decimal` is parsed from its stored text on
/// SQLite, a `Double` read as a REAL). No target: the figure is reported so that an app choosing `decimal` for
/// money knows what it costs. Then `objects.sum`, exact or refused, against the unchecked loop: ≤ 1.1×.
struct DecimalSum: Scenario {
    let name = "decimal-sum"
    let summary = "Sum of a decimal attribute over 1M typed objects vs the same sum over a double attribute"

    /// What `@Model struct Money { var amount: Decimal }` expands to.
    struct Money: PersistentModel {
        var amount: Decimal
        var persistentID: Int64? = nil

        init(amount: Decimal) { self.amount = amount }

        static let entity = Entity("Money", attributes: [Attribute("amount", .decimal)])

        init(row: ModelRow) throws {
            persistentID = row.id
            amount = try row.value(at: 0)
        }

        func encode(to columns: inout ModelColumns) { columns.append(amount) }

        static func propertyName(for keyPath: PartialKeyPath<Money>) -> String? {
            keyPath == \Money.amount ? "amount" : nil
        }
    }

    /// What `@Model struct Approximate { var amount: Double }` expands to.
    struct Approximate: PersistentModel {
        var amount: Double
        var persistentID: Int64? = nil

        init(amount: Double) { self.amount = amount }

        static let entity = Entity("Approximate", attributes: [Attribute("amount", .double)])

        init(row: ModelRow) throws {
            persistentID = row.id
            amount = try row.value(at: 0)
        }

        func encode(to columns: inout ModelColumns) { columns.append(amount) }

        static func propertyName(for keyPath: PartialKeyPath<Approximate>) -> String? {
            keyPath == \Approximate.amount ? "amount" : nil
        }
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let n = runner.largeCount
        let schema = Schema(version: 1, entities: [Money.entity, Approximate.entity])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("decimal-sum-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store.open(at: folder.appendingPathComponent("money.sqlite"), schema: schema)
        defer { try? store.close() }
        // Cents from 0.01 to 999.99, the same values in both entities.
        var expected = Decimal(0)
        try store.write { objects in
            for i in 0..<n {
                let cents = i % 99_999 + 1
                var amount = Decimal(cents)
                amount /= 100
                expected += amount
                try objects.insert(Money(amount: amount))
                try objects.insert(Approximate(amount: Double(cents) / 100))
            }
        }
        let decimalSum = Runner.Job(count: runner.smallCount) { _, stopwatch in
            let sum = try stopwatch.time {
                try store.read { objects in
                    var sum = Decimal(0)
                    try objects.forEach(Money.self) { sum += $0.amount }
                    return sum
                }
            }
            guard sum == expected else {
                throw BenchmarkError(description: "the decimal sum is \(sum), not \(expected)")
            }
        }
        let doubleSum = Runner.Job(count: runner.smallCount) { _, stopwatch in
            let sum = try stopwatch.time {
                try store.read { objects in
                    var sum = 0.0
                    try objects.forEach(Approximate.self) { sum += $0.amount }
                    return sum
                }
            }
            guard abs(sum - (expected as NSDecimalNumber).doubleValue) < 1 else {
                throw BenchmarkError(description: "the double sum is \(sum)")
            }
        }
        // The aggregate: exact (each addition checked, digit by digit past what a Decimal holds), compared with
        // the typed loop that adds in Decimal unchecked, which is what the aggregate did before (issue 36).
        let aggregate = Runner.Job(count: runner.smallCount) { _, stopwatch in
            let sum = try stopwatch.time { try store.read { try $0.sum("amount", of: "Money") } }
            guard sum == .decimal(expected) else {
                throw BenchmarkError(description: "the aggregate decimal sum is \(sum), not \(expected)")
            }
        }
        let m = try runner.measure([decimalSum, doubleSum, aggregate], repetitions: runner.repetitions)
        let label = Runner.label(n)
        log(
            "  \(label): decimal \(perObject(m[0], n)), double \(perObject(m[1], n)), aggregate \(perObject(m[2], n)) per object"
        )
        return [
            Comparison(
                scenario: name, label: "sum of \(label) decimals (typed forEach)",
                baselineDescription: "the same sum over doubles", molt: m[0], baseline: m[1], target: nil),
            Comparison(
                scenario: name, label: "objects.sum of \(label) decimals (exact, checked)",
                baselineDescription: "the typed forEach adding in Decimal unchecked", molt: m[2], baseline: m[0],
                target: .atMost(1.1)),
        ]
    }
}
