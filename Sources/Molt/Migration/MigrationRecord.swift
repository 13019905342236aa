import Foundation

/// One migration run recorded in a store's history.
///
/// ```swift
/// for record in try store.history() {
///     print(record.fromVersion, "→", record.toVersion, record.stepRecords.map(\.summary))
/// }
/// ```
public struct MigrationRecord: Hashable, Sendable, Codable {
    /// The version the store was at before the run.
    public var fromVersion: Int
    /// The version the run brought it to.
    public var toVersion: Int
    /// When the run started.
    public var startedAt: Date
    /// How long it took, in seconds.
    public var duration: Double
    /// Objects inserted, updated and deleted by the run, each counted once per step (the sum of the steps').
    public var objectsTouched: Int
    /// A line per step: "1 → 2 inferred: Attribute 'UserMemo.count' has been added."
    public var steps: [String]
    /// What each step did, exactly: objects inserted, updated and deleted, and data dropped. Empty for runs
    /// recorded by a Molt that did not record them.
    public var stepRecords: [MigrationStepRecord]

    public init(
        fromVersion: Int, toVersion: Int, startedAt: Date, duration: Double, steps: [String],
        stepRecords: [MigrationStepRecord], objectsTouched: Int? = nil
    ) {
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.startedAt = startedAt
        self.duration = duration
        self.steps = steps
        self.stepRecords = stepRecords
        self.objectsTouched =
            objectsTouched
            ?? stepRecords.reduce(0) { $0 + $1.objectsInserted + $1.objectsUpdated + $1.objectsDeleted }
    }

    /// Everything the run dropped, over all its steps.
    public var dropped: [DroppedData] { stepRecords.flatMap(\.dropped) }
}

/// What one step of a migration run did.
public struct MigrationStepRecord: Hashable, Sendable, Codable {
    /// How the step ran.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// Inferred by Molt.
        case inferred
        /// A custom stage's code.
        case custom
        /// Entity mappings (and their hook).
        case mapping
    }

    /// The version the step starts from.
    public var fromVersion: Int
    /// The version it leads to.
    public var toVersion: Int
    /// How it ran.
    public var kind: Kind
    /// Objects the step created (a stage's `create`, a mapping's inserts).
    public var objectsInserted: Int
    /// Objects whose stored values the step changed (a stage's writes, a conversion, a default filled in),
    /// each counted once however many times it was written.
    public var objectsUpdated: Int
    /// Objects the step deleted (a stage's `delete` and `deleteData`, with their cascades).
    public var objectsDeleted: Int
    /// The objects, values and links the step's schema change dropped.
    public var dropped: [DroppedData]
    /// The existing objects the step kept under a minimum count it added or raised (``Schema/ShortOwners``), one
    /// line per relationship with how many and the first identifiers: `7 'UserClient' objects (_id 3, 8, 12, …)
    /// hold fewer than 1 'ignoredByClients'`. Empty when every owner meets it.
    public var underMinimumCount: [String]

    public init(
        fromVersion: Int, toVersion: Int, kind: Kind, objectsInserted: Int = 0, objectsUpdated: Int = 0,
        objectsDeleted: Int = 0, dropped: [DroppedData] = [], underMinimumCount: [String] = []
    ) {
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.kind = kind
        self.objectsInserted = objectsInserted
        self.objectsUpdated = objectsUpdated
        self.objectsDeleted = objectsDeleted
        self.dropped = dropped
        self.underMinimumCount = underMinimumCount
    }

    enum CodingKeys: String, CodingKey {
        case fromVersion, toVersion, kind, objectsInserted, objectsUpdated, objectsDeleted, dropped, underMinimumCount
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            fromVersion: try c.decode(Int.self, forKey: .fromVersion),
            toVersion: try c.decode(Int.self, forKey: .toVersion),
            kind: try c.decode(Kind.self, forKey: .kind),
            objectsInserted: try c.decode(Int.self, forKey: .objectsInserted),
            objectsUpdated: try c.decode(Int.self, forKey: .objectsUpdated),
            objectsDeleted: try c.decode(Int.self, forKey: .objectsDeleted),
            dropped: try c.decode([DroppedData].self, forKey: .dropped),
            // Histories recorded before short owners were kept have no such key.
            underMinimumCount: try c.decodeIfPresent([String].self, forKey: .underMinimumCount) ?? [])
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(fromVersion, forKey: .fromVersion)
        try c.encode(toVersion, forKey: .toVersion)
        try c.encode(kind, forKey: .kind)
        try c.encode(objectsInserted, forKey: .objectsInserted)
        try c.encode(objectsUpdated, forKey: .objectsUpdated)
        try c.encode(objectsDeleted, forKey: .objectsDeleted)
        try c.encode(dropped, forKey: .dropped)
        if !underMinimumCount.isEmpty { try c.encode(underMinimumCount, forKey: .underMinimumCount) }
    }

    /// "3 → 4 custom: 300 objects updated; dropped 300 values of 'UserMemo.count'".
    public var summary: String {
        "\(fromVersion) → \(toVersion) \(kind.rawValue): " + Self.changes(of: [self])
    }

    /// What steps changed, together: `120 objects updated; dropped 300 values of 'UserMemo.count'; read by the
    /// stage, then removed: 3 values of 'Person.street'`, or `no object changed`. Values a stage or a mapping
    /// read before their removal are not called dropped: the stage may have moved them.
    package static func changes(of steps: [MigrationStepRecord]) -> String {
        func count(_ n: Int, _ what: String) -> String { "\(n) object\(n == 1 ? "" : "s") \(what)" }
        let inserted = steps.reduce(0) { $0 + $1.objectsInserted }
        let updated = steps.reduce(0) { $0 + $1.objectsUpdated }
        let deleted = steps.reduce(0) { $0 + $1.objectsDeleted }
        var parts: [String] = []
        if inserted > 0 { parts.append(count(inserted, "inserted")) }
        if updated > 0 { parts.append(count(updated, "updated")) }
        if deleted > 0 { parts.append(count(deleted, "deleted")) }
        let drops = steps.flatMap(\.dropped).filter { $0.count > 0 }
        let lost = drops.filter { !$0.wasReadByStage }
        let read = drops.filter(\.wasReadByStage)
        if !lost.isEmpty { parts.append("dropped " + lost.map(\.description).joined(separator: ", ")) }
        if !read.isEmpty {
            parts.append("read by the stage, then removed: " + read.map(\.description).joined(separator: ", "))
        }
        return parts.isEmpty ? "no object changed" : parts.joined(separator: "; ")
    }
}

