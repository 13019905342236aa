import Foundation
import Molt

/// One Core Data version written as a Molt schema, with what had to be approximated on the way.
package struct CoreDataConversion {
    package var schema: Schema
    /// Every construct written in a form that is not exactly the model's, in model order.
    package var approximations: [CoreDataApproximation]
    /// Properties left out because Core Data does not store them (transient ones), as `Entity.property`.
    package var transients: [String]
    /// Elements matched to the version before by name although their renaming identifiers differ.
    package var notes: [String]
}

extension CoreDataModel {
    /// Writes this version as a Molt schema.
    ///
    /// Sub-entities become entities holding their parents' properties too; each Core Data type becomes the Molt
    /// type that holds exactly its values (see ``attributeType(of:entity:version:)``); uniqueness constraints become unique
    /// indexes, compound and fetch indexes plain ones; renaming identifiers resolved against `previous` become
    /// `originalName`s.
    ///
    /// - Parameters:
    ///   - version: The Molt version number of the snapshot.
    ///   - previous: The Core Data version shipped before this one, to resolve renames and to declare what this
    ///     version removes (Core Data drops it; the snapshot's `deletions` say so); nil for the first.
    ///     Without it, a renaming identifier that differs from the name becomes the `originalName` as written.
    /// - Throws: `MoltError` for a type or a default the converter cannot read, and for a schema Molt refuses.
    ///   - hierarchies: Whether sub-entities become sub-entities of Molt's (``Entity/parent``), holding their own
    ///     properties, as Core Data's; without it each is written as an entity of its own holding its parents'
    ///     properties too (an approximation).
    package func conversion(
        version: Int, previous: CoreDataModel?, hierarchies: Bool = false
    ) throws
        -> CoreDataConversion
    {
        let flat = try flattened()
        // Entities as written (a hierarchy's own properties each) or flattened.
        let source = hierarchies ? self : flat
        var approximations: [CoreDataApproximation] = []
        var transients: [String] = []
        func approximate(_ kind: CoreDataApproximation.Kind, _ entity: String, _ property: String?, _ what: String) {
            approximations.append(
                CoreDataApproximation(kind: kind, version: name, entity: entity, property: property, what: what))
        }
        var entities: [Entity] = []
        for entity in source.entities {
            if !hierarchies, let parent = entity.parent, let own = self.entity(named: entity.name) {
                let inherited =
                    entity.attributes.count + entity.relationships.count - own.attributes.count
                    - own.relationships.count
                approximate(
                    .inheritance, entity.name, nil,
                    "is a sub-entity of '\(parent)': written as an entity of its own that holds its \(inherited) inherited properties too; a fetch of '\(parent)' will not return its objects"
                )
            }
            let attributes = try convertAttributes(of: entity, transients: &transients, approximate: approximate)
            var relationships: [Relationship] = []
            for relationship in entity.relationships {
                if relationship.isTransient {
                    transients.append("\(entity.name).\(relationship.name)")
                    continue
                }
                relationships.append(
                    convert(relationship, of: entity.name, hierarchies: hierarchies, approximate: approximate))
            }
            let indexes = Self.indexes(of: entity, attributes: attributes, relationships: relationships) {
                property, what in
                approximate(.relationshipIndexes, entity.name, property, what)
            }
            entities.append(
                Entity(
                    entity.name, parent: hierarchies ? entity.parent : nil,
                    isAbstract: hierarchies && entity.isAbstract, attributes: attributes, relationships: relationships,
                    indexes: indexes))
        }
        if !hierarchies {
            dropInheritedInverses(&entities) { entity, property, what in
                approximate(.inheritance, entity, property, what)
            }
        }
        var notes: [String] = []
        var deletions: [Deletion] = []
        if let previous {
            deletions = try CoreDataRenames.resolve(
                &entities, current: source, previous: hierarchies ? previous : previous.flattened(), notes: &notes)
        } else {
            CoreDataRenames.declareAsWritten(&entities, current: source)
        }
        let schema = Schema(version: version, deleting: deletions, entities: entities)
        do {
            try schema.validate()
        } catch let error as MoltError {
            throw MoltError(
                .invalidSchema, "Core Data model '\(name)' cannot be written as a Molt schema: \(error.message)")
        }
        return CoreDataConversion(schema: schema, approximations: approximations, transients: transients, notes: notes)
    }

