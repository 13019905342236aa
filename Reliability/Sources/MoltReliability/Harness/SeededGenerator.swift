/// A deterministic random number generator (SplitMix64): the same seed gives the same cases, kill moments and
/// damage on every machine.
///
/// Each kind draws from its own stream, derived from the campaign's seed and the kind's name, so that
/// `--only damaged-store` produces exactly the damaged files of a full run.
///
/// ```swift
/// var random = SeededGenerator(seed: 7, stream: "damaged-store")
/// let page = Int.random(in: 1...pages, using: &random)
/// ```
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// A generator for one named stream of a campaign seed.
    init(seed: UInt64, stream: String) {
        state = seed ^ FNV.hash(stream)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) } }
}
