/// A custom stage that walks every object in Swift (`enumerateObjects`) must stay close to the loop an
/// engineer would write on the SQLite C API: at most 1.3x of it (issue 3).
struct EnumerateObjects: Scenario {
    let name = "enumerate-objects"
    let summary = "enumerateObjects computing fullName, 100k and 1M people, vs a raw SQLite C loop (and GRDB's)"

    func run(_ runner: Runner) throws -> [Comparison] {
        let stores = TemplateStores.people(runner)
        var comparisons: [Comparison] = []
        for (count, repetitions) in [
            (stores.counts.small, runner.cheapRepetitions), (stores.counts.large, runner.repetitions),
        ] {
            let same = SameResult(table: "Person")
            let m = try stores.measure(
                [
                    People.molt(count: count, plan: People.enumeratePlan, check: People.check(same)),
                    People.rawLoop(count: count, check: People.check(same)),
                    People.grdbLoop(count: count, check: People.check(same)),
                ], repetitions: repetitions)
            let label = Runner.label(count)
            comparisons += [
                Comparison(
                    scenario: name, label: "enumerateObjects, \(label)",
                    baselineDescription: "raw C loop: SELECT, UPDATE by _id",
                    molt: m[0], baseline: m[1], target: .atMost(1.3)),
                Comparison(
                    scenario: name, label: "GRDB row loop, \(label) (reference)",
                    baselineDescription: "raw C loop: SELECT, UPDATE by _id",
                    molt: m[2], baseline: m[1], target: nil),
            ]
            log(
                "  \(label): Molt \(perObject(m[0], count)), raw C \(perObject(m[1], count)), GRDB \(perObject(m[2], count)) per object"
            )
        }
        return comparisons
    }
}

/// The median time per object, for the log: "1.75 µs".
func perObject(_ measurement: Measurement, _ count: Int) -> String {
    String(format: "%.2f µs", measurement.median / Double(count) * 1e6)
}
