import Foundation

/// A version of an application's data model: its version number and its entities.
///
/// Keep every version you ship: a store written by any of them can then be brought to the newest.
///
/// ```swift
/// let v1 = Schema(version: 1) {
///     Entity("UserMemo") {
///         Attribute("memoTitle", .string)
///         Attribute("favorite", .bool, default: false)
///     }
/// }
/// ```
///
/// ## Topics
/// ### Describing
/// - ``Entity``
/// - ``Attribute``
/// - ``Relationship``
/// ### Inheritance
/// - ``effectiveEntity(named:)``
/// - ``subEntities(of:recursive:)``
/// - ``rootEntity(of:)``
/// ### Migrating
/// - ``deletions``
/// - ``shortOwners``
/// - ``refusingShortOwners()``
/// ### Checking and comparing
/// - ``validate()``
/// - ``contentHash``
/// - ``snapshotJSON()``
public struct Schema: Hashable, Sendable {
    /// The version number; it must grow with every change of the model.
    public var version: Int { didSet { derived = Derived() } }
    /// The entities, in declaration order.
    public var entities: [Entity] {
        didSet {
            (entityIndex, subEntityIndex) = Self.index(entities)
            derived = Derived()
        }
    }
    /// Where each entity name first appears in ``entities``, derived from them (and so not part of equality):
    /// lookups stay constant-time in schemas of thousands of entities.
    private var entityIndex: [String: Int]
    /// The names of each entity's direct sub-entities, in declaration order, derived from ``entities`` (and so
    /// not part of equality).
    private(set) var subEntityIndex: [String: [String]]
    /// The data this version deletes on purpose from the previous one (see ``Deletion``): a migration hint,
    /// not part of ``contentHash``.
    public var deletions: [Deletion] { didSet { derived = Derived() } }
    /// What a migration into this version does with the objects a minimum count it adds or raises leaves short
    /// (see ``ShortOwners``): kept and listed, by default, as Core Data's lightweight migration keeps them. A
    /// migration hint, like ``deletions``: not part of ``contentHash``.
    public var shortOwners: ShortOwners = .kept
    /// What is computed once from this value and shared by its copies (``contentHash``, a passed validation);
    /// replaced whenever a property changes, and not part of equality.
    private(set) var derived = Derived()

    /// The results worth computing once per schema value: an app opens its store with the same schema each
    /// time, and hashing its canonical JSON costs more than the open itself.
    final class Derived: Sendable {
        private let state = LockedValue<(hash: String?, valid: Bool)>((nil, false))

        func contentHash(_ compute: () -> String) -> String {
            if let hash = state.withLock({ $0.hash }) { return hash }
            let computed = compute()
            state.withLock { $0.hash = computed }
            return computed
        }

        func validate(_ check: () throws -> Void) throws {
            if state.withLock({ $0.valid }) { return }
            try check()
            state.withLock { $0.valid = true }
        }
    }

    /// Creates a schema from a list of entities.
    ///
    /// - Parameters:
    ///   - version: The version number; it must grow with every change of the model.
    ///   - deletions: Entities and properties of the previous version that this one deletes on purpose.
    ///   - entities: The entities.
    public init(version: Int, deleting deletions: [Deletion] = [], entities: [Entity]) {
        self.version = version
        self.entities = entities
        (self.entityIndex, self.subEntityIndex) = Self.index(entities)
        self.deletions = deletions
    }

    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.version == rhs.version && lhs.entities == rhs.entities && lhs.deletions == rhs.deletions
            && lhs.shortOwners == rhs.shortOwners
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(entities)
        hasher.combine(deletions)
        hasher.combine(shortOwners)
    }

    private static func index(_ entities: [Entity]) -> (byName: [String: Int], children: [String: [String]]) {
        var index: [String: Int] = [:]
        var children: [String: [String]] = [:]
        index.reserveCapacity(entities.count)
        for (i, entity) in entities.enumerated() where index[entity.name] == nil {
            index[entity.name] = i
            if let parent = entity.parent { children[parent, default: []].append(entity.name) }
        }
        return (index, children)
    }

    /// Creates a schema whose entities are listed in a builder block.
    public init(version: Int, deleting deletions: [Deletion] = [], @SchemaBuilder entities: () -> [Entity]) {
        self.init(version: version, deleting: deletions, entities: entities())
    }

    /// The entity with this name.
    public func entity(named name: String) -> Entity? { entityIndex[name].map { entities[$0] } }

    /// Whether this version declares the previous version's entity (or one of its properties) deleted.
    public func declaresDeletion(ofEntity entity: String, property: String? = nil) -> Bool {
        deletions.contains { $0.entity == entity && $0.property == property }
    }

    /// A copy of this schema with another version number.
    public func withVersion(_ version: Int) -> Schema {
        var copy = self
        copy.version = version
        return copy
    }
}

/// Collects the entities of a ``Schema``.
@resultBuilder
public enum SchemaBuilder {
    public static func buildExpression(_ e: Entity) -> [Entity] { [e] }
    public static func buildBlock(_ parts: [Entity]...) -> [Entity] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Entity]?) -> [Entity] { part ?? [] }
    public static func buildEither(first: [Entity]) -> [Entity] { first }
    public static func buildEither(second: [Entity]) -> [Entity] { second }
    public static func buildArray(_ parts: [[Entity]]) -> [Entity] { parts.flatMap { $0 } }
}
