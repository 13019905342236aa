@_exported import Molt

/// Derives a struct's entity and its conversion to and from the store, and conforms it to
/// ``Molt/PersistentModel``.
///
/// Every stored property is an attribute (`String`, `Int`, `Int64`, `Double`, `Bool`, `Date`, `Data`, `UUID`,
/// or an Optional of one) or a relationship (``Molt/ToOne``, ``Molt/ToMany``), unless it is `@Transient`.
/// The entity is named after the struct.
///
/// A literal initial value (`= 0`, `= "memo"`, `= false`, `= -1.5`) is also the attribute's default in the
/// schema, which existing objects get when a migration adds the attribute. Other initial values (`= Date()`,
/// `= .now`) stay Swift defaults only: a schema must be the same on every launch, and a default that changes
/// with the clock would make each launch look like a new version.
///
/// ```swift
/// @Model struct Note {
///     @Attribute(.primaryKey) var id: UUID
///     var title: String
///     var count: Int = 0
///     var subtitle: String?
///     @Relationship(inverse: "notes") var folder: ToOne<Folder> = nil
///     @Transient var isSelected = false
/// }
/// ```
///
/// ## Public models
///
/// A `public` struct gets `public` generated members (`persistentID`, `entity`, `init(row:)`, `encode(to:)`,
/// `propertyName(for:)`) and, when it declares no initializer of its own, a `public` memberwise initializer, which
/// Swift would otherwise synthesize only as internal. So a model kept in a library target of its own can be
/// created from the app and test targets that import it:
///
/// ```swift
/// // In the target AppModels:
/// public enum Priority: String, PersistentValue { case low, high }
/// @Model public struct Todo {
///     public var title: String
///     public var priority: Priority = .low
///     @Relationship(inverse: "todos") public var project: ToOne<Project> = nil
/// }
/// // In the app:
/// import AppModels
/// let todo = Todo(title: "Ship", priority: .high)
/// ```
///
/// The types a public model's properties name (its enums, its `StoredAsJSON` values, the destinations of its
/// relationships) must be `public` too, as for any public initializer.
///
/// ## Inheritance
///
/// A struct cannot inherit, so the model of a sub-entity names its parent's model and repeats the parent's
/// stored properties first, in the parent's order (the compiler keeps them in step: a fetch checks the model
/// against the store's entity and names any difference). A fetch of the parent's model returns every object
/// of the hierarchy with the parent's properties; a fetch of the sub-entity's model, its own objects.
///
/// ```swift
/// @Model(isAbstract: true) struct Car { var model: String; var year: Int }
/// @Model(parent: Car.self) struct SportCar { var model: String; var year: Int; var topSpeed: Int }
/// ```
///
/// ## Indexes
///
/// `@Attribute(.unique)`, `@Attribute(.indexed)` and `@Relationship(indexed: true)` index one property; an index
/// over several, unique or not, is listed on the model by stored names:
///
/// ```swift
/// @Model(indexes: [Index(["folder", "title"]), Index(["owner", "slug"], unique: true)])
/// struct Note { var title: String; var slug: String; var folder: ToOne<Folder> = nil; var owner: ToOne<User> = nil }
/// ```
///
/// - Parameters:
///   - parent: The model of the entity this one inherits from, if any.
///   - isAbstract: Whether the entity has objects of its sub-entities only.
///   - originalName: The entity's name in the previous version, when the struct was renamed.
///   - indexes: Indexes over several attributes and to-one relationships, by their stored names.
@attached(member, names: named(persistentID), named(init), named(moltParent))
@attached(
    extension, conformances: PersistentModel, names: named(entity), named(init(row:)), named(encode(to:)),
    named(propertyName(for:)))
public macro Model(
    parent: (any PersistentModel.Type)? = nil, isAbstract: Bool = false, originalName: String? = nil,
    indexes: [Molt.Index] = []
) = #externalMacro(module: "MoltMacrosPlugin", type: "ModelMacro")

/// Options of a stored attribute.
public enum AttributeOption: Sendable {
    /// No two objects may have the same value: a unique index.
    case unique
    /// The application's own key: unique and required, for ``Molt/Objects/model(_:primaryKey:)``.
    case primaryKey
    /// Indexed, not unique: filters and sorts on the attribute read an index instead of every object.
    case indexed
}

/// Sets options of a stored attribute of a `@Model` struct.
///
/// ```swift
/// @Attribute(.unique) var email: String
/// @Attribute(.indexed) var createdAt: Date                  // an index; values may repeat
/// @Attribute(originalName: "memoTitle") var title: String   // renamed: data kept
/// ```
///
/// - Parameters:
///   - options: ``AttributeOption/unique``, ``AttributeOption/primaryKey``, ``AttributeOption/indexed``.
///   - originalName: The attribute's name in the previous version, when it was renamed.
@attached(peer)
public macro Attribute(_ options: AttributeOption..., originalName: String? = nil) =
    #externalMacro(module: "MoltMacrosPlugin", type: "AttributeMacro")

/// Sets options of a relationship (``Molt/ToOne`` or ``Molt/ToMany``) of a `@Model` struct.
///
/// ```swift
/// @Relationship(inverse: "folder", deleteRule: .cascade) var notes: ToMany<Note> = []
/// @Relationship(isOptional: false) var author: ToOne<User> = nil   // required: set it before the write commits
/// @Relationship(minimumCount: 2) var options: ToMany<Option> = []   // two options or more when a write commits
/// ```
///
/// A ``Molt/ToOne`` property is optional unless marked `isOptional: false`: its type stays `ToOne<Model>`
/// (nil until linked), and a write that commits an object without a destination throws, naming the object.
///
/// - Parameters:
///   - originalName: Its name in the previous version, when it was renamed.
///   - inverse: The relationship on the destination that points back.
///   - deleteRule: What deleting this object does to the destinations.
///   - ordered: Whether a to-many relationship keeps its order.
///   - isOptional: Whether a to-one relationship may point to nothing (`Molt.Relationship.isOptional`); a
///     to-many one is always optional (give it a `minimumCount` instead).
///   - minimumCount: How many objects a to-many relationship must hold when a write or a migration that inserts
///     the object or removes its links commits (`Molt.Relationship.minimumCount`); 0, the default, for none. A
///     to-one one has none. A version that adds or raises it keeps the objects already under it, listed in the
///     step's history entry, unless it declares `static let shortOwners: Schema.ShortOwners = .refused`.
///   - indexed: Whether a to-one relationship's link is indexed (finding an owner's objects reads the index);
///     a to-many one is stored in a join table that is always indexed.
@attached(peer)
public macro Relationship(
    originalName: String? = nil, inverse: String? = nil, deleteRule: Molt.Relationship.DeleteRule = .nullify,
    ordered: Bool = false, isOptional: Bool = true, indexed: Bool = false, minimumCount: Int = 0
) = #externalMacro(module: "MoltMacrosPlugin", type: "RelationshipMacro")

/// Marks a property of a `@Model` struct that is not stored; it needs an initial value.
///
/// ```swift
/// @Transient var isSelected = false
/// ```
@attached(peer)
public macro Transient() = #externalMacro(module: "MoltMacrosPlugin", type: "TransientMacro")
