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

    /// Runs `body` `repetitions` times, each on a fresh input from `prepare`, and collects the timed parts.
    static func measure<Input>(
        repetitions: Int, prepare: () throws -> Input, _ body: (Input, inout Stopwatch) throws -> Void
    ) throws -> Measurement {
        var samples: [Double] = []
        var peak: Double?
        for _ in 0..<repetitions {
            let input = try prepare()
            var stopwatch = Stopwatch()
            try body(input, &stopwatch)
            samples.append(stopwatch.elapsed.seconds)
            if let p = stopwatch.peakMemoryMiB { peak = max(peak ?? 0, p) }
        }
        return Measurement(samples: samples, peakMemoryMiB: peak)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
