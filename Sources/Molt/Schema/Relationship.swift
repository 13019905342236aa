/// A link from objects of one entity to objects of another.
///
/// A to-one relationship is stored as a column holding the destination's identifier; a to-many relationship
/// as a join table. When both sides of a pair declare each other as ``inverse``, Molt keeps them in step.
///
/// ```swift
/// Relationship("folder", to: "Folder", inverse: "notes")
/// Relationship("notes", toMany: "Note", inverse: "folder", deleteRule: .cascade)
/// ```
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

    /// Creates a to-one relationship.
    public init(
        _ name: String, to destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
        originalName: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.kind = .toOne
        self.isOrdered = false
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.originalName = originalName
    }

    /// Creates a to-many relationship.
    public init(
        _ name: String, toMany destination: String, ordered: Bool = false, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, originalName: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.kind = .toMany
        self.isOrdered = ordered
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.originalName = originalName
    }
}
