import Foundation
import Molt

/// What `migrate`, `plan` and `rehearse` bring a store to: one schema snapshot (`--to N.json`, inferred straight
/// from the store's version, or through `--mapping FILE`), or a folder of snapshots (`--to DIR`) walked version by
/// version up to its newest (or `--to-version N`), as a ``MigrationPlan`` of the folder's versions walks them.
///
/// In a folder, `<version>.json` are the snapshots (the folder `molt check DIR` lints) and
/// `<from>-to-<to>.mapping.json` is the mapping file of a step (the format of `--mapping`): the walk runs it as the
/// stage from `from` to `to`, and infers every other step.
///
/// ```text
/// snapshots/  0.json  1.json  2.json  2-to-3.mapping.json  3.json
/// molt migrate app.sqlite --to snapshots/                  # 0 → 1 → 2 → 3, one transaction
/// molt plan app.sqlite --to snapshots/ --to-version 2      # 0 → 1 → 2
/// ```
struct MigrationTarget {
    /// The schema the store is brought to.
    let schema: Schema
    /// The folder walked, or nil for a single snapshot.
    private let folder: SnapshotFolder?
    /// Whether the target is one snapshot without `--mapping`: its plan is inferred, whatever the store's version.
    var isInferredSnapshot: Bool { folder == nil && mappingPath == nil }
    /// `--mapping`, for a single snapshot.
    private let mappingPath: String?
    /// The folder's versions, oldest first, up to ``schema``'s.
    private let versions: [Int]

    /// Reads `--to` (a snapshot or a folder), `--to-version` and `--mapping`.
    ///
    /// - Throws: ``CLIFailure`` (usage) for `--to-version` without a folder, `--mapping` with one, or a version the
    ///   folder lacks; ``MoltError`` naming the file that cannot be read.
    init(_ target: TargetSchemaOptions, mapping: MappingOptions) throws {
        try self.init(to: target.to, toVersion: target.toVersion, mapping: mapping.mapping)
    }

