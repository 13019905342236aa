/// How the code's schema of a recorded version differs from its snapshot: the structural changes as
/// ``Molt/SchemaDiff`` names them, then the migration hints (`originalName`) that changed, which alter how older
/// stores migrate although they leave the tables alike.
struct SnapshotComparison {
    /// One difference: its sentence, and the entity and attribute it names.
    struct Line {
        var text: String
        var entity: String?
        var attribute: String?
    }

    let recorded: Schema
    let code: Schema
    let lines: [Line]

    /// Compares the two; nil when they are the same.
    init?(recorded: Schema, code: Schema) {
        guard recorded != code else { return nil }
        var lines = SchemaDiff(from: recorded, to: code).changes.map {
            Line(text: $0.description, entity: $0.entity, attribute: $0.property)
        }
        for entity in code.entities {
            guard let old = recorded.entity(named: entity.name) else { continue }
            if old.originalName != entity.originalName {
                lines.append(Line(
                    text: "Entity '\(entity.name)' has changed its originalName from \(Self.hint(old.originalName)) to \(Self.hint(entity.originalName)).",
                    entity: entity.name))
            }
            for attribute in entity.attributes {
                guard let before = old.attribute(named: attribute.name), before.originalName != attribute.originalName else { continue }
                lines.append(Line(
                    text: "Attribute '\(entity.name).\(attribute.name)' has changed its originalName from \(Self.hint(before.originalName)) to \(Self.hint(attribute.originalName)).",
                    entity: entity.name, attribute: attribute.name))
            }
            for relationship in entity.relationships {
                guard let before = old.relationship(named: relationship.name), before.originalName != relationship.originalName else { continue }
                lines.append(Line(
                    text: "Relationship '\(entity.name).\(relationship.name)' has changed its originalName from \(Self.hint(before.originalName)) to \(Self.hint(relationship.originalName)).",
                    entity: entity.name, attribute: relationship.name))
            }
        }
        // Only the declaration order differs: the stores are alike, but the file would change.
        if lines.isEmpty, recorded.contentHash == code.contentHash { return nil }
        if lines.isEmpty { lines.append(Line(text: "The schemas differ in a way Molt cannot name; compare the files.")) }
        self.recorded = recorded
        self.code = code
        self.lines = lines
    }

    private static func hint(_ name: String?) -> String { name.map { "'\($0)'" } ?? "none" }

    /// The error that reports the edit of a frozen version.
    func error(file: String) -> MigrationTestError {
        let version = code.version
        let list = lines.map { "- " + $0.text }.joined(separator: "\n")
        return MigrationTestError(
            .frozenVersionEdited,
            "Schema version \(version) differs from its snapshot \(file), recorded when it shipped:\n\(list)\nA shipped version must not change: restore version \(version) as recorded, and declare the change as version \(version + 1). If version \(version) never shipped, record it again with \(SchemaSnapshots.RecordMode.environmentVariable)=all.",
            version: version, entity: lines.first?.entity, attribute: lines.first?.attribute)
    }
}
