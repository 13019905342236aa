import Foundation

/// Enumeration streams: the peak resident memory of an `enumerateObjects` stage on 1M people must stay within
/// 1.2x of the same stage on 100k (issue 3). Each run happens in a worker process of its own, on a fresh copy
/// of the store this process made, so that no run inherits another's heap; the worker reports `VmHWM` over
/// `Store.open` (or the baseline's transaction).
///
/// The comparisons are of peak memory (MiB), the median of the rounds.
struct EnumerateMemory: WorkerJobs {
    let name = "enumerate-memory"
    let summary = "Peak memory of enumerateObjects, 1M vs 100k people (own process each), vs loops by hand"

    func job(_ name: String, count: Int, runner: Runner) throws -> Runner.Job {
        switch name {
        case "molt": return People.molt(count: count, plan: People.enumeratePlan, check: { _ in })
        case "raw": return People.rawLoop(count: count, check: { _ in })
        case "fetchAll": return People.grdbLoop(count: count, fetchingAllFirst: true, check: { _ in })
        default: throw BenchmarkError(description: "no job \(name) in \(self.name)")
        }
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let stores = TemplateStores.people(runner)
        let (small, large) = stores.counts
        let check = People.check(nil)
        let m = try stores.measure(
            [
                runner.inWorker(self, "molt", count: small, capped: false, check: check),
                runner.inWorker(self, "molt", count: large, capped: false, check: check),
                runner.inWorker(self, "raw", count: large, capped: false, check: check),
                runner.inWorker(self, "fetchAll", count: large, capped: false, check: check),
            ], repetitions: runner.repetitions)
        let (s, l) = (Runner.label(small), Runner.label(large))
        return [
            Comparison(
                scenario: name, label: "peak MiB, enumerate \(l) vs \(s)", baselineDescription: "Molt on \(s) people",
                molt: m[1].peaks, baseline: m[0].peaks, target: .atMost(1.2)),
            Comparison(
                scenario: name, label: "peak MiB, enumerate \(l)", baselineDescription: "raw C streaming loop, \(l)",
                molt: m[1].peaks, baseline: m[2].peaks, target: nil),
            Comparison(
                scenario: name, label: "peak MiB, enumerate \(l)",
                baselineDescription: "GRDB, fetch all rows first, \(l)",
                molt: m[1].peaks, baseline: m[3].peaks, target: nil),
        ]
    }
}
