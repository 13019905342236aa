/// What ``Store/verify()`` found in a sound store that its user may want to know: the objects kept under a to-many
/// relationship's minimum count.
///
/// Core Data checks a minimum count only for the objects a save changes, so a store it wrote, or one a migration
/// took through a version that raised a minimum (``Schema/ShortOwners/kept``), may hold owners under it. They are
/// not damage: Molt keeps them, lists them where they arose (``AdoptionRecord/underMinimumCount``,
/// ``MigrationStepRecord/underMinimumCount``), and holds them to the minimum once a write inserts or unlinks them.
///
/// ```swift
/// let verification = try store.verify()
/// for line in verification.underMinimumCount { print(line) }
/// // the relationship 'UserClient.ignoredByClients' is under its minimum count of 1: 7 'UserClient' objects
/// // (_id 3, 8, 12, …) have no 'ignoredByClients'
/// ```
public struct StoreVerification: Hashable, Sendable {
    /// One line per to-many relationship that some objects hold fewer destinations than its minimum count, with
    /// how many and the first identifiers; empty when every owner meets it.
    public var underMinimumCount: [String]

    public init(underMinimumCount: [String] = []) {
        self.underMinimumCount = underMinimumCount
    }
}
