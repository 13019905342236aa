/// One difference between two schema versions, as ``SchemaDiff`` finds it.
///
/// Its ``description`` reads like Realm's and Room's messages: "Attribute 'UserMemo.count' has been added."
public struct SchemaChange: Hashable, Sendable, CustomStringConvertible {
    /// What changed.
    public enum Kind: Hashable, Sendable {
        case entityAdded, entityRemoved, entityRenamed(from: String)
        /// The entity inherits from another entity, or from none (see ``Entity/parent``).
        case entityParentChanged(from: String?, to: String?)
        /// The entity has been made abstract (no objects of its own), or concrete.
        case entityAbstractChanged(isAbstract: Bool)
        case attributeAdded, attributeRemoved, attributeRenamed(from: String)
        case attributeTypeChanged(from: AttributeType, to: AttributeType)
        case attributeMadeOptional, attributeMadeRequired
        case attributeDefaultChanged(from: Value?, to: Value?)
        case relationshipAdded, relationshipRemoved, relationshipRenamed(from: String)
        case relationshipToOneBecameToMany, relationshipToManyBecameToOne
        case relationshipOrderingChanged(ordered: Bool)
        case relationshipDestinationChanged(from: String, to: String)
        case relationshipInverseChanged, relationshipDeleteRuleChanged
        /// A to-one relationship must now point to an object (see ``Relationship/isOptional``): inferred, and
        /// refused when the migration leaves an object without one.
        case relationshipMadeRequired
        /// A required to-one relationship may now point to nothing.
        case relationshipMadeOptional
        /// A to-many relationship must now hold another count of objects (see ``Relationship/minimumCount``, 0 for
        /// none): inferred, and a raised minimum refused when the migration leaves an object with fewer.
        case relationshipMinimumCountChanged(from: Int, to: Int)
        case indexAdded([String], unique: Bool), indexRemoved([String], unique: Bool)
        /// The shape of the attribute's JSON values (``Attribute/shape``) is recorded, dropped, or replaced by
        /// one that cannot be compared field by field (another kind of value, an opaque shape).
        case valueShapeChanged(from: ValueShape?, to: ValueShape?)
        /// A field (a path in the value: `origin.country`, `steps[]`) has been added to the JSON values.
        case valueFieldAdded(field: String, presence: ValueShape.Presence)
        /// A field has been removed from the JSON values: stored values keep it until they are written again.
        case valueFieldRemoved(field: String)
        /// A field of the JSON values has changed type.
        case valueFieldTypeChanged(field: String, from: ValueShape, to: ValueShape)
        /// A field of the JSON values may now be missing.
        case valueFieldMadeOptional(field: String)
        /// A field of the JSON values must now be present.
        case valueFieldMadeRequired(field: String)
        /// A raw value has been added to the cases a field of the JSON values may hold.
        case valueCaseAdded(field: String, case: String)
        /// A raw value has been removed from the cases a field of the JSON values may hold.
        case valueCaseRemoved(field: String, case: String)
    }

    /// What changed.
    public var kind: Kind
    /// The entity, by its name in the newer version (the older one for removals).
    public var entity: String
    /// The attribute or relationship, by its name in the newer version (the older one for removals), if any.
    public var property: String?
    /// Why Molt will not infer this change, with what a custom stage must do; nil when it can be inferred.
    public var refusal: String?
    /// For the removal and the addition of a declared replacement (``Deletion/replaced(_:of:)``): the other
    /// property, described ("attribute 'Status.mentions' (string)"); nil for any other change.
    public var replacement: String?

