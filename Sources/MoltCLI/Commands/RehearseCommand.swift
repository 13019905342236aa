import ArgumentParser
import Foundation
import Molt

/// `molt rehearse STORE --to NEW.json [--json]`: migrates a temporary copy of a store and reports what the real
/// migration would do: per-entity counts before and after, time and peak memory. The original is only read.
struct RehearseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rehearse",
        abstract: "Migrate a copy of a store and report counts before and after, time and peak memory.",
        discussion: """
            The store is copied to a temporary folder (SQLite's online backup) and the copy is migrated exactly as \
            `migrate` would do it (every step of a folder's walk); the copy is then deleted. The original is only read, never written. Peak memory is the most this process held \
            resident, copy and migration included.
            """)

    @OptionGroup var storeArgument: StoreArgument
    @OptionGroup var target: TargetSchemaOptions
    @OptionGroup var mapping: MappingOptions
    @OptionGroup var output: OutputOptions

    struct EntityCounts: Encodable {
        var entity: String
        var before: Int?
        var after: Int?
    }

    struct Report: Encodable {
        var store: String
        var fromVersion: Int
        var toVersion: Int
        var entities: [EntityCounts]
        var steps: [String]
        var duration: Double
        var objectsTouched: Int
        var stepRecords: [MigrationStepRecord]
        var peakMemoryBytes: Int
    }

    func run() throws {
        let destination = try MigrationTarget(target, mapping: mapping)
        let schema = destination.schema
        let location = try Files.existingStoreLocation(storeArgument.store)
        guard let url = location.url else { return try rehearseInTransaction(location, destination: destination) }
        let folder = try Files.temporaryFolder("molt-rehearse")
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent(url.lastPathComponent)
        try Files.backUpStore(url, to: copy)
        let info = try Files.storeInfo(.file(copy), countingObjects: true)
        let plan = info.isAt(schema) ? nil : try destination.plan(from: info.schema)
        try Store.checkMigration(from: info.schema, to: schema, plan: plan)

        let bar = output.json ? nil : Terminal.progressBar(title: "Rehearsing")
        var options = Files.existingStoreOptions()
        options.plan = plan
        options.progress = bar?.handler
        let clock = ContinuousClock.now
        do {
            let store = try Store.open(at: copy, schema: schema, options: options)
            try store.close()
            bar?.finish()
        } catch {
            bar?.finish()
            throw error
        }
        let elapsed = ContinuousClock.now - clock
        let after = try Store.inspect(at: copy)
        let migrated = info.version != schema.version
        let record = migrated ? after.history.last : nil
        try report(
            info, store: url.path, schema: schema, after: after.objectCounts,
            record: record.map { ($0.steps, $0.objectsTouched, $0.stepRecords) },
            elapsed: elapsed)
    }

    /// A PostgreSQL store is rehearsed in place, in a transaction that is rolled back (its DDL is transactional).
    private func rehearseInTransaction(_ location: StoreLocation, destination: MigrationTarget) throws {
        let schema = destination.schema
        let info = try Files.storeInfo(location, countingObjects: true)
        let plan = info.isAt(schema) ? nil : try destination.plan(from: info.schema)
        try Store.checkMigration(from: info.schema, to: schema, plan: plan)
        let clock = ContinuousClock.now
        let dryRun = try Store.dryRunMigration(at: location, to: schema, plan: plan)
        let elapsed = ContinuousClock.now - clock
        try report(
            info, store: StoreAddress.describe(location), schema: schema,
            after: dryRun.steps.isEmpty ? info.objectCounts : dryRun.objectCounts,
            record: dryRun.steps.isEmpty ? nil : (dryRun.steps, dryRun.objectsTouched, dryRun.stepRecords),
            elapsed: elapsed)
    }

    private func report(
        _ info: StoreInfo, store: String, schema: Schema, after: [String: Int],
        record: (steps: [String], objectsTouched: Int, stepRecords: [MigrationStepRecord])?, elapsed: Duration
    ) throws {
        var entities: [EntityCounts] = []
        var matched: Set<String> = []
        for entity in schema.entities {
            let origin = info.schema.entity(named: entity.name) != nil ? entity.name : entity.originalName
            let before = origin.flatMap { info.objectCounts[$0] }
            if before != nil, let origin { matched.insert(origin) }
            entities.append(EntityCounts(entity: entity.name, before: before, after: after[entity.name]))
        }
        for entity in info.schema.entities where !matched.contains(entity.name) {
            entities.append(EntityCounts(entity: entity.name, before: info.objectCounts[entity.name], after: nil))
        }
        let report = Report(
            store: store, fromVersion: info.version, toVersion: schema.version, entities: entities,
            steps: record?.steps ?? [],
            duration: elapsed.inSeconds,
            objectsTouched: record?.objectsTouched ?? 0, stepRecords: record?.stepRecords ?? [],
            peakMemoryBytes: Files.peakResidentMemory())
        if output.json {
            try Terminal.json(report)
        } else {
            print(report)
        }
    }

    private func print(_ report: Report) {
        let how = StoreAddress.isPostgres(report.store) ? "in a transaction rolled back" : "on a copy"
        Terminal.line(
            "Rehearsal of \(report.store): version \(report.fromVersion) → \(report.toVersion), \(how) (the store is untouched)"
        )
        Terminal.line()
        Terminal.line("Objects before → after:")
        for entity in report.entities {
            let before = entity.before.map(String.init) ?? "new"
            let after = entity.after.map(String.init) ?? "removed"
            Terminal.line("  \(entity.entity): \(before) → \(after)")
        }
        if !report.steps.isEmpty {
            Terminal.line()
            Terminal.line("Steps:")
            for step in report.steps { Terminal.line("  \(step)") }
        }
        Terminal.line()
        Terminal.line("Time:        \(Format.duration(report.duration)) (\(Format.changes(report.stepRecords)))")
        Terminal.line("Peak memory: \(Format.bytes(report.peakMemoryBytes))")
    }
}
