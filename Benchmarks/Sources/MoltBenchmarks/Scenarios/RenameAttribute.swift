import Molt

/// Renaming an attribute through its original name is metadata-only: `ALTER TABLE RENAME COLUMN` rewrites
/// no row.
struct RenameAttribute: Scenario {
    let name = "rename-attribute"
    let summary = "Rename an attribute (originalName): 1M vs 1k objects, and vs ALTER TABLE RENAME COLUMN"

    func run(_ runner: Runner) throws -> [Comparison] {
        let v2 = Fixture.v2 { attributes in
            let i = attributes.firstIndex { $0.name == "title" }!
            attributes[i] = Attribute("heading", .string, originalName: "title")
        }
        let same = SameResult()
        let (s, l) = (runner.smallCount, runner.largeCount)
        let m = try runner.measure(
            [
                runner.molt(count: s, to: v2),
                runner.molt(count: l, to: v2, check: same),
                runner.baseline(
                    count: l, statements: [#"ALTER TABLE "Item" RENAME COLUMN "title" TO "heading""#], check: same),
            ], repetitions: runner.cheapRepetitions)
        return [
            Comparison(
                scenario: name, label: "\(Runner.label(l)) vs \(Runner.label(s)) objects",
                baselineDescription: "Molt on \(Runner.label(s)) objects", molt: m[1], baseline: m[0], target: .below(2)
            ),
            Comparison(
                scenario: name, label: "vs raw SQL, \(Runner.label(l))",
                baselineDescription: "ALTER TABLE RENAME COLUMN",
                molt: m[1], baseline: m[2], target: nil),
        ]
    }
}