    /// The stored attributes of `entity` as Molt attributes; transient ones are listed in `transients`.
    private func convertAttributes(
        of entity: CoreDataEntity, transients: inout [String],
        approximate: (CoreDataApproximation.Kind, String, String?, String) -> Void
    ) throws -> [Attribute] {
        var attributes: [Attribute] = []
        for attribute in entity.attributes {
            if attribute.isTransient {
                transients.append("\(entity.name).\(attribute.name)")
                continue
            }
            let type = try Self.attributeType(of: attribute, entity: entity.name, version: name)
            let (value, defaultApproximation) = try Self.defaultValue(
                of: attribute, as: type, entity: entity.name, version: name)
            if let what = defaultApproximation { approximate(.defaults, entity.name, attribute.name, what) }
            attributes.append(Attribute(attribute.name, type, isOptional: attribute.isOptional, default: value))
        }
        return attributes
    }

    private func convert(
        _ relationship: CoreDataRelationship, of entity: String, hierarchies: Bool,
        approximate: (CoreDataApproximation.Kind, String, String?, String) -> Void
    ) -> Relationship {
        let deleteRule: Relationship.DeleteRule
        switch relationship.deleteRule {
        case .nullify: deleteRule = .nullify
        case .cascade: deleteRule = .cascade
        case .deny: deleteRule = .deny
        case .noAction:
            deleteRule = .nullify
            approximate(
                .noAction, entity, relationship.name,
                "delete rule 'No Action' (the other side keeps pointing at a deleted object) is written as nullify")
        }
        let subEntities = descendants(of: relationship.destination)
        if !hierarchies, !subEntities.isEmpty {
            approximate(
                .inheritance, entity, relationship.name,
                "points at '\(relationship.destination)', whose sub-entities (\(subEntities.joined(separator: ", "))) it may hold in Core Data: in Molt it holds '\(relationship.destination)' objects only"
            )
        }
        // A required to-one is required in Molt too (`isOptional: false`); a required to-many holds at least one
        // object, or its `minCount` (`minimumCount`). An optional to-many's `minCount` holds only when it is not
        // empty, which Molt cannot say beyond 1 (any count).
        var minimum = 0
        if !relationship.isOptional && relationship.isToMany {
            minimum = max(relationship.minCount ?? 1, 1)
        } else if let count = relationship.minCount, count > 1, relationship.isToMany {
            approximate(
                .requiredRelationships, entity, relationship.name,
                "an optional to-many relationship of none or at least \(count) objects is written without the minimum")
        }
        if relationship.isToMany, let maximum = relationship.maxCount, maximum > 0 {
            approximate(
                .relationshipCounts, entity, relationship.name,
                "a to-many relationship of at most \(maximum) objects is written without the maximum")
        }
        if relationship.isToMany {
            return Relationship(
                relationship.name, toMany: relationship.destination, ordered: relationship.isOrdered,
                inverse: relationship.inverse, deleteRule: deleteRule, minimumCount: minimum)
        }
        return Relationship(
            relationship.name, to: relationship.destination, inverse: relationship.inverse, deleteRule: deleteRule,
            isOptional: relationship.isOptional)
    }

    /// Removes the inverses that flattening broke: a sub-entity's copy of an inherited relationship whose inverse
    /// points back at the parent, and a relationship whose inverse is declared on its destination's parent.
    private func dropInheritedInverses(_ entities: inout [Entity], approximate: (String, String, String) -> Void) {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for e in entities.indices {
            for r in entities[e].relationships.indices {
                let relationship = entities[e].relationships[r]
                guard let inverseName = relationship.inverse else { continue }
                let inverse = byName[relationship.destination]?.relationship(named: inverseName)
                if let inverse, inverse.destination == entities[e].name, inverse.inverse == relationship.name {
                    continue
                }
                entities[e].relationships[r].inverse = nil
                approximate(
                    entities[e].name, relationship.name,
                    "its inverse '\(relationship.destination).\(inverseName)' points at '\(inverse?.destination ?? "?")', an entity of the same hierarchy: written without an inverse"
                )
            }
        }
    }
}
