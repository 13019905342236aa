import Foundation

/// A Swift type whose values are stored as objects of one ``Entity``.
///
/// Apply `@Model` (from the `MoltMacros` product) to a struct to derive the conformance; or conform by hand,
/// without building swift-syntax:
///
/// ```swift
/// struct Note: PersistentModel {
///     var persistentID: Int64?
///     var title: String
///     var pinned: Bool = false
///
///     static let entity = Entity("Note", attributes: [
///         Attribute("title", .string),
///         Attribute("pinned", .bool, default: false),
///     ])
///     init(title: String) { self.title = title }
///     init(row: ModelRow) throws {
///         persistentID = row.id
///         title = try row.value(at: 0)
///         pinned = try row.value(at: 1)
///     }
///     func encode(to columns: inout ModelColumns) {
///         columns.append(title)
///         columns.append(pinned)
///     }
///     static func propertyName(for keyPath: PartialKeyPath<Note>) -> String? {
///         if keyPath == \Note.title { return "title" }
///         if keyPath == \Note.pinned { return "pinned" }
///         return nil
///     }
/// }
/// ```
///
/// ## Why values, not classes
///
/// Molt models are structs. A value is `Sendable` when its properties are, so it crosses tasks and actors
/// under Swift 6 strict concurrency without locks, and without the "this object belongs to another context"
/// crashes of managed classes: a model holds no hidden reference to a store or a context. What you fetched is
/// a snapshot; change it and ``Objects/save(_:)`` it, inside a transaction you can see. Relationships are
/// identities (``ToOne``, ``ToMany``) that you resolve explicitly, so no fault fires behind your back.
///
/// ## Topics
/// ### Describing
/// - ``entity``
/// - ``propertyName(for:)``
/// ### Converting
/// - ``init(row:)``
/// - ``encode(to:)``
/// - ``dynamicObject``
public protocol PersistentModel: Sendable {
    /// The entity that stores this type: its name, attributes in declaration order, to-one relationships
    /// (in the order they are encoded, after the attributes), to-many relationships, primary key and indexes.
    static var entity: Entity { get }
    /// The identifier Molt gave the object when it was inserted, or nil before.
    var persistentID: Int64? { get set }
    /// Reads a value from a row whose columns are the entity's attributes then its to-one relationships.
    ///
    /// - Throws: ``MoltError`` when a value does not fit its property.
    init(row: ModelRow) throws
    /// Appends the entity's attributes, then its to-one relationships, in order.
    func encode(to columns: inout ModelColumns)
    /// The attribute or relationship stored for a key path, or nil for a key path that is not stored.
    static func propertyName(for keyPath: PartialKeyPath<Self>) -> String?
}

extension PersistentModel {
    /// The entity's to-one relationships, in encoding order.
    static var toOneRelationships: [Relationship] { entity.relationships.filter { $0.kind == .toOne } }

    /// Reads a model from a dynamic object of its entity and the identifiers of its to-one relationships.
    static func decode(_ object: DynamicObject, toOneIDs: [Int64?]) throws -> Self {
        let entity = Self.entity
        guard object.entity == entity.name else {
            throw MoltError(
                .invalidValue, "A '\(object.entity)' object cannot be read as '\(entity.name)'.", entity: object.entity)
        }
        let values = entity.attributes.map { object[$0.name] } + toOneIDs.map { $0.map(Value.int) ?? .null }
        return try Self(row: ModelRow(values: values, entity: entity, id: object.id))
    }

    /// The model's attributes then its to-one relationships, as dynamic values.
    package var encodedValues: [Value] {
        var columns = ModelColumns()
        encode(to: &columns)
        return columns.values
    }

    /// The model's attributes as a dynamic object of its entity, with its identifier if it has one.
    ///
    /// Relationships are not part of a dynamic object's values: reach them through ``Objects``.
    ///
    /// ```swift
    /// let object = note.dynamicObject
    /// object["title"]   // .string("Milk")
    /// ```
    public var dynamicObject: DynamicObject {
        let entity = Self.entity
        let values = encodedValues
        var result = DynamicObject(entity: entity.name)
        for (index, attribute) in entity.attributes.enumerated() { result[attribute.name] = values[index] }
        result.id = persistentID
        return result
    }

