import Foundation

/// One version of a Core Data model, as its `contents` XML states it: the part of the model that Core Data
/// stores (entities, their attributes and relationships, indexes and uniqueness constraints) and the
/// renaming identifiers that link it to the version before.
///
/// Layout (`elements`), user info, fetch requests and configurations are not data and are not kept.
struct CoreDataModel: Equatable {
    /// The version's name: its folder's name without `.xcdatamodel` (`Model 12`, `zmessaging2.24.1`).
    var name: String
    var entities: [CoreDataEntity]

    func entity(named name: String) -> CoreDataEntity? { entities.first { $0.name == name } }
}

/// An entity of a Core Data model.
struct CoreDataEntity: Equatable {
    var name: String
    /// `parentEntity`: the entity this one inherits its properties from.
    var parent: String?
    var isAbstract = false
    /// `elementID`: Core Data's renaming identifier, the entity's name in the version before when it was renamed.
    var renamingIdentifier: String?
    var attributes: [CoreDataAttribute] = []
    var relationships: [CoreDataRelationship] = []
    /// `uniquenessConstraints`: each a list of property names whose values together are unique.
    var uniquenessConstraints: [[String]] = []
    /// `compoundIndexes` and `fetchIndex` elements: each a list of property names.
    var indexes: [[String]] = []

    /// The identifier Core Data matches across versions: the renaming identifier, or else the name.
    var identity: String { renamingIdentifier ?? name }
}

/// An attribute of a Core Data entity.
struct CoreDataAttribute: Equatable {
    var name: String
    /// `attributeType`, as written: `String`, `Integer 16`, `Decimal`, `Transformable`, …
    var type: String
    var isOptional = false
    var isTransient = false
    var isIndexed = false
    /// `defaultValueString`, as written.
    var defaultText: String?
    /// `defaultDateTimeInterval`: a date default, in seconds since 2001-01-01 (Core Data's reference date).
    var defaultDateInterval: String?
    var renamingIdentifier: String?

    var identity: String { renamingIdentifier ?? name }
}

/// A relationship of a Core Data entity.
struct CoreDataRelationship: Equatable {
    enum DeleteRule: String, Equatable {
        case nullify = "Nullify", cascade = "Cascade", deny = "Deny", noAction = "No Action"
    }

    var name: String
    var destination: String
    var isToMany = false
    var isOrdered = false
    var isOptional = false
    var isTransient = false
    var inverse: String?
    var deleteRule: DeleteRule = .nullify
    /// `minCount` and `maxCount` as written (a to-one relationship says `maxCount="1"`).
    var minCount: Int?
    var maxCount: Int?
    var renamingIdentifier: String?

    var identity: String { renamingIdentifier ?? name }
}
