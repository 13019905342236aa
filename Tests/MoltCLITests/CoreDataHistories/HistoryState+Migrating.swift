import Foundation
import Molt
import MoltTooling

/// What a step of an app's history did beyond what its snapshots say: the work of the Core Data mapping model the
/// app shipped for it (the README of `../shared/coredata-models/` and WooCommerce's `MIGRATIONS.md` and migration
/// tests say what each did).
enum StepEffect {
    /// Every object of these entities is deleted (links to them go).
    case empties([String])
    /// The attribute of every object of the entity is computed from its object of the version before.
    case computes(entity: String, attribute: String, sql: String, value: ([String: JSONValue]) -> JSONValue)
    /// The entity is renamed with its data, which the model does not say (no renaming identifier): the snapshot
    /// declares it with `originalName`, as a Molt app does.
    case renamesEntity(from: String, to: String)
    /// The step starts the entity's to-many relationship, whose minimum count is 1 or more, empty for the objects
    /// the entity already has (the relationship is new, or points to a new entity). Core Data migrated such a store
    /// and left its own model's rule broken until the objects were saved again; Molt does the same (the version
    /// keeps short owners, `Schema.ShortOwners.kept`): the step migrates, and its history entry lists the objects.
    case keepsShortOwners(entity: String, relationship: String)

    /// The relationship, `Entity.relationship`, whose minimum the step keeps owners under, if it does.
    var keptRelationship: String? {
        if case .keepsShortOwners(let entity, let relationship) = self { return "\(entity).\(relationship)" }
        return nil
    }

    /// The mapping of a `--mapping` file (or a folder's `FROM-to-TO.mapping.json`) that does this.
    var mapping: JSONValue? {
        switch self {
        case .empties(let entities):
            return .array(entities.map { .object(["destination": .string($0), "empty": .bool(true)]) })
        case .computes(let entity, let attribute, let sql, _):
            return .array([.object(["destination": .string(entity), "attributes": .object([attribute: .string(sql)])])])
        case .renamesEntity, .keepsShortOwners:
            return nil
        }
    }
}

extension HistoryState {
    /// The state a step from `old` to `new` must leave: entities, attributes and relationships carried by name or
    /// `originalName`, values converted as Molt widens them, additions at their default (or null), links of a new
    /// inverse read from the side that holds them, removals gone; then the step's `effects`.
    func migrated(from old: Schema, to new: Schema, effects: [StepEffect]) -> HistoryState {
        var result = HistoryState()
        var pending: [(entity: String, relationship: Relationship)] = []
        let oldByName = Dictionary(old.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        func sourceName(_ entity: Entity) -> String? {
            let name = entity.originalName ?? entity.name
            return oldByName[name] == nil ? nil : name
        }
        let sources = Dictionary(
            new.entities.compactMap { e in sourceName(e).map { (e.name, $0) } }, uniquingKeysWith: { a, _ in a })
        for entity in new.entities {
            var rows: [Int64: [String: JSONValue]] = [:]
            guard let sourceEntityName = sources[entity.name], let source = oldByName[sourceEntityName] else {
                result.objects[entity.name] = [:]
                pending += entity.relationships.map { (entity.name, $0) }
                continue
            }
            for (id, oldRow) in objects[source.name] ?? [:] {
                var row: [String: JSONValue] = [:]
                for attribute in entity.attributes {
                    let fallback = attribute.defaultValue.map(DataFile.json) ?? .null
                    if let from = source.attribute(named: attribute.originalName ?? attribute.name) {
                        let value = Self.convert(oldRow[from.name] ?? .null, from: from.type, to: attribute.type)
                        row[attribute.name] = value == .null && !attribute.isOptional ? fallback : value
                    } else {
                        row[attribute.name] = fallback
                    }
                }
                rows[id] = row
            }
            for relationship in entity.relationships {
                guard let from = source.relationship(named: relationship.originalName ?? relationship.name),
                    sources[relationship.destination] == from.destination
                else {
                    pending.append((entity.name, relationship))
                    continue
                }
                for id in rows.keys {
                    let targets = ids(objects[source.name]?[id]?[from.name])
                    let value: JSONValue
                    if relationship.kind == .toMany {
                        value = .array(targets.map { JSONValue.int($0) })
                    } else if targets.count > 1 {
                        value = .string("more than one link: \(targets)")  // a to-many narrowed: no store holds this
                    } else {
                        value = targets.first.map { JSONValue.int($0) } ?? .null
                    }
                    rows[id]![relationship.name] = value
                }
                if relationship.isOrdered, from.isOrdered, knownOrder.contains("\(source.name).\(from.name)") {
                    result.knownOrder.insert("\(entity.name).\(relationship.name)")
                }
            }
            result.objects[entity.name] = rows
        }
        let carried = Set(new.entities.flatMap { e in e.relationships.map { "\(e.name).\($0.name)" } })
            .subtracting(pending.map { "\($0.entity).\($0.relationship.name)" })
        for (entity, relationship) in pending {
            let inverseKey = relationship.inverse.map { "\(relationship.destination).\($0)" }
            for id in (result.objects[entity] ?? [:]).keys {
                var targets: [Int64] = []
                if let inverseKey, carried.contains(inverseKey), let inverse = relationship.inverse {
                    targets = (result.objects[relationship.destination] ?? [:]).filter {
                        result.ids($0.value[inverse]).contains(id)
                    }.keys.sorted()
                }
                let value: JSONValue =
                    relationship.kind == .toOne
                    ? (targets.first.map { JSONValue.int($0) } ?? .null) : .array(targets.map { JSONValue.int($0) })
                result.objects[entity]![id]![relationship.name] = value
            }
        }
        for effect in effects { result.apply(effect, old: self, sources: sources, schema: new) }
        return result
    }

    private mutating func apply(_ effect: StepEffect, old: HistoryState, sources: [String: String], schema: Schema) {
        switch effect {
        case .empties(let entities):
            for name in entities { objects[name] = [:] }
            for entity in schema.entities {
                for relationship in entity.relationships where entities.contains(relationship.destination) {
                    for id in (objects[entity.name] ?? [:]).keys {
                        objects[entity.name]![id]![relationship.name] = relationship.kind == .toOne ? .null : .array([])
                    }
                }
            }
        case .computes(let entity, let attribute, _, let value):
            guard let source = sources[entity] else { return }
            for id in (objects[entity] ?? [:]).keys {
                objects[entity]![id]![attribute] = value(old.objects[source]?[id] ?? [:])
            }
        case .renamesEntity:
            break  // stated in the snapshot: `migrated(from:to:effects:)` already carried the objects
        case .keepsShortOwners:
            break  // the relationship starts empty, as `migrated(from:to:effects:)` already left it
        }
    }

    /// A value converted as Molt converts it between attribute types (int → double, bool → int, scalar → text);
    /// a conversion Molt does not make is written as a text that no store holds, so that the comparison names it.
    static func convert(_ value: JSONValue, from: AttributeType, to: AttributeType) -> JSONValue {
        guard from != to, value != .null else { return value }
        guard let typed = DataFile.value(value, for: from), let converted = ValueConversion.convert(typed, to: to)
        else {
            return .string("no conversion of \(value) from \(from.rawValue) to \(to.rawValue)")
        }
        return DataFile.json(converted)
    }
}
