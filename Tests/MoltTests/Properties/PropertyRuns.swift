import Foundation
import PropertyBased
import Testing

/// How many random cases a property test draws, and from which seed: bounded and reproducible by default, wider
/// on demand.
///
/// - `MOLT_PROPERTY_ITERATIONS=N` draws N cases per property (the default keeps the suite within seconds).
/// - `MOLT_PROPERTY_SEED=<base64>` starts from another seed (a failure prints the seed of its case, which with
///   `MOLT_PROPERTY_ITERATIONS=1` reruns that case alone).
/// - `MOLT_PROPERTY_SEED=random` hands the run to PropertyBased's `propertyCheck`: a new seed each run, and a
///   failing case shrunk to a smaller one, with the `.fixedSeed(…)` trait that reproduces it.
///
/// ```sh
/// MOLT_PROPERTY_ITERATIONS=2000 swift test --filter MigrationPropertyTests
/// ```
enum PropertyRuns {
    /// The seed of every bounded run: a fixed value, so that CI draws the same cases every time.
    static let defaultSeed = "bW9sdC1wcm9wZXJ0eS10ZXN0czogZml4ZWQgc2VlZCE="

    /// The number of cases: `MOLT_PROPERTY_ITERATIONS`, or `defaultCount`.
    static func iterations(default defaultCount: Int) -> Int {
        ProcessInfo.processInfo.environment["MOLT_PROPERTY_ITERATIONS"].flatMap { Int($0) }.map { max($0, 1) }
            ?? defaultCount
    }

    /// Checks `property` on `iterations(default:)` cases drawn by `generator`.
    ///
    /// The property throws to say that a case breaks it; the first such case is recorded as an issue with its
    /// input and its seed, and the run stops there.
    static func check<Input>(
        defaultCount: Int, _ generator: Generator<Input, some Sequence>,
        sourceLocation: SourceLocation = #_sourceLocation, _ property: (Input) throws -> Void
    ) async {
        let count = iterations(default: defaultCount)
        let seedText = ProcessInfo.processInfo.environment["MOLT_PROPERTY_SEED"] ?? defaultSeed
        if seedText == "random" {
            await propertyCheck(
                count: count, input: generator, perform: { try property($0) }, sourceLocation: sourceLocation)
            return
        }
        guard var rng = Xoshiro(seed: seedText) else {
            Issue.record(
                "MOLT_PROPERTY_SEED is not a seed: give 32 bytes in Base64, or `random`.",
                sourceLocation: sourceLocation)
            return
        }
        for index in 0..<count {
            let caseSeed = rng.currentSeed
            let input = generator.run(using: &rng)
            do {
                try property(input)
            } catch {
                Issue.record(
                    "Case \(index) breaks the property: \(error)\nInput: \(input)\nRerun it alone with MOLT_PROPERTY_SEED=\(caseSeed) MOLT_PROPERTY_ITERATIONS=1.",
                    sourceLocation: sourceLocation)
                return
            }
        }
    }
}

/// A case that breaks a property, and which part of it.
struct PropertyViolation: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
