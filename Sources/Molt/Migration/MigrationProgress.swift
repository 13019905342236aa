import Foundation

/// Where a migration run stands.
///
/// ``fractionCompleted`` only grows over a run, whatever the steps do: each step takes an equal share, and
/// within a step each unit of work (an enumeration, a mapping, a link phase, a table rebuild, the validation)
/// takes half of what remains of the step's share, so that a stage that walks several entities never goes
/// backwards.
///
/// ```swift
/// options.progress = { progress in
///     print("\(Int(progress.fractionCompleted * 100))% \(progress.phase ?? "")")
/// }
/// ```
public struct MigrationProgress: Sendable, Hashable {
    /// The version the current step starts from.
    public var fromVersion: Int
    /// The version the current step leads to.
    public var toVersion: Int
    /// The entity being processed, if any.
    public var entity: String?
    /// What is being done: "enumerating 'Note'", "rebuilding 'Book'", "mapping into 'Note'", "validating".
    public var phase: String?
    /// Objects (or rows, or mappings) done in the current unit of work.
    public var completed: Int
    /// Objects (or rows, or mappings) in the current unit of work.
    public var total: Int
    /// Steps done before the current one.
    public var stepsCompleted: Int
    /// Steps in the whole run.
    public var stepCount: Int
    /// The fraction of the whole run done, from 0 to 1; it never decreases during a run.
    public var fractionCompleted: Double
}
