import Molt

/// Removing an attribute: SQLite's `DROP COLUMN` rewrites every row, so Molt is held to SQLite's own cost.
struct RemoveAttribute: Scenario {
    let name = "remove-attribute"
    let summary = "Remove an attribute: Molt vs SQLite's ALTER TABLE DROP COLUMN on an identical copy"

    func run(_ runner: Runner) throws -> [Comparison] {
        let v2 = Fixture.v2 { $0.removeAll { $0.name == "legacy" } }
        let same = SameResult()
        let count = runner.largeCount
        let m = try runner.measure(
            [
                runner.molt(count: count, to: v2, check: same),
                runner.baseline(count: count, statements: [#"ALTER TABLE "Item" DROP COLUMN "legacy""#], check: same),
            ], repetitions: runner.repetitions)
        return [
            Comparison(
                scenario: name, label: "\(Runner.label(count)) objects", baselineDescription: "ALTER TABLE DROP COLUMN",
                molt: m[0], baseline: m[1], target: .atMost(1.2))
        ]
    }
}
