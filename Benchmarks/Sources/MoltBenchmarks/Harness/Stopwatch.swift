import Foundation

/// Times the part of a repetition that counts, so that setup (copying the store) and tear-down (closing it,
/// which checkpoints the WAL) stay out of the figure.
struct Stopwatch {
    private(set) var elapsed: Duration = .zero
    private(set) var peakMemoryMiB: Double?

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
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
