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
/// In a snapshot: `"deletions": [{"entity": "WineNote"}, {"entity": "UserMemo", "property": "memoContent"}]`.
/// With typed models: `static let deletions: [Deletion] = [.entity("WineNote")]` in the `VersionedSchema`.
public struct Deletion: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The entity, by its name in the previous version.
    public var entity: String
    /// The attribute or relationship, by its name in the previous version; nil when the whole entity goes.
    public var property: String?

    /// The previous version's entity `name` is deleted with all its objects.
    public static func entity(_ name: String) -> Deletion { Deletion(entity: name, property: nil) }

    /// The previous version's property `name` of entity `entity` is deleted with all its values.
    public static func property(_ name: String, of entity: String) -> Deletion { Deletion(entity: entity, property: name) }

    public var description: String { property.map { "'\(entity).\($0)'" } ?? "entity '\(entity)'" }
}
