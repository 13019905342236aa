import Foundation
import Molt
import MoltTooling

/// One real app's Core Data history, converted by `molt convert-model` into a folder of snapshots (with a
/// `FROM-to-TO.mapping.json` for each step the app shipped a Core Data mapping model for) and walked through
/// `molt migrate STORE --to DIR`: once from the first version to the last in one command, and version by version
/// (`--to-version N`), every value and both sides of every link checked after each step.
struct HistoryWalk {
    /// How each step of the version-by-version walk is run through the CLI.
    enum Mode {
        /// `molt migrate STORE --to DIR --to-version N`: the folder walk, the step's mapping file in the folder.
        case folder
        /// `molt migrate STORE --to N.json [--mapping DIR/FROM-to-TO.mapping.json]`: one snapshot per step.
        case snapshotPerStep
    }

    /// The folder walk; `MOLT_WALK_MODE=snapshot` walks one snapshot per step instead, to compare the two.
    static let mode: Mode =
        ProcessInfo.processInfo.environment["MOLT_WALK_MODE"] == "snapshot" ? .snapshotPerStep : .folder

    /// Where the shared histories are: `../shared/coredata-models` beside the package root.
    static let shared: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/coredata-models")

    let app: HistoryApp

    /// What one step did.
    struct StepResult {
        var to: Int
        /// Nil when the step migrated and every value and link is as expected.
        var failure: String?
    }

    struct Outcome {
        /// The versions of the history: `1 … versions`.
        var versions: Int
        /// The walk from the first version to the last in one `molt migrate STORE --to DIR --to-version N`, from a
        /// store filled at the first version: nil when it migrated and every value and link is what the
        /// steps, chained, must leave. It carries only what the first version has: what later versions add
        /// holds nothing in it, and is checked by the version-by-version walk, which fills it.
        var wholeWalkFailure: String?
        /// The version-by-version walk.
        var steps: [StepResult]
        /// Times the store was created again from the expected state (after a failed step, or to give a new entity,
        /// attribute or relationship values), so that every later step starts from a full store.
        var reseeds: Int
        /// Wall-clock seconds spent in each `molt` command (`convert-model`, `migrate`, `export`, `import`); the
        /// whole walk's migrate is `migrate (whole)`.
        var seconds: [String: Double]
        var failures: [Int: String] {
            Dictionary(steps.compactMap { s in s.failure.map { (s.to, $0) } }, uniquingKeysWith: { a, _ in a })
        }
    }

    func run() throws -> Outcome {
        var seconds: [String: Double] = [:]
        func molt(_ arguments: [String], as label: String? = nil) throws -> Molt.Result {
            let start = Date()
            defer { seconds[label ?? arguments[0], default: 0] += Date().timeIntervalSince(start) }
            return try Molt.run(arguments)
        }
        let work = TemporaryDirectory()
        let snapshots = work.file("snapshots")
        let (schemas, count) = try prepare(snapshots, molt)
        let store = work.file("store.sqlite")

        // The whole history in one command, from a store filled at version 1, through the steps that keep short
        // owners (`StepEffect.keepsShortOwners`) as Core Data did.
        var state = HistoryState()
        state.fill(schemas[0])
        let wholeWalkFailure = try walkLeg(from: 1, to: count, schemas, store, snapshots, work, molt)

        // Version by version, filling what each version adds, every value checked after each step.
        try reseed(store, state, schemas[0], work, molt)
        var reseeds = 0
        var results: [StepResult] = []
        for version in 2...count {
            let old = schemas[version - 2], new = schemas[version - 1]
            let expected = state.migrated(from: old, to: new, effects: app.effects[version] ?? [])
            var failure: String?
            let migrate = try molt(migrateArguments(store, snapshots, to: version))
            if migrate.status != 0 {
                failure = "molt migrate exit \(migrate.status): \(migrate.stderr.split(separator: "\n").first ?? "")"
            } else {
                failure = try compare(
                    store, expected: expected, schema: new, after: "\(version - 1) → \(version)", molt)
                for kept in (app.effects[version] ?? []).compactMap(\.keptRelationship) where failure == nil {
                    failure = try keptShortOwners(of: kept, at: version, in: store, molt)
                }
            }
            results.append(StepResult(to: version, failure: failure))
            state = expected
            if state.fill(new) || failure != nil {
                try reseed(store, state, new, work, molt)
                reseeds += 1
            }
        }
        return Outcome(
            versions: count, wholeWalkFailure: wholeWalkFailure, steps: results, reseeds: reseeds, seconds: seconds)
    }

