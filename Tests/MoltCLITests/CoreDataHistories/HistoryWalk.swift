import Foundation
import Molt

/// One real app's Core Data history, converted by `molt convert-model` and walked version by version through
/// `molt migrate`, every value and both sides of every link checked after each step.
struct HistoryWalk {
    /// How each step is run through the CLI.
    enum Mode {
        /// `molt migrate STORE --to N.json [--mapping FROM-to-TO.mapping.json]`: one snapshot per step.
        case snapshotPerStep
        /// `molt migrate STORE --to DIR --to-version N`: the folder walk, the step's mapping file in the folder.
        case folder
    }

    /// The one line to change when the folder walk (branch issue20-cli) lands: `.folder` by default. Until then
    /// `MOLT_WALK_MODE=folder` (with `MOLT_BINARY` pointing at a `molt` that has the folder walk) tries it.
    static let mode: Mode = ProcessInfo.processInfo.environment["MOLT_WALK_MODE"] == "folder" ? .folder : .snapshotPerStep

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
        var steps: [StepResult]
        /// Times the store was created again from the expected state (after a failed step, or to give a new entity,
        /// attribute or relationship values), so that every later step starts from a full store.
        var reseeds: Int
        /// Wall-clock seconds spent in each `molt` command (`convert-model`, `migrate`, `export`, `import`).
        var seconds: [String: Double]
        var failures: [Int: String] { Dictionary(steps.compactMap { s in s.failure.map { (s.to, $0) } }, uniquingKeysWith: { a, _ in a }) }
    }

    func run() throws -> Outcome {
        var seconds: [String: Double] = [:]
        func molt(_ arguments: [String]) throws -> Molt.Result {
            let start = Date()
            defer { seconds[arguments[0], default: 0] += Date().timeIntervalSince(start) }
            return try Molt.run(arguments)
        }
        let work = TemporaryDirectory()
        let snapshots = work.file("snapshots"), stages = work.file("stages")
        try FileManager.default.createDirectory(at: stages, withIntermediateDirectories: true)
        let convert = try molt(["convert-model", Self.shared.appendingPathComponent(app.model).path, "--out", snapshots.path, "--approximate", "all"])
        guard convert.status == 0 else { throw WalkError(description: "molt convert-model failed for \(app.name):\n\(convert)") }
        let count = try FileManager.default.contentsOfDirectory(atPath: snapshots.path).filter { SnapshotFolder.version(ofFileNamed: $0) != nil }.count
        for case .renamesEntity(let from, let to) in app.effects.values.flatMap({ $0 }) {
            try declareRename(from: from, to: to, in: snapshots, effects: app.effects)
        }
        let folder = SnapshotFolder(snapshots)
        let schemas = try (1...count).map { try folder.schema(version: $0) }
        for (to, effects) in app.effects {
            let mappings = effects.compactMap(\.mapping).flatMap { (mapping: JSONValue) -> [JSONValue] in
                if case .array(let items) = mapping { return items } else { return [] }
            }
            guard !mappings.isEmpty else { continue }
            let file = stages.appendingPathComponent("\(to - 1)-to-\(to).mapping.json")
            try JSONEncoder().encode(JSONValue.object(["mappings": .array(mappings)])).write(to: file)
            if Self.mode == .folder { try FileManager.default.copyItem(at: file, to: snapshots.appendingPathComponent(file.lastPathComponent)) }
        }

        let store = work.file("store.sqlite")
        var state = HistoryState()
        state.fill(schemas[0])
        try reseed(store, state, schemas[0], work, molt)
        var reseeds = 0
        var results: [StepResult] = []
        for version in 2...count {
            let old = schemas[version - 2], new = schemas[version - 1]
            let expected = state.migrated(from: old, to: new, effects: app.effects[version] ?? [])
            var failure: String?
            let migrate = try molt(migrateArguments(store, snapshots, stages, to: version))
            if migrate.status != 0 {
                failure = "molt migrate exit \(migrate.status): \(migrate.stderr.split(separator: "\n").first ?? "")"
            } else {
                let export = try molt(["export", store.path])
                guard export.status == 0 else { throw WalkError(description: "molt export failed after \(version - 1) → \(version):\n\(export)") }
                let actual = try HistoryState(export: Data(export.stdout.utf8))
                let differences = expected.differences(from: actual, schema: new) + actual.disagreeingSides(schema: new)
                if !differences.isEmpty { failure = differences.map(\.description).joined(separator: "; ") }
            }
            results.append(StepResult(to: version, failure: failure))
            state = expected
            if state.fill(new) || failure != nil {
                try reseed(store, state, new, work, molt)
                reseeds += 1
            }
        }
        return Outcome(steps: results, reseeds: reseeds, seconds: seconds)
    }

    private func migrateArguments(_ store: URL, _ snapshots: URL, _ stages: URL, to version: Int) -> [String] {
        switch Self.mode {
        case .snapshotPerStep:
            let mapping = stages.appendingPathComponent("\(version - 1)-to-\(version).mapping.json")
            let extra = FileManager.default.fileExists(atPath: mapping.path) ? ["--mapping", mapping.path] : []
            return ["migrate", store.path, "--to", snapshots.appendingPathComponent("\(version).json").path, "--skip-check"] + extra
        case .folder:
            return ["migrate", store.path, "--to", snapshots.path, "--to-version", String(version), "--skip-check"]
        }
    }

    /// Creates the store again at `schema` from `state`, through `molt import`.
    private func reseed(
        _ store: URL, _ state: HistoryState, _ schema: Schema, _ work: TemporaryDirectory, _ molt: ([String]) throws -> Molt.Result
    ) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
        let data = work.file("data.json"), snapshot = work.file("schema.json")
        try state.dataFile(version: schema.version).write(to: data)
        try schema.snapshotJSON().write(to: snapshot)
        let result = try molt(["import", store.path, "--schema", snapshot.path, data.path])
        guard result.status == 0 else { throw WalkError(description: "molt import of the \(app.name) data at version \(schema.version) failed:\n\(result)") }
    }

    /// Declares in the converted snapshot a rename that the app's mapping model did (the model itself does not say it).
    private func declareRename(from: String, to: String, in snapshots: URL, effects: [Int: [StepEffect]]) throws {
        guard let version = effects.first(where: { $0.value.contains { if case .renamesEntity(from, to) = $0 { return true } else { return false } } })?.key else { return }
        let url = snapshots.appendingPathComponent("\(version).json")
        var schema = try Schema(unvalidatedSnapshotJSON: Data(contentsOf: url))
        guard let index = schema.entities.firstIndex(where: { $0.name == to }) else { throw WalkError(description: "\(version).json has no entity '\(to)'") }
        schema.entities[index].originalName = from
        schema.deletions.removeAll { $0 == .entity(from) }
        try schema.validate()
        try schema.snapshotJSON().write(to: url)
    }

    struct WalkError: Error, CustomStringConvertible { var description: String }
}
