/// A mapping stage runs its SQL expressions inside SQLite as one set operation: it must cost at most 1.1x of
/// the `UPDATE` an engineer would write by hand (issue 3).
struct MappingExpression: Scenario {
    let name = "mapping-expression"
    let summary = "fullName as a SQL-expression mapping, 100k and 1M people, vs ALTER + UPDATE by hand"

    func run(_ runner: Runner) throws -> [Comparison] {
        let stores = TemplateStores.people(runner)
        var comparisons: [Comparison] = []
        for (count, repetitions) in [
            (stores.counts.small, runner.cheapRepetitions), (stores.counts.large, runner.repetitions),
        ] {
            let same = SameResult(table: "Person")
            let m = try stores.measure(
                [
                    People.molt(count: count, plan: People.mappingPlan, check: People.check(same)),
                    People.sqlUpdate(count: count, check: People.check(same)),
                ], repetitions: repetitions)
            comparisons.append(
                Comparison(
                    scenario: name, label: "mapping, \(Runner.label(count))",
                    baselineDescription: "ALTER TABLE; UPDATE SET fullName = …",
                    molt: m[0], baseline: m[1], target: .atMost(1.1)))
            log("  \(Runner.label(count)): Molt \(perObject(m[0], count)), UPDATE \(perObject(m[1], count)) per object")
        }
        return comparisons
    }
}
