/// A link from objects of one entity to objects of another.
///
/// A to-one relationship is stored as a column holding the destination's identifier; a to-many relationship
/// as a join table. When both sides of a pair declare each other as ``inverse``, Molt keeps them in step.
///
/// ```swift
/// Relationship("folder", to: "Folder", inverse: "notes")
/// Relationship("author", to: "User", isOptional: false)      // required: every object links one user
/// Relationship("notes", toMany: "Note", inverse: "folder", deleteRule: .cascade)
/// Relationship("options", toMany: "Option", minimumCount: 2)   // every question links two options or more
/// ```
///
/// A required to-one relationship (``isOptional`` false) must point to an object whenever a write commits:
/// ``Store/write(_:)-6ejup`` refuses a transaction that leaves an object of the entity without one (an object
/// inserted and never linked, a link set to nil, its destination deleted under the delete rule nullify), and every
/// migration is refused, before it commits, when it leaves one empty. Inside a migration stage the link may be
/// empty for a while; the check runs when the stage is done.
///
/// A to-many relationship with a ``minimumCount`` is held to it the way Core Data's save holds the objects it
/// saves: a write that leaves an object it inserted, or an owner it removed links of, with fewer destinations (an
/// object inserted without them, links removed, a destination deleted under the delete rule nullify) is refused,
/// and so is a migration stage. A migration that adds or raises the minimum keeps the existing objects under it, as
/// Core Data's lightweight migration does, and lists them in the step's history entry
/// (``MigrationStepRecord/underMinimumCount``), unless the version refuses them (``Schema/refusingShortOwners()``).
/// An object already short (adopted from a Core Data store, which checks only at save, or kept by such a step) can
/// still be updated; ``Store/verify()`` lists it.
public struct Relationship: Hashable, Sendable {
    /// To-one or to-many.
    public enum Kind: String, Codable, Sendable { case toOne, toMany }

    /// What deleting an object does to the objects it points at through this relationship.
    public enum DeleteRule: String, Codable, Sendable {
        /// Unlink them (the default).
        case nullify
        /// Delete them too.
        case cascade
        /// Refuse to delete the object while the relationship is not empty.
        case deny
    }

    /// The relationship's name.
    public var name: String
    /// The name of the destination entity.
    public var destination: String
    /// To-one or to-many.
    public var kind: Kind
    /// Whether a to-many relationship keeps its objects in order.
    public var isOrdered: Bool
    /// The name of the relationship on the destination that points back, if any.
    public var inverse: String?
    /// What deleting the source does to the destinations.
    public var deleteRule: DeleteRule
    /// The relationship's name in the previous schema version, when it was renamed.
    public var originalName: String?
    /// Whether a to-one relationship may point to nothing (the default). A required one (`false`) must point to
    /// an object whenever a write or a migration commits. To-many relationships are always optional: one that
    /// is not is refused by ``Schema/validate()``; give it a ``minimumCount`` instead.
    public var isOptional: Bool
    /// How many objects a to-many relationship must hold when a write or a migration that changes its objects
    /// commits: 0 (the default) for no minimum. Core Data's non-optional to-many relationship is `minimumCount: 1`. A to-one relationship
    /// has none (``isOptional`` says whether it must be set): one with a minimum is refused by ``Schema/validate()``.
    public var minimumCount: Int

    /// Creates a to-one relationship.
    ///
    /// ```swift
    /// Relationship("author", to: "User", inverse: "posts", isOptional: false)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The relationship's name, also its column's.
    ///   - destination: The name of the entity it points to.
    ///   - inverse: The relationship on the destination that points back, if any.
    ///   - deleteRule: What deleting the source does to the destination. Defaults to nullify.
    ///   - originalName: Its name in the previous schema version, when it was renamed.
    ///   - isOptional: Whether it may point to nothing. Defaults to `true`; `false` makes every write and every
    ///     migration that leaves an object without a destination fail, naming the objects.
    public init(
        _ name: String, to destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
        originalName: String? = nil, isOptional: Bool = true
    ) {
        self.name = name
        self.destination = destination
        self.kind = .toOne
        self.isOrdered = false
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.originalName = originalName
        self.isOptional = isOptional
        self.minimumCount = 0
    }

    /// Creates a to-many relationship.
    ///
    /// ```swift
    /// Relationship("options", toMany: "Option", inverse: "question", deleteRule: .cascade, minimumCount: 1)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - destination: The name of the entity it points to.
    ///   - ordered: Whether it keeps its objects in order.
    ///   - inverse: The relationship on the destination that points back, if any.
    ///   - deleteRule: What deleting the source does to the destinations. Defaults to nullify.
    ///   - originalName: Its name in the previous schema version, when it was renamed.
    ///   - minimumCount: How many objects it must hold. Defaults to 0 (none); a higher count makes a write or a
    ///     migration that leaves an object it inserted or unlinked with fewer fail, naming the objects and their
    ///     counts. A migration that adds or raises the minimum keeps the objects already under it, listed in its
    ///     history entry (``Schema/ShortOwners``).
    public init(
        _ name: String, toMany destination: String, ordered: Bool = false, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, originalName: String? = nil, minimumCount: Int = 0
    ) {
        self.name = name
        self.destination = destination
        self.kind = .toMany
        self.isOrdered = ordered
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.originalName = originalName
        self.isOptional = true
        self.minimumCount = minimumCount
    }

    /// Whether the relationship is to-one and must point to an object.
    var isRequiredToOne: Bool { kind == .toOne && !isOptional }

    /// The minimum count of a to-many relationship that has one (above 0), or nil.
    var toManyMinimum: Int? { kind == .toMany && minimumCount > 0 ? minimumCount : nil }

    /// Whether a write or a migration must check the relationship's links: a required to-one, or a to-many with a
    /// minimum count.
    var isRequiredLink: Bool { isRequiredToOne || toManyMinimum != nil }
}