    init(kind: Kind, entity: String, property: String? = nil, refusal: String? = nil, replacement: String? = nil) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.refusal = refusal
        self.replacement = replacement
    }

    /// Whether Molt can apply the change without code.
    public var isInferable: Bool { refusal == nil }

    /// Whether applying the change deletes stored data.
    public var isDestructive: Bool {
        switch kind {
        case .entityRemoved, .attributeRemoved, .relationshipRemoved: return true
        default: return false
        }
    }

    /// A one-line description.
    public var description: String {
        let attribute = "Attribute '\(entity).\(property ?? "")'"
        let relationship = "Relationship '\(entity).\(property ?? "")'"
        switch kind {
        case .entityAdded: return "Entity '\(entity)' has been added."
        case .entityRemoved: return "Entity '\(entity)' has been removed."
        case .entityRenamed(let old): return "Entity '\(old)' has been renamed to '\(entity)'."
        case .entityParentChanged(let old, let new):
            return
                "Entity '\(entity)' \(new.map { "now inherits from '\($0)'" } ?? "no longer has a parent")\(old.map { new == nil ? " (it inherited from '\($0)')" : " instead of '\($0)'" } ?? "")."
        case .entityAbstractChanged(let isAbstract):
            return "Entity '\(entity)' has been made \(isAbstract ? "abstract" : "concrete")."
        case .attributeAdded where replacement != nil:
            return "\(attribute) has been added in place of \(replacement!), starting empty."
        case .attributeAdded: return "\(attribute) has been added."
        case .attributeRemoved where replacement != nil:
            return "\(attribute) has been replaced by \(replacement!): its values are deleted (declared)."
        case .attributeRemoved: return "\(attribute) has been removed."
        case .attributeRenamed(let old): return "Attribute '\(entity).\(old)' has been renamed to '\(property ?? "")'."
        case .attributeTypeChanged(let a, let b):
            return "\(attribute) has changed type from '\(a.rawValue)' to '\(b.rawValue)'."
        case .attributeMadeOptional: return "\(attribute) has been made optional."
        case .attributeMadeRequired: return "\(attribute) has been made required."
        case .attributeDefaultChanged(let a, let b):
            return
                "\(attribute) has changed its default from \(a?.description ?? "none") to \(b?.description ?? "none")."
        case .relationshipAdded where replacement != nil:
            return "\(relationship) has been added in place of \(replacement!), starting empty."
        case .relationshipAdded: return "\(relationship) has been added."
        case .relationshipRemoved where replacement != nil:
            return "\(relationship) has been replaced by \(replacement!): its links are deleted (declared)."
        case .relationshipRemoved: return "\(relationship) has been removed."
        case .relationshipRenamed(let old):
            return "Relationship '\(entity).\(old)' has been renamed to '\(property ?? "")'."
        case .relationshipToOneBecameToMany: return "\(relationship) has changed from to-one to to-many."
        case .relationshipToManyBecameToOne: return "\(relationship) has changed from to-many to to-one."
        case .relationshipOrderingChanged(let ordered):
            return "\(relationship) has been made \(ordered ? "ordered" : "unordered")."
        case .relationshipDestinationChanged(let a, let b):
            return "\(relationship) now points to '\(b)' instead of '\(a)'."
        case .relationshipInverseChanged: return "\(relationship) has changed its inverse."
        case .relationshipDeleteRuleChanged: return "\(relationship) has changed its delete rule."
        case .relationshipMadeRequired: return "\(relationship) has been made required."
        case .relationshipMadeOptional: return "\(relationship) has been made optional."
        case .relationshipMinimumCountChanged(let a, let b):
            return
                "\(relationship) has changed its minimum count from \(a == 0 ? "none" : String(a)) to \(b == 0 ? "none" : String(b))."
        case .indexAdded(let columns, let unique):
            return
                "\(unique ? "Uniqueness constraint" : "Index") on '\(entity)'(\(columns.joined(separator: ", "))) has been added."
        case .indexRemoved(let columns, let unique):
            return
                "\(unique ? "Uniqueness constraint" : "Index") on '\(entity)'(\(columns.joined(separator: ", "))) has been removed."
        default: return valueDescription ?? ""
        }
    }
}
