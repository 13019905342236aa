/// The differences between two schema versions, and how each new entity and property maps to the old ones.
///
/// Entities and properties match by `originalName` first — an explicit hint wins, so two attributes can swap
/// names — then by name. A diff is what Molt uses to infer a lightweight migration, what it prints when a model
/// changed without a version bump, and what `molt diff` shows; it also finds the removals that would lose data
/// (``losses``) and the likely renames and moves behind them (``likelyRenames``, ``likelyMoves``), and the
/// changes whose success depends on the stored data (``dataDependencies(_:)``).
///
/// ```swift
/// let diff = SchemaDiff(from: v5, to: v6)
/// for change in diff.changes { print(change) }   // Attribute 'UserMemo.count' has changed type…
/// if !diff.isInferable { print(diff.refusals) }
/// ```
public struct SchemaDiff: Sendable {
    /// The older schema.
    public let source: Schema
    /// The newer schema.
    public let destination: Schema
    /// Every change, entities first, in the newer schema's declaration order.
    public internal(set) var changes: [SchemaChange] = []
    /// For each entity of the newer schema that existed before: its name in the older schema.
    private(set) var entityOrigins: [String: String] = [:]
    /// For each entity of the newer schema that existed before: new property name → old property name.
    private(set) var propertyOrigins: [String: [String: String]] = [:]
    /// The deletions the step declares: the newer schema's, or those of every version a shortcut crosses.
    public let declaredDeletions: [Deletion]
    private let oldEntities: [String: Entity]

