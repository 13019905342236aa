import SwiftDiagnostics
import SwiftSyntax

/// The compile-time errors of Molt's macros, each naming the property and the fix.
enum MoltDiagnostic: DiagnosticMessage {
    case notAStruct(kind: String)
    case missingType(property: String)
    case unsupportedType(property: String, type: String)
    case computedMarkedStored(property: String, attribute: String)
    case transientWithoutValue(property: String)
    case letWithInitialValue(property: String)
    case duplicatePrimaryKey(property: String, first: String)
    case relationshipOnAttribute(property: String)
    case attributeOnRelationship(property: String)
    case optionalRelationship(property: String, type: String)
    case requiredToMany(property: String)
    case minimumCountOnToOne(property: String)
    case indexedToMany(property: String)
    case generic

    var message: String {
        switch self {
        case .notAStruct(let kind):
            return
                "'@Model' applies to structs only, not to \(kind)s: Molt models are values, Sendable under Swift 6 and bound to no context"
        case .missingType(let property):
            return
                "Stored property '\(property)' needs a type annotation: '@Model' reads the stored type from the declaration"
        case .unsupportedType(let property, let type):
            return
                "Property '\(property)' has type '\(type)', which Molt cannot store; use String, Int, Int64, Int32, Int16, Double, Float, Decimal, Bool, Date, Data, UUID, a type of yours that conforms to PersistentValue (a RawRepresentable enum, a StoredAsJSON value), an Optional of one, ToOne<Model> or ToMany<Model>, or mark it '@Transient'"
        case .computedMarkedStored(let property, let attribute):
            return "Property '\(property)' is computed, so it is not stored; remove '@\(attribute)'"
        case .transientWithoutValue(let property):
            return "'@Transient' property '\(property)' needs an initial value, because it is not read from the store"
        case .letWithInitialValue(let property):
            return
                "Property '\(property)' is a 'let' with an initial value, so it cannot be read from the store; make it 'var', or mark it '@Transient'"
        case .duplicatePrimaryKey(let property, let first):
            return
                "Property '\(property)' cannot be the primary key: '\(first)' already is; an entity has one primary key"
        case .relationshipOnAttribute(let property):
            return
                "'@Relationship' applies to ToOne<Model> and ToMany<Model> properties; '\(property)' is an attribute, use '@Attribute'"
        case .attributeOnRelationship(let property):
            return "'@Attribute' applies to attributes; '\(property)' is a relationship, use '@Relationship'"
        case .optionalRelationship(let property, let type):
            return "Relationship '\(property)' is already optional as '\(type)'; remove the '?'"
        case .requiredToMany(let property):
            return
                "To-many relationship '\(property)' cannot be required; write 'minimumCount: 1' instead of 'isOptional: false' to make it hold one destination or more"
        case .minimumCountOnToOne(let property):
            return
                "To-one relationship '\(property)' cannot have a minimum count; write 'isOptional: false' instead of 'minimumCount:' to make it required"
        case .indexedToMany(let property):
            return
                "To-many relationship '\(property)' needs no index: it is stored in a join table whose links are always indexed; remove 'indexed: true'"
        case .generic:
            return "'@Model' does not support generic structs: an entity has one fixed set of attributes"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "Molt", id: "\(self)".prefix { $0 != "(" }.description) }
    var severity: DiagnosticSeverity { .error }
}

/// The Fix-Its Molt's macros offer.
struct MoltFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "Molt", id: message) }
}
