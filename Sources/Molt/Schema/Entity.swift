/// A kind of object: its attributes, relationships, primary key and indexes.
///
/// An entity may have a ``parent``: it then inherits the parent's attributes, relationships, primary key and
/// indexes, and a fetch of the parent returns its objects too (see <doc:Inheritance>). An ``isAbstract`` entity
/// has no objects of its own, only those of its sub-entities.
///
/// Every object also has an integer identifier that Molt assigns and keeps across migrations; a
/// ``primaryKey`` attribute is an additional unique, required key of the application's own.
///
/// ```swift
/// Entity("UserMemo", primaryKey: "objectID") {
///     Attribute("objectID", .uuid)
///     Attribute("title", .string)
///     Attribute("favorite", .bool, default: false)
///     Relationship("folder", to: "Folder")
///     Index(["title"])
/// }
/// ```
public struct Entity: Hashable, Sendable {
    /// The entity's name, also its table name.
    public var name: String
    /// Its stored attributes.
    public var attributes: [Attribute]
    /// Its relationships.
    public var relationships: [Relationship]
    /// The attribute that identifies objects for the application, if any: unique and required.
    public var primaryKey: String?
    /// Its indexes, unique or not.
    public var indexes: [Index]
    /// The entity's name in the previous schema version, when it was renamed.
    public var originalName: String?
    /// The entity it inherits from, if any: its objects are objects of the parent too, and it has the parent's
    /// attributes and relationships before its own.
    ///
    /// ```swift
    /// Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int) }
    /// ```
    public var parent: String?
    /// Whether the entity has no objects of its own: only its sub-entities can be inserted.
    public var isAbstract: Bool

    /// Creates an entity from lists of members.
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - parent: The entity it inherits from, if any.
    ///   - isAbstract: Whether only its sub-entities can have objects.
    ///   - primaryKey: An attribute that identifies objects for the application: unique and required.
    ///   - originalName: Its name in the previous schema version, when it was renamed.
    ///   - attributes: Its own stored attributes (a sub-entity's inherited ones are its parent's).
    ///   - relationships: Its own relationships.
    ///   - indexes: Its indexes.
    public init(
        _ name: String, parent: String? = nil, isAbstract: Bool = false, primaryKey: String? = nil,
        originalName: String? = nil, attributes: [Attribute], relationships: [Relationship] = [],
        indexes: [Index] = []
    ) {
        self.name = name
        self.parent = parent
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.primaryKey = primaryKey
        self.indexes = indexes
        self.originalName = originalName
    }

    /// Creates an entity whose members are listed in a builder block.
    ///
    /// ```swift
    /// Entity("Car", isAbstract: true) { Attribute("model", .string) }
    /// Entity("SportCar", parent: "Car") { Attribute("topSpeed", .int) }
    /// ```
    public init(
        _ name: String, parent: String? = nil, isAbstract: Bool = false, primaryKey: String? = nil,
        originalName: String? = nil, @EntityBuilder members: () -> [EntityMember]
    ) {
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        var indexes: [Index] = []
        for member in members() {
            switch member {
            case .attribute(let a): attributes.append(a)
            case .relationship(let r): relationships.append(r)
            case .index(let i): indexes.append(i)
            }
        }
        self.init(
            name, parent: parent, isAbstract: isAbstract, primaryKey: primaryKey, originalName: originalName,
            attributes: attributes, relationships: relationships, indexes: indexes)
    }

    /// The attribute with this name.
    public func attribute(named name: String) -> Attribute? { attributes.first { $0.name == name } }
    /// The relationship with this name.
    public func relationship(named name: String) -> Relationship? { relationships.first { $0.name == name } }

    /// The name of the column of a hierarchy's table that names each object's entity: reserved, so that no
    /// property takes it.
    package static let entityColumnName = "_entity"

    /// The name of the table that stores a to-many relationship: `Entity_relationship`. Storage engines use it
    /// as it is, so it must not clash with an entity's name.
    package static func joinTableName(entity: String, relationship: String) -> String { "\(entity)_\(relationship)" }

    /// The indexes the entity's table has: its declared indexes, and a unique one for its primary key.
    package var storedIndexes: [Index] {
        var result = indexes
        if let key = primaryKey, !result.contains(where: { $0.attributes == [key] && $0.isUnique }) {
            result.removeAll { $0.attributes == [key] }
            result.append(Index([key], unique: true))
        }
        return result
    }
}

/// An index on one or more attributes of an entity; a unique index is a uniqueness constraint.
public struct Index: Hashable, Sendable, Codable {
    /// The indexed properties, in order: attributes, and to-one relationships (the object each one links to, as
    /// Core Data's compound indexes and uniqueness constraints may hold them).
    ///
    /// ```swift
    /// Index(["folder", "title"], unique: true)  // no two notes of a folder share a title
    /// ```
    public var attributes: [String]
    /// Whether the combination of values must be unique.
    public var isUnique: Bool

    /// Creates an index on `attributes`.
    public init(_ attributes: [String], unique: Bool = false) {
        self.attributes = attributes
        self.isUnique = unique
    }

    enum CodingKeys: String, CodingKey { case attributes, isUnique = "unique" }
}

/// A member listed in an ``Entity`` builder block.
public enum EntityMember: Sendable {
    case attribute(Attribute)
    case relationship(Relationship)
    case index(Index)
}

/// Collects the attributes, relationships and indexes of an ``Entity``.
@resultBuilder
public enum EntityBuilder {
    public static func buildExpression(_ a: Attribute) -> [EntityMember] { [.attribute(a)] }
    public static func buildExpression(_ r: Relationship) -> [EntityMember] { [.relationship(r)] }
    public static func buildExpression(_ i: Index) -> [EntityMember] { [.index(i)] }
    public static func buildBlock(_ parts: [EntityMember]...) -> [EntityMember] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [EntityMember]?) -> [EntityMember] { part ?? [] }
    public static func buildEither(first: [EntityMember]) -> [EntityMember] { first }
    public static func buildEither(second: [EntityMember]) -> [EntityMember] { second }
    public static func buildArray(_ parts: [[EntityMember]]) -> [EntityMember] { parts.flatMap { $0 } }
}
