/// A declared step of a ``MigrationPlan``: from one version to a later one.
///
/// ```swift
/// .lightweight(from: 1, to: 4)       // a shortcut, inferred in one go
/// ```
public struct MigrationStage: Sendable {
    /// The version the stage starts from.
    public let fromVersion: Int
    /// The version the stage leads to.
    public let toVersion: Int
    let kind: Kind

    enum Kind: Sendable {
        case lightweight
    }

    /// A stage that Molt infers from the two schemas: a shortcut over several versions, or an explicit
    /// declaration of an inferred step.
    public static func lightweight(from: Int, to: Int) -> MigrationStage {
        MigrationStage(fromVersion: from, toVersion: to, kind: .lightweight)
    }
}