    /// Reads `--to` (a snapshot or a folder), `--to-version` and `--mapping`, given as values.
    ///
    /// - Parameters:
    ///   - to: The snapshot's path, or the folder's.
    ///   - toVersion: With a folder, the version to walk to (its newest when nil).
    ///   - mapping: The mapping file of a single step, if any.
    init(to: String, toVersion: Int?, mapping: String?) throws {
        let url = Files.url(to)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            if let version = toVersion {
                throw CLIFailure(
                    .usage,
                    "--to-version \(version) picks a version of a folder of snapshots, but \(to) is not a folder; give the folder to --to, or leave out --to-version."
                )
            }
            schema = try Files.schema(at: to)
            folder = nil
            mappingPath = mapping
            versions = []
            return
        }
        let folder = SnapshotFolder(url)
        if let path = mapping {
            throw CLIFailure(
                .usage,
                "--mapping \(path) gives the mapping of one step, but --to is a folder: put each step's mapping in the folder as <from>-to-<to>.mapping.json (for example \(folder.mappingURL(from: 3, to: 4).lastPathComponent)), and leave out --mapping."
            )
        }
        let all = try folder.recordedVersions()
        guard let newest = all.last else {
            throw CLIFailure(
                .badInput,
                "The folder \(url.path) holds no schema snapshot; snapshots are named <version>.json (`molt schema STORE > \(to)/0.json`)."
            )
        }
        let version = toVersion ?? newest
        guard all.contains(version) else {
            throw CLIFailure(
                .usage,
                "--to-version \(version): the folder \(url.path) has no \(version).json; its versions are \(Self.list(all))."
            )
        }
        self.folder = folder
        self.schema = try folder.schema(version: version)
        self.mappingPath = nil
        self.versions = all.filter { $0 <= version }
    }

    /// The plan from a store's recorded schema `stored` to ``schema``, for a store that is not at it already
    /// (``StoreInfo/isAt(_:)``): nil for a single snapshot without `--mapping` (inferred), and when the store is past
    /// the target (opening it then says so).
    ///
    /// A folder's plan lists its versions from the store's to the target, with the mapping files of those steps
    /// as stages; a step no mapping file covers is inferred, and one that cannot be refused here, naming the
    /// mapping file that would cover it.
    ///
    /// - Throws: ``MoltError`` (``MoltError/Code/migrationNotInferable``, ``MoltError/Code/invalidPlan``,
    ///   ``MoltError/Code/schemaChangedWithoutVersionBump``) or ``CLIFailure``, before anything is written.
    func plan(from stored: Schema) throws -> MigrationPlan? {
        guard let folder else {
            guard let mappingPath else { return nil }
            return try MappingFile.plan(at: mappingPath, from: stored, to: schema)
        }
        guard stored.version < schema.version else { return nil }
        guard versions.contains(stored.version) else {
            throw CLIFailure(
                .badInput,
                "The store is at version \(stored.version), which has no snapshot in \(folder.directory.path) (its versions are \(Self.list(versions))). Record it from the store: `molt schema STORE > \(folder.url(version: stored.version).path)`."
            )
        }
        let walked = versions.filter { $0 >= stored.version }
        let recorded = try folder.schema(version: stored.version)
        guard recorded.contentHash == stored.contentHash else {
            let changes = SchemaDiff(from: stored, to: recorded).changes.map { "- \($0)" }.joined(separator: "\n")
            // An adopted Core Data store keeps its hierarchies; snapshots converted without --hierarchies do not.
            let flattened =
                stored.entities.contains { $0.parent != nil } && !recorded.entities.contains { $0.parent != nil }
                ? "\nThe store's entities inherit and the snapshot's do not: if `molt convert-model` wrote the folder, convert the model again with `--hierarchies` (a Core Data store's sub-entities are adopted as Molt sub-entities)."
                : ""
            throw MoltError(
                .schemaChangedWithoutVersionBump,
                "\(folder.url(version: stored.version).path) differs from the schema of version \(stored.version) recorded in the store:\n\(changes)\nA shipped version must not change: restore \(stored.version).json as it shipped (or record it from the store: `molt schema STORE > \(folder.url(version: stored.version).path)`), and put the change in a new version.\(flattened)"
            )
        }
        let schemas = try [recorded] + walked.dropFirst().map { try folder.schema(version: $0) }
        var stages: [MigrationStage] = []
        for step in try folder.mappingSteps() where walked.contains(step.from) && walked.contains(step.to) {
            let mappings = try MappingFile.mappings(at: folder.mappingURL(from: step.from, to: step.to))
            stages.append(.mapping(from: step.from, to: step.to, mappings))
        }
        // The library's own routing, so that a step that needs a mapping is named with the file that would hold it.
        for step in try MigrationPlan(uncheckedSchemas: schemas, stages: stages).route(from: stored)
        where step.stage == nil {
            guard let error = step.diff.notInferableError else { continue }
            let file = folder.mappingURL(from: step.from.version, to: step.to.version).path
            throw MoltError(
                .migrationNotInferable,
                "\(error.message)\nWrite what the step needs as the mapping file \(file) (the format of --mapping; see `molt migrate --help`), or change \(step.to.version).json (an originalName, a default, a declared deletion).",
                entity: error.entity, property: error.property, cause: error)
        }
        return try MigrationPlan(schemas: schemas, stages: stages)
    }

    /// What `migrate` and `plan` print for a store already at the target (``StoreInfo/isAt(_:)``).
    static func nothingToDo(version: Int) -> String {
        "The store is already at version \(version) with this schema: nothing to do."
    }

    /// "0, 1, 2" or "0 to 116 (117 versions)".
    private static func list(_ versions: [Int]) -> String {
        guard versions.count > 6, let first = versions.first, let last = versions.last else {
            return versions.map(String.init).joined(separator: ", ")
        }
        return "\(first) to \(last) (\(versions.count) versions)"
    }
}
