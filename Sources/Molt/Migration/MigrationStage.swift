/// A declared step of a ``MigrationPlan``: from one version to a later one, inferred, in code, or by mapping.
///
/// ```swift
/// .lightweight(from: 1, to: 4)                          // a shortcut, inferred in one go
/// .custom(from: 3, to: 4) { migration in                // code, seeing old and new together
///     try migration.enumerateObjects(ofType: "UserMemo") { old, new in
///         new["memoDescription"] = .string("\(old["title"].string ?? "") - \(old["memoSubtitle"].string ?? "")")
///     }
/// }
/// .mapping(from: 1, to: 2, [                            // SQL set operations, reviewable
///     EntityMapping(destination: "Person", attributes: ["fullName": "firstName || ' ' || lastName"]),
/// ])
/// ```
public struct MigrationStage: Sendable {
    /// The code of a custom stage.
    public typealias Body = @Sendable (Migration) throws -> Void

    /// The version the stage starts from.
    public let fromVersion: Int
    /// The version the stage leads to.
    public let toVersion: Int
    let kind: Kind

    enum Kind: Sendable {
        case lightweight
        case custom([Body])
        case mapping([EntityMapping], hook: Body?)
    }

    /// Whether the stage runs code or mappings (rather than being inferred).
    var isCustom: Bool {
        if case .lightweight = kind { return false }
        return true
    }

    /// A stage that Molt infers from the two schemas: a shortcut over several versions, or an explicit
    /// declaration of an inferred step.
    public static func lightweight(from: Int, to: Int) -> MigrationStage {
        MigrationStage(fromVersion: from, toVersion: to, kind: .lightweight)
    }

    /// A stage that runs code with the old and the new version's objects visible together.
    ///
    /// Before `body` runs, the new version's attributes and entities are added beside the old data (values
    /// that convert safely are already converted); after it returns, what the new version no longer has is
    /// dropped and the store is checked against the new schema.
    ///
    /// - Parameters:
    ///   - from: The version the stage starts from.
    ///   - to: The version it leads to: the next one, or a later one for a shortcut.
    ///   - body: The stage's work; throwing rolls back the whole run, and ``Store/open(at:schema:options:)-7fe3v``
    ///     rethrows the error as it was thrown.
    public static func custom(from: Int, to: Int, _ body: @escaping Body) -> MigrationStage {
        MigrationStage(fromVersion: from, toVersion: to, kind: .custom([body]))
    }

    /// A stage in SwiftData's two phases, without SwiftData's trap: both phases share one ``Migration``, so
    /// what `willMigrate` creates or changes is still there in `didMigrate`.
    public static func custom(from: Int, to: Int, willMigrate: Body?, didMigrate: Body?) -> MigrationStage {
        MigrationStage(fromVersion: from, toVersion: to, kind: .custom([willMigrate, didMigrate].compactMap { $0 }))
    }

    /// A stage described by entity mappings, run in the store's database as set operations, then by an optional
    /// hook for what the mappings cannot say (Core Data's `createDestinationInstances`).
    ///
    /// - Parameters:
    ///   - from: The version the stage starts from.
    ///   - to: The version it leads to.
    ///   - mappings: How each destination entity's objects and attributes come from the source entities.
    ///   - hook: Code that runs after the mappings, with both versions visible.
    public static func mapping(from: Int, to: Int, _ mappings: [EntityMapping], hook: Body? = nil) -> MigrationStage {
        MigrationStage(fromVersion: from, toVersion: to, kind: .mapping(mappings, hook: hook))
    }
}
