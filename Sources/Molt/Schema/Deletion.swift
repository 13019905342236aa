/// A declaration that a schema version deletes data on purpose: an entity, or a property, of the previous
/// version that this version drops together with its stored values.
///
/// Molt refuses a migration that would silently throw away data: removing an entity that holds objects, or
/// removing an attribute while adding a compatible one (a likely rename whose `originalName` was forgotten).
/// Like Room's `@DeleteTable` and `@DeleteColumn`, a deletion says the loss is intended. It is a migration
/// hint, like `originalName`: it names the previous version's entity and property, and is not part of the
/// schema's content hash.
///
/// ```swift
/// let v2 = Schema(version: 2, deleting: [.entity("WineNote"), .property("memoContent", of: "UserMemo")]) {
///     Entity("UserMemo") { Attribute("body", .string) }
/// }
/// ```
///
/// A property can also be *replaced*: the previous version's property is deleted with its values, and a new
/// property of the same name — another kind (attribute ↔ relationship) or an incompatible type — starts empty
/// (its default, null, or no link). Core Data does this when a model turns relationship `Status.mentions` into
/// an attribute `mentions`:
///
/// ```swift
/// let v3 = Schema(version: 3, deleting: [.replaced("mentions", of: "Status")]) {
///     Entity("Status") { Attribute("mentions", .string, isOptional: true) }   // was a to-many relationship
///     Entity("Account") { Attribute("name", .string) }
/// }
/// ```
///
/// In a snapshot: `"deletions": [{"entity": "WineNote"}, {"entity": "UserMemo", "property": "memoContent"},
/// {"entity": "Status", "property": "mentions", "replaced": true}]`.
/// With typed models: `static let deletions: [Deletion] = [.entity("WineNote"), .replaced("mentions", of: "Status")]`
/// in the `VersionedSchema`.
public struct Deletion: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The entity, by its name in the previous version.
    public var entity: String
    /// The attribute or relationship, by its name in the previous version; nil when the whole entity goes.
    public var property: String?
    /// Whether a new property of the same name replaces the deleted one (``replaced(_:of:)``): the two are not
    /// matched by name, and the new one starts empty.
    public var isReplaced: Bool

    /// A deletion of the previous version's entity, or of one of its properties.
    ///
    /// - Parameters:
    ///   - entity: The entity, by its name in the previous version.
    ///   - property: The attribute or relationship, by its name in the previous version; nil for the entity.
    ///   - isReplaced: Whether a new property of the same name replaces it (only for a property).
    public init(entity: String, property: String?, isReplaced: Bool = false) {
        self.entity = entity
        self.property = property
        self.isReplaced = isReplaced && property != nil
    }

    /// The previous version's entity `name` is deleted with all its objects.
    public static func entity(_ name: String) -> Deletion { Deletion(entity: name, property: nil) }

    /// The previous version's property `name` of entity `entity` is deleted with all its values.
    public static func property(_ name: String, of entity: String) -> Deletion {
        Deletion(entity: entity, property: name)
    }

    /// The previous version's property `name` of entity `entity` is deleted with all its values (or links), and
    /// the new version's property of the same name replaces it, starting empty: its default value, null, or no
    /// link.
    ///
    /// ```swift
    /// Schema(version: 3, deleting: [.replaced("mentions", of: "Status")]) { … }
    /// ```
    public static func replaced(_ name: String, of entity: String) -> Deletion {
        Deletion(entity: entity, property: name, isReplaced: true)
    }

    public var description: String { property.map { "'\(entity).\($0)'" } ?? "entity '\(entity)'" }

    /// Whether it names the same entity and property as `other`, replaced or not.
    func names(sameAs other: Deletion) -> Bool { entity == other.entity && property == other.property }

    enum CodingKeys: String, CodingKey { case entity, property, replaced }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let property = try container.decodeIfPresent(String.self, forKey: .property)
        let isReplaced = try container.decodeIfPresent(Bool.self, forKey: .replaced) ?? false
        let entity = try container.decode(String.self, forKey: .entity)
        if isReplaced && property == nil {
            throw MoltError(
                .invalidSchema,
                "The schema snapshot declares entity '\(entity)' \"replaced\" without a \"property\": only a property is replaced. Name the replaced property, or remove \"replaced\" to delete the entity.",
                entity: entity)
        }
        self.init(entity: entity, property: property, isReplaced: isReplaced)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entity, forKey: .entity)
        try container.encodeIfPresent(property, forKey: .property)
        if isReplaced { try container.encode(true, forKey: .replaced) }
    }
}