    /// Walks `start → end` in one `molt migrate --to DIR --to-version`, from a store filled at `start`: nil when it
    /// migrated and holds what the steps, chained, must leave.
    private func walkLeg(
        from start: Int, to end: Int, _ schemas: [Schema], _ store: URL, _ snapshots: URL, _ work: TemporaryDirectory,
        _ molt: ([String], String?) throws -> Molt.Result
    ) throws -> String? {
        var chained = HistoryState()
        chained.fill(schemas[start - 1])
        try reseed(store, chained, schemas[start - 1], work, molt)
        guard end > start else { return nil }
        for version in (start + 1)...end {
            chained = chained.migrated(
                from: schemas[version - 2], to: schemas[version - 1], effects: app.effects[version] ?? [])
        }
        let whole = try molt(
            ["migrate", store.path, "--to", snapshots.path, "--to-version", String(end)], "migrate (whole)")
        guard whole.status == 0 else {
            return "molt migrate --to DIR exit \(whole.status): \(whole.stderr.split(separator: "\n").first ?? "")"
        }
        return try compare(
            store, expected: chained, schema: schemas[end - 1], after: "the walk \(start) → \(end)", molt)
    }

    /// Nil when the history entry of the step to `version` lists objects kept under the minimum count of
    /// `relationship` (`Entity.relationship`), as `molt info --json` shows it; otherwise what is wrong.
    private func keptShortOwners(
        of relationship: String, at version: Int, in store: URL, _ molt: ([String], String?) throws -> Molt.Result
    ) throws -> String? {
        let info = try molt(["info", store.path, "--json"], nil)
        let json = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
        let records = ((json?["history"] as? [[String: Any]])?.last?["stepRecords"] as? [[String: Any]]) ?? []
        let lines = records.filter { $0["toVersion"] as? Int == version }.flatMap {
            $0["underMinimumCount"] as? [String] ?? []
        }
        let parts = relationship.split(separator: ".")
        let named = lines.contains { $0.contains("'\(parts[0])' object") && $0.hasSuffix("'\(parts[1])'") }
        return named
            ? nil
            : "the history of the step to \(version) does not list the owners kept under '\(relationship)': \(lines)"
    }

    /// Converts the app's model into `snapshots` (`1.json … N.json`), declares the entity renames its mapping models
    /// did, and writes a `FROM-to-TO.mapping.json` for each step whose mapping model did more than the snapshots
    /// say. Returns the schemas and their count.
    private func prepare(_ snapshots: URL, _ molt: ([String], String?) throws -> Molt.Result) throws -> ([Schema], Int)
    {
        let convert = try molt(
            [
                "convert-model", Self.shared.appendingPathComponent(app.model).path, "--out", snapshots.path,
                "--approximate", "all",
            ], nil)
        guard convert.status == 0 else {
            throw WalkError(description: "molt convert-model failed for \(app.name):\n\(convert)")
        }
        let count = try FileManager.default.contentsOfDirectory(atPath: snapshots.path).filter {
            SnapshotFolder.version(ofFileNamed: $0) != nil
        }.count
        for (version, effects) in app.effects {
            for case .renamesEntity(let from, let to) in effects {
                try declareRename(from: from, to: to, version: version, in: snapshots)
            }
        }
        for (to, effects) in app.effects {
            let mappings = effects.compactMap(\.mapping).flatMap { (mapping: JSONValue) -> [JSONValue] in
                if case .array(let items) = mapping { return items } else { return [] }
            }
            guard !mappings.isEmpty else { continue }
            try JSONEncoder().encode(JSONValue.object(["mappings": .array(mappings)]))
                .write(to: snapshots.appendingPathComponent("\(to - 1)-to-\(to).mapping.json"))
        }
        let folder = SnapshotFolder(snapshots)
        return (try (1...count).map { try folder.schema(version: $0) }, count)
    }

