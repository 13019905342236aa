extension SnapshotFolder {
    /// One difference between a recorded version and the code's: its sentence, and what it names.
    package struct Difference: Equatable, Sendable {
        package var text: String
        package var entity: String?
        package var property: String?
    }

    /// The differences between a recorded version and the code's: structural changes as ``SchemaDiff`` names
    /// them, then changed `originalName` hints, which alter how older stores migrate although they leave the
    /// tables alike. None when only the declaration order differs.
    package static func differences(recorded: Schema, current: Schema) -> [Difference] {
        guard recorded != current else { return [] }
        var lines = SchemaDiff(from: recorded, to: current).changes.map {
            Difference(text: $0.description, entity: $0.entity, property: $0.property)
        }
        for entity in current.entities {
            guard let old = recorded.entity(named: entity.name) else { continue }
            lines += hintChanges(from: old, to: entity)
        }
        // Only the declaration order differs: stores are alike.
        if lines.isEmpty, recorded.contentHash == current.contentHash { return [] }
        if lines.isEmpty {
            lines.append(
                Difference(
                    text:
                        "The schemas differ in a way Molt cannot name; compare the snapshot with `schema.snapshotJSON()`."
                ))
        }
        return lines
    }

    /// The `originalName` hints of an entity and its properties that changed.
    private static func hintChanges(from old: Entity, to entity: Entity) -> [Difference] {
        func hint(_ name: String?) -> String { name.map { "'\($0)'" } ?? "none" }
        var lines: [Difference] = []
        if old.originalName != entity.originalName {
            lines.append(
                Difference(
                    text:
                        "Entity '\(entity.name)' has changed its originalName from \(hint(old.originalName)) to \(hint(entity.originalName)).",
                    entity: entity.name))
        }
        for attribute in entity.attributes {
            guard let before = old.attribute(named: attribute.name), before.originalName != attribute.originalName
            else { continue }
            lines.append(
                Difference(
                    text:
                        "Attribute '\(entity.name).\(attribute.name)' has changed its originalName from \(hint(before.originalName)) to \(hint(attribute.originalName)).",
                    entity: entity.name, property: attribute.name))
        }
        for relationship in entity.relationships {
            guard let before = old.relationship(named: relationship.name),
                before.originalName != relationship.originalName
            else { continue }
            lines.append(
                Difference(
                    text:
                        "Relationship '\(entity.name).\(relationship.name)' has changed its originalName from \(hint(before.originalName)) to \(hint(relationship.originalName)).",
                    entity: entity.name, property: relationship.name))
        }
        return lines
    }
}
