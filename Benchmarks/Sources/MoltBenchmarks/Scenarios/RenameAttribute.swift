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
        let small = try runner.measureMolt(count: runner.smallCount, to: v2)
        let large = try runner.measureMolt(count: runner.largeCount, to: v2, check: same.check)
        let raw = try runner.measureBaseline(
            count: runner.largeCount, statements: [#"ALTER TABLE Item RENAME COLUMN "title" TO "heading""#], check: same.check)
        let (s, l) = (Runner.label(runner.smallCount), Runner.label(runner.largeCount))
        return [
            Comparison(scenario: name, label: "\(l) vs \(s) objects", baselineDescription: "Molt on \(s) objects",
                       molt: large, baseline: small, target: .below(2)),
            Comparison(scenario: name, label: "vs raw SQL, \(l)", baselineDescription: "ALTER TABLE RENAME COLUMN",
                       molt: large, baseline: raw, target: nil),
        ]
    }
}
