import Foundation

/// Where a migration run stands.
public struct MigrationProgress: Sendable, Hashable {
    /// The version the current step starts from.
    public var fromVersion: Int
    /// The version the current step leads to.
    public var toVersion: Int
    /// The entity being processed, if any.
    public var entity: String?
    /// Objects or tables done in the current step.
    public var completed: Int
    /// Objects or tables to do in the current step.
    public var total: Int
    /// Steps done before the current one.
    public var stepsCompleted: Int
    /// Steps in the whole run.
    public var stepCount: Int

    /// The fraction of the whole run done, from 0 to 1.
    public var fractionCompleted: Double {
        guard stepCount > 0 else { return 1 }
        let within = total > 0 ? Double(completed) / Double(total) : 0
        return min(1, (Double(stepsCompleted) + within) / Double(stepCount))
    }
}
