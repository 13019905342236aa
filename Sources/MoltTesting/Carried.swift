import Foundation

/// What an object stored at an old version should become at the newest one if the plan only carries data
/// over: its entity and attribute names followed through every version in turn (matched by `SchemaDiff`,
/// the engine's own definition), its values converted as Molt widens types, and added attributes given their
/// defaults.
///
/// It walks every consecutive pair of the code's versions, whatever stages or shortcuts the plan takes: it is
/// what the schemas say should happen, against which what the plan did is checked.
struct Carried {
    /// The entity's name at the newest version, or nil when a version removed it.
    var entity: String?
    /// The version that removed the entity, when one did.
    var entityRemovedBy: Int?
    /// Attribute values it should hold, by their newest names.
    var values: [String: Value] = [:]
    /// Attributes whose value cannot be predicted (a conversion that needs a stage, a required attribute added
    /// without a default): checked only when the expectation gives them.
    var unpredictable: Set<String> = []
    /// Relationship name → fixture keys it should point to.
    var links: [String: [String]] = [:]
    /// Relationships whose links cannot be predicted (added, or to-many made to-one).
    var unpredictableLinks: Set<String> = []
    /// Attributes of the object's own version that a later version removes, by their name at the object's
    /// version: the version that removes each.
    var removedAttributes: [String: Int] = [:]
    /// The object's attributes that survive, by their name at the object's version: their newest name.
    var keptAttributes: [String: String] = [:]

    /// Follows `object` from its version through `schemas` (consecutive code versions, the first being the
    /// object's own).
    init(_ object: FixtureObject, through schemas: [Schema]) {
        guard let first = schemas.first, var entity = first.effectiveEntity(named: object.entity) else {
            entity = nil
            return
        }
        var state = Walk(
            values: object.values, links: object.links,
            names: Dictionary(uniqueKeysWithValues: entity.attributes.map { ($0.name, $0.name) }))
        for (previousSchema, next) in zip(schemas, schemas.dropFirst()) {
            let diff = SchemaDiff(from: previousSchema, to: next)
            // As its objects are: with what it inherits.
            guard
                let declared = next.entities.first(where: { diff.originalName(ofEntity: $0.name) == entity.name }),
                let following = next.effectiveEntity(named: declared.name)
            else {
                self.entity = nil
                entityRemovedBy = next.version
                return
            }
            state.step(from: entity, to: following, diff: diff, version: next.version)
            entity = following
        }
        self.entity = entity.name
        values = state.values
        unpredictable = state.unpredictable
        links = state.links
        unpredictableLinks = state.unpredictableLinks
        removedAttributes = state.removed
        keptAttributes = Dictionary(uniqueKeysWithValues: state.names.map { ($0.value, $0.key) })
    }

    /// What is carried at one version, updated step by step.
    private struct Walk {
        var values: [String: Value]
        var links: [String: [String]]
        /// Current attribute name → its name at the object's version.
        var names: [String: String]
        var unpredictable: Set<String> = []
        var unpredictableLinks: Set<String> = []
        var removed: [String: Int] = [:]

        mutating func step(from previous: Entity, to following: Entity, diff: SchemaDiff, version: Int) {
            func origin(of property: String) -> String? {
                diff.originalName(ofProperty: property, inEntity: following.name)
            }
            var newValues: [String: Value] = [:]
            var newUnpredictable: Set<String> = []
            var newNames: [String: String] = [:]
            for attribute in following.attributes {
                guard let origin = origin(of: attribute.name), let old = previous.attribute(named: origin) else {
                    if let fallback = attribute.defaultValue {
                        newValues[attribute.name] = attribute.coerce(fallback) ?? fallback
                    } else if attribute.isOptional {
                        newValues[attribute.name] = .null
                    } else {
                        newUnpredictable.insert(attribute.name)
                    }
                    continue
                }
                newNames[attribute.name] = names[origin]
                guard !unpredictable.contains(origin),
                    let value = Carried.convert(values[origin] ?? .null, from: old.type, to: attribute.type)
                else {
                    newUnpredictable.insert(attribute.name)
                    continue
                }
                if value.isNull && !attribute.isOptional {
                    if let fallback = attribute.defaultValue {
                        newValues[attribute.name] = attribute.coerce(fallback) ?? fallback
                    } else {
                        newUnpredictable.insert(attribute.name)
                    }
                } else {
                    newValues[attribute.name] = value
                }
            }
            let survivors = Set(newNames.values)
            for (_, original) in names where !survivors.contains(original) { removed[original] = version }
            var newLinks: [String: [String]] = [:]
            var newUnpredictableLinks: Set<String> = []
            for relationship in following.relationships {
                let origin = origin(of: relationship.name)
                guard let origin, let old = previous.relationship(named: origin), !unpredictableLinks.contains(origin),
                    !(old.kind == .toMany && relationship.kind == .toOne)
                else {
                    newUnpredictableLinks.insert(relationship.name)
                    continue
                }
                newLinks[relationship.name] = links[origin] ?? []
            }
            (values, unpredictable, names) = (newValues, newUnpredictable, newNames)
            (links, unpredictableLinks) = (newLinks, newUnpredictableLinks)
        }
    }

    /// `value` as Molt's lightweight migration converts it from one type to another, or nil when the
    /// conversion needs a stage and its result cannot be predicted.
    static func convert(_ value: Value, from: AttributeType, to: AttributeType) -> Value? {
        if from == to || value.isNull { return value }
        switch (value, to) {
        case (.int(let v), .double): return .double(Double(v))
        case (.int(let v), .string): return .string(String(v))
        case (.bool(let v), .int): return .int(v ? 1 : 0)
        case (.bool(let v), .string): return .string(v ? "true" : "false")
        case (.uuid(let v), .string): return .string(v.uuidString)
        // The sized and exact number types: int16 → int32 → int → decimal, float → double, … (exact, or refused).
        case _ where from.widens(to: to): return ValueConversion.convert(value, to: to)
        default: return nil
        }
    }
}
