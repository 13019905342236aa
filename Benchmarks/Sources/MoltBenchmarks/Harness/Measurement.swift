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
    /// The peak resident memory reached during any repetition, in MiB (Linux `VmHWM`, reset before each one),
    /// or nil where the platform cannot tell.
    var peakMemoryMiB: Double?

    /// The median of ``samples``.
    var median: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    enum CodingKeys: String, CodingKey { case samples, unit, median, peakMemoryMiB }

    init(samples: [Double], peakMemoryMiB: Double?, unit: Unit = .seconds) {
        self.samples = samples
        self.peakMemoryMiB = peakMemoryMiB
        self.unit = unit
    }

    /// The median, written with its unit: "12.3 ms", "27.7 MiB".
    var formattedMedian: String {
        switch unit {
        case .seconds: return format(seconds: median)
        case .mebibytes: return String(format: "%.1f MiB", median)
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        samples = try container.decode([Double].self, forKey: .samples)
        unit = try container.decodeIfPresent(Unit.self, forKey: .unit) ?? .seconds
        peakMemoryMiB = try container.decodeIfPresent(Double.self, forKey: .peakMemoryMiB)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(samples, forKey: .samples)
        try container.encode(unit, forKey: .unit)
        try container.encode(median, forKey: .median)
        try container.encodeIfPresent(peakMemoryMiB, forKey: .peakMemoryMiB)
    }
}

/// The ratio a comparison must stay under (or at) to pass.
struct Target: Codable, Sendable, CustomStringConvertible {
    /// The largest acceptable ratio of Molt's median to the baseline's.
    var maxRatio: Double
    /// Whether a ratio equal to ``maxRatio`` passes (`≤`) or not (`<`).
    var inclusive: Bool

    static func below(_ ratio: Double) -> Target { Target(maxRatio: ratio, inclusive: false) }
    static func atMost(_ ratio: Double) -> Target { Target(maxRatio: ratio, inclusive: true) }

    func accepts(_ ratio: Double) -> Bool { inclusive ? ratio <= maxRatio : ratio < maxRatio }

    var description: String { (inclusive ? "≤ " : "< ") + String(format: "%.1fx", maxRatio) }
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

    /// Molt's median over the baseline's.
    var ratio: Double { molt.median / baseline.median }
    /// Whether the ratio meets the target; nil without a target.
    var passed: Bool? { target.map { $0.accepts(ratio) } }

    enum CodingKeys: String, CodingKey { case scenario, label, baselineDescription = "baseline_is", molt, baseline, target, ratio, passed }

    init(scenario: String, label: String, baselineDescription: String, molt: Measurement, baseline: Measurement, target: Target?) {
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
