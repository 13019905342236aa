import ArgumentParser
import Foundation
import Molt

/// `molt demo [--directory DIR] [--count N]`: Molt's main job on an embedded example, in a few seconds.
///
/// It creates the memo app of seed 000 with a few hundred memos, walks the store through the app's versions
/// 0 → 6 one at a time, prints what changed at each step and what it cost, and leaves the store in place for
/// `molt info`.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Create a sample memo store and migrate it through seven versions, showing each step.",
        discussion: """
            The store is the memo app of a Realm migration tutorial (UserMemo: title, date, subtitle, content, \
            favorite). Each version changes the model as the tutorial does — add, remove, rename, compute, \
            convert — and Molt migrates the store one version at a time, inferring each step. The store is left \
            in place: run `molt info` on the path printed at the end.
            """)

    @Option(
        name: .long,
        help: ArgumentHelp("Where to create the store (a new temporary folder by default).", valueName: "dir"))
    var directory: String?

    @Option(name: .long, help: "How many memos to create (1 to 1000000).")
    var count = 300

    static let storeName = "memos.sqlite"

    func validate() throws {
        guard (1...1_000_000).contains(count) else {
            throw ValidationError("--count must be between 1 and 1000000, not \(count).")
        }
        if let directory {
            let store = Files.url(directory).appendingPathComponent(Self.storeName)
            if FileManager.default.fileExists(atPath: store.path) {
                throw ValidationError("\(store.path) already exists; choose another --directory, or delete it.")
            }
        }
    }

    func run() throws {
        let folder: URL
        if let directory {
            folder = Files.url(directory)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } else {
            folder = try Files.temporaryFolder("molt-demo")
        }
        let url = folder.appendingPathComponent(Self.storeName)
        let versions = DemoSchemas.versions
        Terminal.line("Molt demo: the memo app of seed 000, versions 0 → \(versions.last!.schema.version)")
        Terminal.line()
        try create(url, at: versions[0])
        for (previous, next) in zip(versions, versions.dropFirst()) {
            try migrate(url, from: previous, to: next)
        }
        try summarize(url)
    }

    /// Creates the store at the first version with `count` memos.
    private func create(_ url: URL, at version: DemoSchemas.Version) throws {
        let clock = ContinuousClock.now
        let store = try Store.open(at: url, schema: version.schema)
        try store.write { objects in
            for i in 0..<count { try objects.insert(DemoSchemas.entity, DemoSchemas.sampleMemo(i)) }
        }
        try store.close()
        Terminal.line("v0  \(version.story)")
        Terminal.line(
            "    created \(Self.storeName) with \(Format.count(count, "\(DemoSchemas.entity) object")) in \(Format.duration(seconds(since: clock)))"
        )
    }

    /// Shows one version's changes, migrates the store to it and says how.
    private func migrate(_ url: URL, from previous: DemoSchemas.Version, to next: DemoSchemas.Version) throws {
        let from = previous.schema.version, to = next.schema.version
        Terminal.line()
        Terminal.line("v\(from) → v\(to)  \(next.story)")
        if to == 6 { try clearSomeCounts(url, at: previous.schema) }
        let diff = SchemaDiff(from: previous.schema, to: next.schema)
        for change in diff.changes {
            Terminal.line("    \(change.isDestructive ? "-" : change.isInferable ? "+" : "!") \(change)")
        }
        let hasStage = DemoSchemas.stages.contains { $0.fromVersion == from && $0.toVersion == to }
        if !diff.isInferable && hasStage {
            Terminal.line(
                "    Molt will not infer this (\(diff.refusedChanges.count) refused), so the app declares a custom stage \(from) → \(to)."
            )
        }
        let clock = ContinuousClock.now
        let plan = try DemoSchemas.plan(upTo: to)
        let store = try Store.open(at: url, schema: next.schema, options: Store.Options().migrating(with: plan))
        let elapsed = seconds(since: clock)
        let record = try store.history().last
        try store.close()
        let changes = Format.changes(record?.stepRecords ?? [])
        Terminal.line(
            "    migrated \(hasStage ? "by the custom stage" : "by inference") in \(Format.duration(elapsed)), \(changes)\(changes == "no object changed" ? " (schema text only)" : "")"
        )
    }

    /// Realm's optional `count` may be nil for some memos: empties every tenth so that version 6's fallback shows.
    private func clearSomeCounts(_ url: URL, at schema: Schema) throws {
        let store = try Store.open(at: url, schema: schema)
        let cleared = try store.write { objects in
            var cleared = 0
            try objects.forEach(DemoSchemas.entity) { memo in
                guard (memo.id ?? 0) % 10 == 0 else { return }
                var changed = memo
                changed["count"] = .null
                try objects.update(changed)
                cleared += 1
            }
            return cleared
        }
        try store.close()
        Terminal.line("    (the app left count empty on \(Format.count(cleared, "memo")); they get the fallback 0)")
    }

    /// The final version, a sample memo and where the store is.
    private func summarize(_ url: URL) throws {
        let entity = DemoSchemas.entity
        let info = try Store.inspect(at: url)
        let store = try Store.open(at: url, schema: info.schema)
        let sample = try store.read { objects in try objects.fetch(entity, limit: 1).first }
        let empty = try store.read { objects in try objects.count(entity, where: .equal("count", .double(0))) }
        try store.close()
        Terminal.line()
        Terminal.line(
            "Final: version \(info.version), \(info.objectCounts[entity] ?? 0) \(entity) objects, \(Format.count(info.history.count, "migration")) recorded"
        )
        if let sample {
            let fields = ["title", "count", "memoDescription", "favorite"].map { "\($0): \(sample[$0])" }
            Terminal.line("  first memo: \(fields.joined(separator: ", "))")
        }
        Terminal.line("  memos whose count fell back to 0: \(empty)")
        Terminal.line()
        Terminal.line("Store: \(url.path)")
        Terminal.line("Next:  molt info \(url.path)")
    }

    private func seconds(since start: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - start).inSeconds
    }
}
