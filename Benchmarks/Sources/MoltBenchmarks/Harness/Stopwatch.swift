import Foundation

/// Times the part of a repetition that counts, so that setup (copying the store) and tear-down (closing it,
/// which checkpoints the WAL) stay out of the figure.
struct Stopwatch {
    private(set) var elapsed: Duration = .zero
    private(set) var peakMemoryMiB: Double?
    /// Whether the timed work reached the time cap and was stopped (a child process killed).
    private(set) var capped = false

    /// Runs `work`, adding its wall-clock time to ``elapsed`` and recording its peak resident memory.
    mutating func time<T>(_ work: () throws -> T) rethrows -> T {
        PeakMemory.reset()
        let clock = ContinuousClock()
        let start = clock.now
        let result = try work()
        elapsed += clock.now - start
        if let peak = PeakMemory.currentPeakMiB() { peakMemoryMiB = max(peakMemoryMiB ?? 0, peak) }
        return result
    }

    /// Adds work timed elsewhere: a child process, or a worker that timed itself.
    mutating func record(seconds: Double, peakMiB: Double?, capped: Bool = false) {
        elapsed += .nanoseconds(Int64(seconds * 1e9))
        if let peakMiB { peakMemoryMiB = max(peakMemoryMiB ?? 0, peakMiB) }
        self.capped = self.capped || capped
    }

    /// Runs a program as a child process and records its time and peak memory (`ru_maxrss`), stopping it at
    /// `cap` seconds.
    ///
    /// - Throws: ``BenchmarkError`` when it cannot start, or exits with another status than 0 without being capped.
    mutating func timeProcess(_ executable: URL, _ arguments: [String], stdout: URL? = nil, cap: Double? = nil) throws {
        let outcome = try ChildProcess.run(executable, arguments, stdout: stdout, cap: cap)
        guard outcome.capped || outcome.status == 0 else {
            throw BenchmarkError(
                description:
                    "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed (exit \(outcome.status))"
            )
        }
        record(seconds: outcome.seconds, peakMiB: outcome.peakMiB, capped: outcome.capped)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
