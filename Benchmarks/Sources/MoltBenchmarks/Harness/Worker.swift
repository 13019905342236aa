import Foundation

/// A scenario whose jobs can each run in a worker process of their own: so that a time cap can stop a run
/// that the current code makes catastrophically slow, and so that a peak-memory figure is the job's alone.
protocol WorkerJobs: Scenario {
    /// The job called `name` on a store of `count` objects, as a worker runs it on the store its parent made.
    /// The parent checks the result after the worker exits.
    func job(_ name: String, count: Int, runner: Runner) throws -> Runner.Job
}

extension Runner {
    /// The environment variable that turns a scenario's worker into one job: `<job>\t<count>\t<store path>`.
    static let jobVariable = "MOLT_BENCHMARKS_JOB"

    /// A job that runs `scenario`'s job `name` in a worker process on the fresh store this runner made, stopped
    /// at the runner's ``cap`` when `capped`; then `check` runs here on the store the worker left.
    ///
    /// The time and peak memory are the worker's own figures for the timed part (process start and setup are
    /// not counted), or the cap and the worker's `ru_maxrss` when it was stopped.
    func inWorker(
        _ scenario: some WorkerJobs, _ name: String, count: Int, capped: Bool = true,
        check: ((URL) throws -> Void)? = nil
    ) -> Job {
        Job(count: count) { [self] url, stopwatch in
            let output = folder.appendingPathComponent("job-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: output) }
            let outcome = try ChildProcess.run(
                ChildProcess.selfExecutable(), ["--worker", scenario.name] + workerArguments,
                environment: [Runner.jobVariable: "\(name)\t\(count)\t\(url.path)"], stdout: output,
                cap: capped ? cap : nil)
            if outcome.capped {
                // A killed worker could not remove its runner's folder.
                try? FileManager.default.removeItem(at: Runner.folder(of: outcome.pid))
                stopwatch.record(seconds: outcome.seconds, peakMiB: outcome.peakMiB, capped: true)
                return
            }
            guard outcome.status == 0 else {
                throw BenchmarkError(
                    description:
                        "the \(scenario.name) job \(name) on \(Runner.label(count)) failed (exit \(outcome.status))")
            }
            let measured = try JSONDecoder().decode(Measurement.self, from: Data(contentsOf: output))
            stopwatch.record(seconds: measured.samples.first ?? .nan, peakMiB: measured.peakMemoryMiB)
            try check?(url)
        }
    }

    /// In a worker: runs the job the environment names and writes its measurement (one sample) as JSON on
    /// standard output.
    func runJob(_ description: String, of scenario: any Scenario) throws {
        let parts = description.split(separator: "\t", maxSplits: 2).map(String.init)
        guard parts.count == 3, let count = Int(parts[1]), let jobs = scenario as? any WorkerJobs else {
            throw BenchmarkError(description: "bad \(Runner.jobVariable) for \(scenario.name): \(description)")
        }
        var stopwatch = Stopwatch()
        try jobs.job(parts[0], count: count, runner: self).body(URL(fileURLWithPath: parts[2]), &stopwatch)
        let measurement = Measurement(
            samples: [stopwatch.elapsed.seconds], peakSamples: stopwatch.peakMemoryMiB.map { [$0] } ?? [])
        FileHandle.standardOutput.write(try JSONEncoder().encode(measurement))
    }
}