/// Stored data a migration step dropped with the schema change: the objects of a removed entity, the values of
/// a removed attribute, the links of a removed relationship.
public struct DroppedData: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The entity, by its name in the version the step starts from.
    public var entity: String
    /// The attribute or relationship, by its name then; nil for the entity's objects.
    public var property: String?
    /// Whether the property was a relationship (its links were dropped) rather than an attribute.
    public var isRelationship: Bool
    /// How many objects, non-null values or links were dropped.
    public var count: Int
    /// Whether the schema declared the deletion (``Schema/deletions``).
    public var isDeclared: Bool
    /// Whether a new property of the same name replaced the property (``Deletion/replaced(_:of:)``).
    public var isReplaced: Bool
    /// Whether the stage that ran the step read these values before the new version removed them (a custom
    /// stage through `old`, a mapping in its SQL): they may live on where the stage moved them, so they are
    /// not reported as dropped.
    public var wasReadByStage: Bool

    public init(
        entity: String, property: String?, isRelationship: Bool = false, count: Int, isDeclared: Bool,
        isReplaced: Bool = false,
        wasReadByStage: Bool = false
    ) {
        self.entity = entity
        self.property = property
        self.isRelationship = isRelationship
        self.count = count
        self.isDeclared = isDeclared
        self.isReplaced = isReplaced
        self.wasReadByStage = wasReadByStage
    }

    /// "300 values of 'UserMemo.count'", "12 objects of 'WineNote'", "4 links of 'Folder.notes'",
    /// "4 links of 'Status.mentions' (replaced)".
    public var description: String {
        guard let property else { return "\(count) object\(count == 1 ? "" : "s") of '\(entity)'" }
        let unit = isRelationship ? "link" : "value"
        return "\(count) \(unit)\(count == 1 ? "" : "s") of '\(entity).\(property)'\(isReplaced ? " (replaced)" : "")"
    }

    enum CodingKeys: String, CodingKey {
        case entity, property, isRelationship, count, isDeclared, isReplaced, wasReadByStage
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            entity: try c.decode(String.self, forKey: .entity),
            property: try c.decodeIfPresent(String.self, forKey: .property),
            isRelationship: try c.decodeIfPresent(Bool.self, forKey: .isRelationship) ?? false,
            count: try c.decode(Int.self, forKey: .count),
            isDeclared: try c.decode(Bool.self, forKey: .isDeclared),
            // Histories recorded before replacements, or before stages' reads were told apart, have no such keys.
            isReplaced: try c.decodeIfPresent(Bool.self, forKey: .isReplaced) ?? false,
            wasReadByStage: try c.decodeIfPresent(Bool.self, forKey: .wasReadByStage) ?? false)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entity, forKey: .entity)
        try c.encodeIfPresent(property, forKey: .property)
        try c.encode(isRelationship, forKey: .isRelationship)
        try c.encode(count, forKey: .count)
        try c.encode(isDeclared, forKey: .isDeclared)
        if isReplaced { try c.encode(true, forKey: .isReplaced) }
        if wasReadByStage { try c.encode(true, forKey: .wasReadByStage) }
    }
}
