/// How the code's schema of a recorded version differs from its snapshot: the structural changes as
/// `SchemaDiff` names them, then the migration hints (`originalName`) that changed, which alter how older
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

    /// Compares the two (as `SnapshotFolder` does for the library's own check); nil when they are the same.
    init?(recorded: Schema, code: Schema) {
        let differences = SnapshotFolder.differences(recorded: recorded, current: code)
        guard !differences.isEmpty else { return nil }
        self.recorded = recorded
        self.code = code
        self.lines = differences.map { Line(text: $0.text, entity: $0.entity, attribute: $0.property) }
    }

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
