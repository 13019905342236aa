import Foundation

/// One version of a Core Data model, as its `contents` XML states it: the part of the model that Core Data
/// stores (entities, their attributes and relationships, indexes and uniqueness constraints) and the
/// renaming identifiers that link it to the version before.
///
/// Layout (`elements`), user info, fetch requests and configurations are not data and are not kept.
package struct CoreDataModel: Equatable {
    /// The version's name: its folder's name without `.xcdatamodel` (`Model 12`, `zmessaging2.24.1`).
    package var name: String
    package var entities: [CoreDataEntity]
    /// `userDefinedModelVersionIdentifier`: the identifier the app gave this version, which stores record
    /// (`NSStoreModelVersionIdentifiers`); nil when empty.
    package var versionIdentifier: String?

    package func entity(named name: String) -> CoreDataEntity? { entities.first { $0.name == name } }
}

/// An entity of a Core Data model.
package struct CoreDataEntity: Equatable {
    package var name: String
    /// `parentEntity`: the entity this one inherits its properties from.
    package var parent: String?
    package var isAbstract = false
    /// `elementID`: Core Data's renaming identifier, the entity's name in the version before when it was renamed.
    package var renamingIdentifier: String?
    package var attributes: [CoreDataAttribute] = []
    package var relationships: [CoreDataRelationship] = []
    /// `uniquenessConstraints`: each a list of property names whose values together are unique.
    package var uniquenessConstraints: [[String]] = []
    /// `compoundIndexes` and `fetchIndex` elements: each a list of property names.
    package var indexes: [[String]] = []

    /// The identifier Core Data matches across versions: the renaming identifier, or else the name.
    package var identity: String { renamingIdentifier ?? name }
}

/// An attribute of a Core Data entity.
package struct CoreDataAttribute: Equatable {
    package var name: String
    /// `attributeType`, as written: `String`, `Integer 16`, `Decimal`, `Transformable`, …
    package var type: String
    package var isOptional = false
    package var isTransient = false
    package var isIndexed = false
    /// `defaultValueString`, as written.
    package var defaultText: String?
    /// `defaultDateTimeInterval`: a date default, in seconds since 2001-01-01 (Core Data's reference date).
    package var defaultDateInterval: String?
    package var renamingIdentifier: String?
    /// `allowsExternalBinaryDataStorage`: a binary value may be kept in a file beside the store, its column then
    /// holding a marker byte and the file's name.
    package var allowsExternalStorage = false

    package var identity: String { renamingIdentifier ?? name }
}

/// A relationship of a Core Data entity.
package struct CoreDataRelationship: Equatable {
    package enum DeleteRule: String, Equatable {
        case nullify = "Nullify", cascade = "Cascade", deny = "Deny", noAction = "No Action"
    }

    package var name: String
    package var destination: String
    package var isToMany = false
    package var isOrdered = false
    package var isOptional = false
    package var isTransient = false
    package var inverse: String?
    package var deleteRule: DeleteRule = .nullify
    /// `minCount` and `maxCount` as written (a to-one relationship says `maxCount="1"`).
    package var minCount: Int?
    package var maxCount: Int?
    package var renamingIdentifier: String?

    package var identity: String { renamingIdentifier ?? name }
}