    /// Computes the differences between two schemas.
    ///
    /// - Parameters:
    ///   - source: The older schema.
    ///   - destination: The newer schema.
    ///   - deletions: The deletions the step declares; nil for the newer schema's own ``Schema/deletions``.
    public init(from source: Schema, to destination: Schema, declaredDeletions deletions: [Deletion]? = nil) {
        self.source = source
        self.destination = destination
        self.declaredDeletions = deletions ?? destination.deletions
        self.oldEntities = Dictionary(source.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        matchEntities()
        for entity in destination.entities {
            guard let oldName = entityOrigins[entity.name], let old = oldEntities[oldName] else { continue }
            compareInheritance(old, entity)
            guard source.isInHierarchy(old.name) || destination.isInHierarchy(entity.name) else {
                compare(old, entity)
                continue
            }
            compareInHierarchy(old, entity)
        }
    }

    /// Whether every change can be applied without code.
    public var isInferable: Bool { changes.allSatisfy(\.isInferable) }

    /// The changes Molt will not infer.
    public var refusedChanges: [SchemaChange] { changes.filter { !$0.isInferable } }

    /// Whether the schemas describe the same structure.
    public var isEmpty: Bool { changes.isEmpty }

    var versions: String { "between versions \(source.version) and \(destination.version)" }

    /// For a property that keeps its name but cannot be converted: the declaration that replaces it instead, or
    /// nothing when the new property comes from another name (its `originalName` is the thing to change).
    private func replacementHint(_ oldEntity: String, _ oldName: String, _ newName: String, what: String) -> String {
        guard oldName == newName else { return "" }
        return
            "; or, if the new '\(newName)' replaces it (\(what) deleted, the new one starting empty), declare `Schema(version: \(destination.version), deleting: [.replaced(\"\(oldName)\", of: \"\(oldEntity)\")])` (in a snapshot: \"deletions\" : [{\"entity\" : \"\(oldEntity)\", \"property\" : \"\(oldName)\", \"replaced\" : true}])"
    }
    var customStageHint: String { "a custom stage from version \(source.version) to \(destination.version)" }

    // MARK: - Matching

    private mutating func matchEntities() {
        var claimed: [String: String] = [:]  // old name -> new name
        var refusals: [String: SchemaChange] = [:]
        // An explicit hint first, so that names can swap; then the same name.
        for entity in destination.entities {
            guard let original = entity.originalName, original != entity.name, oldEntities[original] != nil else {
                continue
            }
            if let other = claimed[original] {
                refusals[entity.name] = SchemaChange(
                    kind: .entityRenamed(from: original), entity: entity.name,
                    refusal:
                        "Entity '\(entity.name)' says it was renamed from '\(original)', but '\(other)' also comes from '\(original)' \(versions); the rename is ambiguous. Keep one `originalName: \"\(original)\"`, or split the entity in \(customStageHint)."
                )
                continue
            }
            claimed[original] = entity.name
            entityOrigins[entity.name] = original
        }
        for entity in destination.entities where entityOrigins[entity.name] == nil && refusals[entity.name] == nil {
            if oldEntities[entity.name] != nil, claimed[entity.name] == nil {
                entityOrigins[entity.name] = entity.name
                claimed[entity.name] = entity.name
            }
        }
        for entity in destination.entities where entityOrigins[entity.name] != entity.name {
            if let refusal = refusals[entity.name] {
                changes.append(refusal)
            } else if let original = entityOrigins[entity.name] {
                changes.append(SchemaChange(kind: .entityRenamed(from: original), entity: entity.name))
            } else {
                changes.append(SchemaChange(kind: .entityAdded, entity: entity.name))
            }
        }
        for entity in source.entities where claimed[entity.name] == nil {
            changes.append(SchemaChange(kind: .entityRemoved, entity: entity.name))
        }
    }

    mutating func compare(_ old: Entity, _ new: Entity) {
        let replaced = Set(declaredDeletions.filter { $0.isReplaced && $0.entity == old.name }.compactMap(\.property))
        let (origins, ambiguous) = matchProperties(old, new, replaced: replaced)
        propertyOrigins[new.name] = origins
        let first = changes.count
        defer { describeReplacements(replaced, old, new, from: first) }

        for attribute in new.attributes where !ambiguous.contains(attribute.name) {
            guard let oldName = origins[attribute.name] else {
                addedAttribute(attribute, in: new)
                continue
            }
            guard let oldAttribute = old.attribute(named: oldName) else {
                changes.append(
                    SchemaChange(
                        kind: .attributeAdded, entity: new.name, property: attribute.name,
                        refusal:
                            "Attribute '\(new.name).\(attribute.name)' was the relationship '\(old.name).\(oldName)' \(versions); Molt cannot turn a relationship into an attribute by itself. Fill the attribute in \(customStageHint)\(replacementHint(old.name, oldName, attribute.name, what: "its links"))."
                    ))
                continue
            }
            compareAttribute(oldAttribute, attribute, in: new)
        }
        for relationship in new.relationships where !ambiguous.contains(relationship.name) {
            guard let oldName = origins[relationship.name] else {
                changes.append(SchemaChange(kind: .relationshipAdded, entity: new.name, property: relationship.name))
                continue
            }
            guard let oldRelationship = old.relationship(named: oldName) else {
                changes.append(
                    SchemaChange(
                        kind: .relationshipAdded, entity: new.name, property: relationship.name,
                        refusal:
                            "Relationship '\(new.name).\(relationship.name)' was the attribute '\(old.name).\(oldName)' \(versions); Molt cannot turn an attribute into a relationship by itself. Link the objects in \(customStageHint)\(replacementHint(old.name, oldName, relationship.name, what: "its values"))."
                    ))
                continue
            }
            compareRelationship(oldRelationship, relationship, in: new)
        }
        let used = Set(origins.values)
        for attribute in old.attributes where !used.contains(attribute.name) {
            changes.append(SchemaChange(kind: .attributeRemoved, entity: new.name, property: attribute.name))
        }
        for relationship in old.relationships where !used.contains(relationship.name) {
            changes.append(SchemaChange(kind: .relationshipRemoved, entity: new.name, property: relationship.name))
        }
        compareIndexes(old, new, origins: origins)
    }

    /// New property name → old property name, by hint first (so that two properties can swap names), then by
    /// name; and the properties whose hint is ambiguous (their refusal is recorded).
    ///
    /// A property declared replaced (``Deletion/replaced(_:of:)``) is matched with nothing: the old one is removed
    /// and the new one of the same name added.
    private mutating func matchProperties(
        _ old: Entity, _ new: Entity, replaced: Set<String>
    ) -> (origins: [String: String], ambiguous: Set<String>) {
        var origins: [String: String] = [:]
        let oldNames = Set(old.attributes.map(\.name) + old.relationships.map(\.name)).subtracting(replaced)
        var claimed: [String: String] = [:]
        let newProperties: [(name: String, originalName: String?)] =
            new.attributes.map { ($0.name, $0.originalName) } + new.relationships.map { ($0.name, $0.originalName) }
        var ambiguous: Set<String> = []
        for property in newProperties {
            guard let original = property.originalName, original != property.name, oldNames.contains(original) else {
                continue
            }
            if let other = claimed[original] {
                ambiguous.insert(property.name)
                let isAttribute = new.attribute(named: property.name) != nil
                changes.append(
                    SchemaChange(
                        kind: isAttribute ? .attributeRenamed(from: original) : .relationshipRenamed(from: original),
                        entity: new.name, property: property.name,
                        refusal:
                            "'\(new.name).\(property.name)' says it was renamed from '\(original)', but '\(new.name).\(other)' also comes from '\(original)' \(versions); the rename is ambiguous. Remove one of the `originalName` hints, or copy the values in \(customStageHint)."
                    ))
                continue
            }
            claimed[original] = property.name
            origins[property.name] = original
        }
        for property in newProperties where origins[property.name] == nil && !ambiguous.contains(property.name) {
            guard oldNames.contains(property.name), claimed[property.name] == nil else { continue }
            origins[property.name] = property.name
            claimed[property.name] = property.name
        }
        return (origins, ambiguous)
    }

    /// Marks the removal and the addition of each replaced property (from `changes[first...]`, the entity's) with
    /// the other side, so that the diff, the plan and the history say it was replaced rather than removed.
    private mutating func describeReplacements(_ replaced: Set<String>, _ old: Entity, _ new: Entity, from first: Int) {
        guard !replaced.isEmpty else { return }
        func describe(_ entity: Entity, _ name: String) -> String? {
            if let attribute = entity.attribute(named: name) {
                return "attribute '\(entity.name).\(name)' (\(attribute.type.rawValue))"
            }
            guard let relationship = entity.relationship(named: name) else { return nil }
            return
                "relationship '\(entity.name).\(name)' (\(relationship.kind == .toOne ? "to-one" : "to-many") '\(relationship.destination)')"
        }
        for index in changes.indices where index >= first && changes[index].entity == new.name {
            guard let name = changes[index].property, replaced.contains(name) else { continue }
            switch changes[index].kind {
            case .attributeRemoved, .relationshipRemoved: changes[index].replacement = describe(new, name)
            case .attributeAdded, .relationshipAdded: changes[index].replacement = describe(old, name)
            default: continue
            }
        }
    }

    // MARK: - Attributes

    private mutating func addedAttribute(_ attribute: Attribute, in entity: Entity) {
        var refusal: String?
        if !attribute.isOptional && attribute.defaultValue == nil {
            refusal =
                "Attribute '\(entity.name).\(attribute.name)' has been added as required with no default value \(versions), so existing objects would have no value. Give it a default (`default: …`), make it optional, or set its value in \(customStageHint)."
        }
        changes.append(
            SchemaChange(kind: .attributeAdded, entity: entity.name, property: attribute.name, refusal: refusal))
    }

    private mutating func compareAttribute(_ old: Attribute, _ new: Attribute, in entity: Entity) {
        let label = "'\(entity.name).\(new.name)'"
        if old.name != new.name {
            changes.append(
                SchemaChange(kind: .attributeRenamed(from: old.name), entity: entity.name, property: new.name))
        }
        if old.type != new.type {
            var refusal: String?
            if !old.type.widens(to: new.type) {
                let oldEntity = entityOrigins[entity.name] ?? entity.name
                refusal =
                    "Attribute \(label) has changed type from '\(old.type.rawValue)' to '\(new.type.rawValue)' \(versions); this conversion may lose data, so Molt will not infer it. Convert each value in \(customStageHint) (for example with `enumerateObjects(ofType: \"\(entity.name)\")`, or a mapping expression)\(replacementHint(oldEntity, old.name, new.name, what: "its values"))."
            }
            changes.append(
                SchemaChange(
                    kind: .attributeTypeChanged(from: old.type, to: new.type), entity: entity.name, property: new.name,
                    refusal: refusal))
        }
        if old.isOptional && !new.isOptional {
            var refusal: String?
            if new.defaultValue == nil {
                refusal =
                    "Attribute \(label) has been made required \(versions), but it has no default value for the objects where it is null. Give it a default (`default: …`), or fill the null values in \(customStageHint)."
            }
            changes.append(
                SchemaChange(kind: .attributeMadeRequired, entity: entity.name, property: new.name, refusal: refusal))
        } else if !old.isOptional && new.isOptional {
            changes.append(SchemaChange(kind: .attributeMadeOptional, entity: entity.name, property: new.name))
        }
        if old.defaultValue != new.defaultValue, old.type == new.type {
            changes.append(
                SchemaChange(
                    kind: .attributeDefaultChanged(from: old.defaultValue, to: new.defaultValue), entity: entity.name,
                    property: new.name))
        }
        for kind in Self.shapeChanges(from: old.shape, to: new.shape) {
            changes.append(SchemaChange(kind: kind, entity: entity.name, property: new.name))
        }
    }

    // MARK: - Relationships

    private mutating func compareRelationship(_ old: Relationship, _ new: Relationship, in entity: Entity) {
        let label = "'\(entity.name).\(new.name)'"
        if old.name != new.name {
            changes.append(
                SchemaChange(kind: .relationshipRenamed(from: old.name), entity: entity.name, property: new.name))
        }
        if entityOrigins[new.destination] != old.destination {
            changes.append(
                SchemaChange(
                    kind: .relationshipDestinationChanged(from: old.destination, to: new.destination),
                    entity: entity.name,
                    property: new.name,
                    refusal:
                        "Relationship \(label) now points to '\(new.destination)' instead of '\(old.destination)' \(versions); Molt cannot know which new objects to link. Link them in \(customStageHint)\(replacementHint(entityOrigins[entity.name] ?? entity.name, old.name, new.name, what: "its links"))."
                ))
        }
        switch (old.kind, new.kind) {
        case (.toOne, .toMany):
            changes.append(SchemaChange(kind: .relationshipToOneBecameToMany, entity: entity.name, property: new.name))
        case (.toMany, .toOne):
            changes.append(
                SchemaChange(
                    kind: .relationshipToManyBecameToOne, entity: entity.name, property: new.name,
                    refusal:
                        "Relationship \(label) has changed from to-many to to-one \(versions); objects linked to several others would lose links. Choose the one to keep in \(customStageHint)."
                ))
        default:
            if old.kind == .toMany && old.isOrdered != new.isOrdered {
                changes.append(
                    SchemaChange(
                        kind: .relationshipOrderingChanged(ordered: new.isOrdered), entity: entity.name,
                        property: new.name))
            }
        }
        if old.inverse != new.inverse {
            changes.append(SchemaChange(kind: .relationshipInverseChanged, entity: entity.name, property: new.name))
        }
        if old.deleteRule != new.deleteRule {
            changes.append(SchemaChange(kind: .relationshipDeleteRuleChanged, entity: entity.name, property: new.name))
        }
        if old.isRequiredToOne != new.isRequiredToOne {
            let kind: SchemaChange.Kind = new.isRequiredToOne ? .relationshipMadeRequired : .relationshipMadeOptional
            changes.append(SchemaChange(kind: kind, entity: entity.name, property: new.name))
        }
        let (oldMinimum, newMinimum) = (old.toManyMinimum ?? 0, new.toManyMinimum ?? 0)
        if oldMinimum != newMinimum {
            changes.append(
                SchemaChange(
                    kind: .relationshipMinimumCountChanged(from: oldMinimum, to: newMinimum), entity: entity.name,
                    property: new.name))
        }
    }

    // MARK: - Indexes

    private mutating func compareIndexes(_ old: Entity, _ new: Entity, origins: [String: String]) {
        let renamed = Dictionary(origins.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let oldIndexes = old.storedIndexes.compactMap { index -> Index? in
            let columns = index.attributes.compactMap { renamed[$0] }
            return columns.count == index.attributes.count ? Index(columns, unique: index.isUnique) : nil
        }
        let newIndexes = new.storedIndexes
        for index in newIndexes where !oldIndexes.contains(index) {
            changes.append(SchemaChange(kind: .indexAdded(index.attributes, unique: index.isUnique), entity: new.name))
        }
        for index in oldIndexes where !newIndexes.contains(index) {
            changes.append(
                SchemaChange(kind: .indexRemoved(index.attributes, unique: index.isUnique), entity: new.name))
        }
    }

    /// Each refused change's refusal, followed by what else the diff knows about it: the likely rename or
    /// move that would explain an added attribute (`'Person.yearsSinceBirth' has been added as required …`
    /// while `age` was removed).
    public var refusals: [String] {
        let (renames, moves) = (likelyRenames, likelyMoves)
        return refusedChanges.compactMap { change in
            guard var text = change.refusal else { return nil }
            guard change.kind == .attributeAdded, let property = change.property else { return text }
            for rename in renames where !rename.isEntity && rename.entity == change.entity && rename.to == property {
                text += " " + rename.fix()
            }
            for move in moves where move.destination == change.entity && move.attribute == property {
                text += " " + move.fix(from: source.version, to: destination.version)
            }
            return text
        }
    }

    /// The error that lists every change a custom stage must handle, or nil when the diff can be inferred.
    package var notInferableError: MoltError? {
        let refused = refusedChanges
        guard !refused.isEmpty else { return nil }
        let lines = refusals.map { "- " + $0 }.joined(separator: "\n")
        return MoltError(
            .migrationNotInferable,
            "Molt cannot infer the migration from version \(source.version) to \(destination.version):\n\(lines)",
            entity: refused.first?.entity, property: refused.first?.property)
    }

    /// The old name of an entity of the newer schema, or nil when it is new.
    package func originalName(ofEntity name: String) -> String? { entityOrigins[name] }

    /// The name in the newer schema of an entity of the older one (renamed or not), or nil when it is removed.
    package func newName(ofEntity old: String) -> String? {
        entityOrigins.first { $0.value == old }?.key
    }

    /// The old name of a property of an entity of the newer schema, or nil when it is new.
    package func originalName(ofProperty name: String, inEntity entity: String) -> String? {
        propertyOrigins[entity]?[name]
    }
}
