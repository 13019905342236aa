import Foundation

/// One migration run recorded in a store's history.
public struct MigrationRecord: Hashable, Sendable, Codable {
    /// The version the store was at before the run.
    public var fromVersion: Int
    /// The version the run brought it to.
    public var toVersion: Int
    /// When the run started.
    public var startedAt: Date
    /// How long it took, in seconds.
    public var duration: Double
    /// How many rows it wrote (copies made by table rebuilds, values converted or set by stages).
    public var objectsTouched: Int
    /// A line per step: "1 → 2 inferred: Attribute 'UserMemo.count' has been added."
    public var steps: [String]
}