    /// Nil when the store holds `expected` under `schema` and every link reads the same from both sides; otherwise
    /// the differences.
    private func compare(
        _ store: URL, expected: HistoryState, schema: Schema, after step: String,
        _ molt: ([String], String?) throws -> Molt.Result
    ) throws -> String? {
        let export = try molt(["export", store.path], nil)
        guard export.status == 0 else { throw WalkError(description: "molt export failed after \(step):\n\(export)") }
        let actual = try HistoryState(export: Data(export.stdout.utf8))
        let differences = expected.differences(from: actual, schema: schema) + actual.disagreeingSides(schema: schema)
        return differences.isEmpty ? nil : differences.map(\.description).joined(separator: "; ")
    }

    private func migrateArguments(_ store: URL, _ snapshots: URL, to version: Int) -> [String] {
        switch Self.mode {
        case .snapshotPerStep:
            let mapping = snapshots.appendingPathComponent("\(version - 1)-to-\(version).mapping.json")
            let extra = FileManager.default.fileExists(atPath: mapping.path) ? ["--mapping", mapping.path] : []
            return [
                "migrate", store.path, "--to", snapshots.appendingPathComponent("\(version).json").path, "--skip-check",
            ] + extra
        case .folder:
            return ["migrate", store.path, "--to", snapshots.path, "--to-version", String(version), "--skip-check"]
        }
    }

    /// Creates the store again at `schema` from `state`, through `molt import`.
    private func reseed(
        _ store: URL, _ state: HistoryState, _ schema: Schema, _ work: TemporaryDirectory,
        _ molt: ([String], String?) throws -> Molt.Result
    ) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: store.path + suffix)
        }
        let data = work.file("data.json"), snapshot = work.file("schema.json")
        try state.dataFile(version: schema.version).write(to: data)
        try schema.snapshotJSON().write(to: snapshot)
        let result = try molt(["import", store.path, "--schema", snapshot.path, data.path], nil)
        guard result.status == 0 else {
            throw WalkError(
                description: "molt import of the \(app.name) data at version \(schema.version) failed:\n\(result)")
        }
    }

    /// Declares in the converted snapshot a rename that the app's mapping model did (the model itself does not say
    /// it): the entity's `originalName`, without the deletion of the old entity and without the replacement of the
    /// relationships that pointed to it (convert-model declares them replaced, since their destination no longer
    /// comes from the old one; with the rename it does, and the mapping model kept their links).
    private func declareRename(from: String, to: String, version: Int, in snapshots: URL) throws {
        let url = snapshots.appendingPathComponent("\(version).json")
        let previous = try Schema(
            unvalidatedSnapshotJSON: Data(contentsOf: snapshots.appendingPathComponent("\(version - 1).json")))
        var schema = try Schema(unvalidatedSnapshotJSON: Data(contentsOf: url))
        guard let index = schema.entities.firstIndex(where: { $0.name == to }) else {
            throw WalkError(description: "\(version).json has no entity '\(to)'")
        }
        schema.entities[index].originalName = from
        let entities = schema.entities
        schema.deletions.removeAll { deletion in
            if deletion == .entity(from) { return true }
            guard deletion.isReplaced, let property = deletion.property,
                previous.entities.first(where: { $0.name == deletion.entity })?.relationship(named: property)?
                    .destination == from
            else { return false }
            return entities.contains {
                $0.relationship(named: property)?.destination == to && ($0.originalName ?? $0.name) == deletion.entity
            }
        }
        try schema.validate()
        try schema.snapshotJSON().write(to: url)
    }

    struct WalkError: Error, CustomStringConvertible { var description: String }
}
