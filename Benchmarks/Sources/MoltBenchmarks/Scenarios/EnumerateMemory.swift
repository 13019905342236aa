import Foundation

/// Enumeration streams: the peak resident memory of an `enumerateObjects` stage on 1M people must stay within
/// 1.2x of the same stage on 100k (issue 3). Each run happens in a child process of its own, started from a
/// template this process made, so that no run inherits another's heap; the child reports `VmHWM` over
/// `Store.open` (or the baseline's transaction).
///
/// Its measurements are in MiB (one sample: the peak), so the ratio is of peak memory.
struct EnumerateMemory: Scenario {
    let name = "enumerate-memory"
    let summary = "Peak memory of enumerateObjects, 1M vs 100k people (own process each), vs loops by hand"

    /// The environment variable that turns a worker of this scenario into one measured job:
    /// `<job> <count> <template path>`.
    static let jobVariable = "MOLT_BENCHMARKS_PEAK_JOB"

    enum Job: String, CaseIterable {
        case molt, raw, fetchAll

        func make(count: Int) -> Runner.Job {
            switch self {
            case .molt: return People.molt(count: count, plan: People.enumeratePlan, check: People.check(nil))
            case .raw: return People.rawLoop(count: count, check: People.check(nil))
            case .fetchAll: return People.grdbLoop(count: count, fetchingAllFirst: true, check: People.check(nil))
            }
        }
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        if let job = ProcessInfo.processInfo.environment[Self.jobVariable] { return try measureOne(job, runner) }
        let stores = PeopleStores(runner)
        let (small, large) = stores.counts
        func peak(_ job: Job, _ count: Int) throws -> Measurement {
            let measurement = try child(job, count: count, template: try stores.template(count: count), runner)
            let mib = measurement.peakMemoryMiB ?? .nan
            log("  \(job.rawValue), \(Runner.label(count)): peak \(String(format: "%.1f", mib)) MiB in \(format(seconds: measurement.median))")
            return Measurement(samples: [mib], peakMemoryMiB: mib, unit: .mebibytes)
        }
        let moltSmall = try peak(.molt, small)
        let moltLarge = try peak(.molt, large)
        let rawLarge = try peak(.raw, large)
        let naiveLarge = try peak(.fetchAll, large)
        let (s, l) = (Runner.label(small), Runner.label(large))
        return [
            Comparison(scenario: name, label: "peak MiB, enumerate \(l) vs \(s)", baselineDescription: "Molt on \(s) people",
                       molt: moltLarge, baseline: moltSmall, target: .atMost(1.2)),
            Comparison(scenario: name, label: "peak MiB, enumerate \(l)", baselineDescription: "raw C streaming loop, \(l)",
                       molt: moltLarge, baseline: rawLarge, target: nil),
            Comparison(scenario: name, label: "peak MiB, enumerate \(l)", baselineDescription: "GRDB, fetch all rows first, \(l)",
                       molt: moltLarge, baseline: naiveLarge, target: nil),
        ]
    }

    /// In a child: copies the template, runs one job once, and returns its measurement (as both sides of a
    /// comparison, which is how a worker hands results back).
    private func measureOne(_ description: String, _ runner: Runner) throws -> [Comparison] {
        let parts = description.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3, let job = Job(rawValue: parts[0]), let count = Int(parts[1]) else {
            throw BenchmarkError(description: "bad \(Self.jobVariable): \(description)")
        }
        let url = runner.folder.appendingPathComponent("people-peak.sqlite")
        try Fixture.copy(URL(fileURLWithPath: parts[2]), to: url)
        var stopwatch = Stopwatch()
        try job.make(count: count).body(url, &stopwatch)
        Fixture.remove(url)
        let measurement = Measurement(samples: [stopwatch.elapsed.seconds], peakMemoryMiB: stopwatch.peakMemoryMiB)
        return [Comparison(scenario: name, label: description, baselineDescription: "", molt: measurement, baseline: measurement, target: nil)]
    }

    /// Runs one job in a child process of this executable.
    private func child(_ job: Job, count: Int, template: URL, _ runner: Runner) throws -> Measurement {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if !FileManager.default.fileExists(atPath: process.executableURL!.path) {
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        }
        process.arguments = [
            "--worker", name, "--small", "\(runner.smallCount)", "--large", "\(runner.largeCount)", "--repetitions", "1",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.jobVariable] = "\(job.rawValue) \(count) \(template.path)"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let result = try JSONDecoder().decode([Comparison].self, from: data).first else {
            throw BenchmarkError(description: "the \(job.rawValue) job on \(Runner.label(count)) people failed (exit \(process.terminationStatus))")
        }
        return result.molt
    }
}
