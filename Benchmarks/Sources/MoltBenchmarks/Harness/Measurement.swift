/// The timings of one measured operation, repeated on fresh copies of the same data.
struct Measurement: Codable, Sendable {
    /// What ``samples`` count.
    enum Unit: String, Codable, Sendable {
        /// Wall-clock seconds: the usual case.
        case seconds
        /// Peak resident memory in MiB, for scenarios whose target is about memory.
        case mebibytes = "MiB"
    }

    /// Wall-clock seconds of each repetition (or other ``unit``s), in the order they ran.
    var samples: [Double]
    /// What ``samples`` count. Defaults to seconds.
    var unit: Unit = .seconds
    /// The peak resident memory of each repetition, in MiB (Linux `VmHWM` reset before it, or a child's
    /// `ru_maxrss`); empty where the platform cannot tell.
    var peakSamples: [Double] = []
    /// Whether a repetition reached the time cap and was stopped: its sample is the cap, a lower bound, and
    /// the job was not repeated.
    var capped = false

    /// The peak resident memory reached during any repetition, in MiB, or nil where the platform cannot tell.
    var peakMemoryMiB: Double? { peakSamples.max() }

    /// The median of ``samples``: the figure targets are judged on. A lower bound when ``capped``.
    var median: Double { Self.median(samples) }
    /// The smallest sample: the run least disturbed by the machine's other work.
    var minimum: Double { samples.min() ?? .nan }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    enum CodingKeys: String, CodingKey { case samples, unit, median, min, peakSamples, peakMemoryMiB, capped }

    init(samples: [Double], peakSamples: [Double] = [], unit: Unit = .seconds, capped: Bool = false) {
        self.samples = samples
        self.peakSamples = peakSamples
        self.unit = unit
        self.capped = capped
    }

    /// The peaks of each repetition as a measurement of their own (in MiB), for a memory target.
    var peaks: Measurement {
        Measurement(samples: peakSamples, peakSamples: peakSamples, unit: .mebibytes, capped: capped)
    }

    /// The same measurement per object: every sample divided by `count`.
    func perObject(_ count: Int) -> Measurement {
        var result = self
        result.samples = samples.map { $0 / Double(count) }
        return result
    }

    /// The median, written with its unit: "12.3 ms", "27.7 MiB"; "≥ 60.0 s" for a capped run.
    var formattedMedian: String { (capped ? "≥ " : "") + formatted(median) }
    /// The minimum, written with its unit; "≥" when every sample was capped.
    var formattedMinimum: String { (capped && samples.count == 1 ? "≥ " : "") + formatted(minimum) }

    func formatted(_ value: Double) -> String {
        switch unit {
        case .seconds: return format(seconds: value)
        case .mebibytes: return String(format: "%.1f MiB", value)
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        samples = try container.decode([Double].self, forKey: .samples)
        unit = try container.decodeIfPresent(Unit.self, forKey: .unit) ?? .seconds
        peakSamples = try container.decodeIfPresent([Double].self, forKey: .peakSamples) ?? []
        capped = try container.decodeIfPresent(Bool.self, forKey: .capped) ?? false
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(samples, forKey: .samples)
        try container.encode(unit, forKey: .unit)
        try container.encode(median, forKey: .median)
        try container.encode(minimum, forKey: .min)
        try container.encode(peakSamples, forKey: .peakSamples)
        try container.encodeIfPresent(peakMemoryMiB, forKey: .peakMemoryMiB)
        try container.encode(capped, forKey: .capped)
    }
}

/// What a comparison must stay under (or at) to pass: a ratio of Molt's median to the baseline's, or a limit
/// on Molt's median itself (peak memory in MiB).
struct Target: Codable, Sendable, CustomStringConvertible {
    /// The largest acceptable ratio of Molt's median to the baseline's, or the largest acceptable median
    /// (in the measurement's unit) when ``absolute``.
    var maxRatio: Double
    /// Whether a ratio equal to ``maxRatio`` passes (`≤`) or not (`<`).
    var inclusive: Bool
    /// Whether ``maxRatio`` limits Molt's median itself rather than its ratio to the baseline.
    var absolute = false

    static func below(_ ratio: Double) -> Target { Target(maxRatio: ratio, inclusive: false) }
    static func atMost(_ ratio: Double) -> Target { Target(maxRatio: ratio, inclusive: true) }
    /// Molt's median peak memory at most `mebibytes`.
    static func atMost(mebibytes: Double) -> Target { Target(maxRatio: mebibytes, inclusive: true, absolute: true) }

    func accepts(_ value: Double) -> Bool { inclusive ? value <= maxRatio : value < maxRatio }

    var description: String {
        let digits = (maxRatio * 10).rounded() == maxRatio * 10 ? "%.1f" : "%.2f"
        return (inclusive ? "≤ " : "< ")
            + (absolute ? String(format: "%.0f MiB", maxRatio) : String(format: digits + "x", maxRatio))
    }
}

/// One line of the report: Molt against a baseline measured in the same run, on identical data.
struct Comparison: Codable, Sendable {
    /// The scenario that produced it (its command-line name).
    var scenario: String
    /// What is compared, e.g. "1M vs 1k objects".
    var label: String
    /// What the baseline is, in words.
    var baselineDescription: String
    var molt: Measurement
    var baseline: Measurement
    /// The target, or nil for a figure reported for information.
    var target: Target?

    /// Molt's median over the baseline's (a lower bound when Molt's run was capped).
    var ratio: Double { molt.median / baseline.median }

    /// Whether Molt's figure meets the target; nil without a target, or when a capped run leaves it open.
    var passed: Bool? {
        guard let target else { return nil }
        let value = target.absolute ? molt.median : ratio
        if target.accepts(value) { return molt.capped ? nil : true }
        return false
    }

    enum CodingKeys: String, CodingKey {
        case scenario, label, baselineDescription = "baseline_is", molt, baseline, target, ratio, passed
    }

    init(
        scenario: String, label: String, baselineDescription: String, molt: Measurement, baseline: Measurement,
        target: Target?
    ) {
        self.scenario = scenario
        self.label = label
        self.baselineDescription = baselineDescription
        self.molt = molt
        self.baseline = baseline
        self.target = target
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        scenario = try container.decode(String.self, forKey: .scenario)
        label = try container.decode(String.self, forKey: .label)
        baselineDescription = try container.decode(String.self, forKey: .baselineDescription)
        molt = try container.decode(Measurement.self, forKey: .molt)
        baseline = try container.decode(Measurement.self, forKey: .baseline)
        target = try container.decodeIfPresent(Target.self, forKey: .target)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scenario, forKey: .scenario)
        try container.encode(label, forKey: .label)
        try container.encode(baselineDescription, forKey: .baselineDescription)
        try container.encode(molt, forKey: .molt)
        try container.encode(baseline, forKey: .baseline)
        try container.encodeIfPresent(target, forKey: .target)
        try container.encode(ratio, forKey: .ratio)
        try container.encodeIfPresent(passed, forKey: .passed)
    }
}