    /// The attribute type that stores the value of a property: what `@Model` writes for a property of a type of
    /// the app's (an enum, a JSON value), whose name the macro cannot resolve where it writes the entity.
    public static func storedAttributeType<V: PersistentValue>(of keyPath: KeyPath<Self, V>) -> AttributeType {
        V.attributeType
    }

    /// The shape of the JSON that stores the value of a property: what `@Model` writes for a property of a type
    /// of the app's, nil unless the type is ``StoredAsJSON``.
    public static func storedShape<V: PersistentValue>(of keyPath: KeyPath<Self, V>) -> ValueShape? {
        V.storedShape
    }

    /// The name stored for a key path.
    ///
    /// - Throws: ``MoltError`` when the key path is not a stored property of the model.
    static func storedName(_ keyPath: PartialKeyPath<Self>) throws(MoltError) -> String {
        guard let name = propertyName(for: keyPath) else {
            throw MoltError(
                .invalidValue,
                "A key path to a '\(type(of: keyPath).valueType)' value is not a stored property of '\(entity.name)': use an attribute or a relationship, not a computed or @Transient property.",
                entity: entity.name)
        }
        return name
    }
}

/// A to-one relationship of a model: the identity of the destination object, or none.
///
/// It stores the destination's ``PersistentModel/persistentID``, never a copy of it: load the destination
/// with `Objects.destination(_:of:)`.
///
/// ```swift
/// @Model struct Note {
///     var text: String
///     @Relationship(inverse: "notes") var folder: ToOne<Folder> = nil
/// }
/// var note = Note(text: "Milk", folder: ToOne(home))
/// ```
public struct ToOne<Destination: PersistentModel>: Hashable, Sendable, ExpressibleByNilLiteral {
    /// The destination's identifier, or nil when the relationship is empty.
    public var id: Int64? {
        didSet { pointsToUninserted = false }
    }
    /// Whether it was made from a destination that was never inserted: saving it throws rather than store an
    /// empty relationship.
    public private(set) var pointsToUninserted = false

    /// A relationship to `destination`, which must have been inserted (saving a relationship to a value that
    /// was never inserted throws ``MoltError/Code/objectNotFound``).
    public init(_ destination: Destination?) {
        id = destination?.persistentID
        pointsToUninserted = destination != nil && destination?.persistentID == nil
    }
    /// A relationship to the object with this identifier.
    public init(id: Int64?) { self.id = id }
    /// An empty relationship.
    public init(nilLiteral: ()) { id = nil }

    /// Reads column `index` of a row.
    public static func read(from row: ModelRow, at index: Int) throws -> ToOne {
        ToOne(id: try row.value(at: index, as: Int64?.self))
    }

    /// Appends the identifier as the next column.
    public func write(to columns: inout ModelColumns) {
        if pointsToUninserted { columns.flagUninserted(Destination.entity.name) }
        columns.append(id)
    }
}

/// A to-many relationship of a model: a handle on the destinations of a stored object.
///
/// It holds the owner's identity, not the destinations: load them with `Objects.destinations(_:of:)`,
/// change them with `Objects.add(_:to:of:)`, `Objects.remove(_:from:of:)` and `Objects.set(_:of:to:)`.
/// So a fetch never loads a whole graph, and a stale array can never overwrite newer links.
///
/// ```swift
/// @Model struct Folder {
///     var name: String
///     @Relationship(inverse: "folder", deleteRule: .cascade) var notes: ToMany<Note> = []
/// }
/// let notes = try objects.destinations(\.notes, of: folder)
/// ```
public struct ToMany<Destination: PersistentModel>: Hashable, Sendable, ExpressibleByArrayLiteral {
    /// The owner's identifier, or nil for a model that is not stored yet.
    public var ownerID: Int64?

    /// A handle for the owner with this identifier.
    public init(ownerID: Int64?) { self.ownerID = ownerID }
    /// A handle for a model that is not stored yet; `[]` is the only literal allowed.
    public init(arrayLiteral elements: Never...) { ownerID = nil }
}
