import Molt

/// Adding an optional attribute is metadata-only: `ALTER TABLE ADD COLUMN` rewrites no row, so the
/// migration costs the same on 1M objects as on 1k.
struct AddAttribute: Scenario {
    let name = "add-attribute"
    let summary = "Add an optional attribute: 1M vs 1k objects, and vs ALTER TABLE ADD COLUMN"

    func run(_ runner: Runner) throws -> [Comparison] {
        let v2 = Fixture.v2 { $0.append(Attribute("note", .string, isOptional: true)) }
        let same = SameResult()
        let (s, l) = (runner.smallCount, runner.largeCount)
        let m = try runner.measure(
            [
                runner.molt(count: s, to: v2),
                runner.molt(count: l, to: v2, check: same),
                runner.baseline(count: l, statements: [#"ALTER TABLE "Item" ADD COLUMN "note" TEXT"#], check: same),
            ], repetitions: runner.cheapRepetitions)
        return [
            Comparison(
                scenario: name, label: "\(Runner.label(l)) vs \(Runner.label(s)) objects",
                baselineDescription: "Molt on \(Runner.label(s)) objects", molt: m[1], baseline: m[0], target: .below(2)
            ),
            Comparison(
                scenario: name, label: "vs raw SQL, \(Runner.label(l))", baselineDescription: "ALTER TABLE ADD COLUMN",
                molt: m[1], baseline: m[2], target: nil),
        ]
    }
}
