import Molt

/// Adding an optional attribute is metadata-only: `ALTER TABLE ADD COLUMN` rewrites no row, so the
/// migration costs the same on 1M objects as on 1k.
struct AddAttribute: Scenario {
    let name = "add-attribute"
    let summary = "Add an optional attribute: 1M vs 1k objects, and vs ALTER TABLE ADD COLUMN"

    func run(_ runner: Runner) throws -> [Comparison] {
        let v2 = Fixture.v2 { $0.append(Attribute("note", .string, isOptional: true)) }
        let same = SameResult()
        let small = try runner.measureMolt(count: runner.smallCount, to: v2)
        let large = try runner.measureMolt(count: runner.largeCount, to: v2, check: same.check)
        let raw = try runner.measureBaseline(
            count: runner.largeCount, statements: [#"ALTER TABLE Item ADD COLUMN "note" TEXT"#], check: same.check)
        let (s, l) = (Runner.label(runner.smallCount), Runner.label(runner.largeCount))
        return [
            Comparison(scenario: name, label: "\(l) vs \(s) objects", baselineDescription: "Molt on \(s) objects",
                       molt: large, baseline: small, target: .below(2)),
            Comparison(scenario: name, label: "vs raw SQL, \(l)", baselineDescription: "ALTER TABLE ADD COLUMN",
                       molt: large, baseline: raw, target: nil),
        ]
    }
}
