import Foundation

/// What a migration would do, found by running it inside a transaction that is rolled back.
///
/// The `molt plan` command shows it: the steps, every statement that changes the store, and how many rows the
/// run would write.
package struct MigrationDryRun: Sendable, Hashable {
    /// The store's version.
    package var fromVersion: Int
    /// The version the migration leads to.
    package var toVersion: Int
    /// A line per step, as the store's history would record it.
    package var steps: [String]
    /// Every statement that changes the store, in order, with its arguments inlined.
    package var statements: [String]
    /// The objects the run would insert, update and delete.
    package var objectsTouched: Int
    /// What each step would do.
    package var stepRecords: [MigrationStepRecord]
    /// The number of objects of each entity of the target schema after the run, before its rollback.
    package var objectCounts: [String: Int] = [:]
}

extension Store {
    /// Runs the migration of the store at `url` to `schema` in a transaction that is rolled back, recording the
    /// statements it executes.
    ///
    /// The rollback leaves the data as it was, but SQLite may still write to the file and its journal while the
    /// transaction runs: call it on a copy of the store when the original must stay byte for byte the same, as
    /// `molt plan` does.
    ///
    /// ```swift
    /// let dryRun = try Store.dryRunMigration(at: copyURL, to: v6)
    /// dryRun.statements.forEach { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - url: An existing store file (a copy, preferably).
    ///   - schema: The schema to migrate to.
    ///   - plan: The migration plan; without one the migration is inferred from the stored schema.
    /// - Returns: The steps and statements; no step and no statement when the store is already at `schema`.
    /// - Throws: The ``MoltError`` the real migration would throw: ``MoltError/Code/storeIsNewer``,
    ///   ``MoltError/Code/migrationNotInferable``, ``MoltError/Code/validationFailed``…
    package static func dryRunMigration(
        at url: URL, to schema: Schema, plan: MigrationPlan? = nil
    ) throws -> MigrationDryRun {
        try dryRunMigration(at: .file(url), to: schema, plan: plan)
    }

    /// Runs the migration of the store at `location` in a transaction that is rolled back, recording the
    /// statements it executes: on PostgreSQL (transactional DDL) the database itself is left as it was.
    package static func dryRunMigration(
        at location: StoreLocation, to schema: Schema, plan: MigrationPlan? = nil
    ) throws -> MigrationDryRun {
        try schema.validate()
        let stored = try inspect(at: location, countingObjects: false).schema
        var options = Options()
        options.plan = plan
        guard
            case .migrate(let from) = try decision(
                for: StoreMetadata(
                    formatVersion: StoreMetadata.currentFormatVersion, schema: stored, schemaHash: stored.contentHash),
                schema: schema, options: options)
        else {
            return MigrationDryRun(
                fromVersion: stored.version, toVersion: stored.version, steps: [], statements: [], objectsTouched: 0,
                stepRecords: [])
        }
        let database = try location.engine.open(options: options)
        defer { try? database.close() }
        let recorder = StatementRecorder()
        var result: MigrationDryRun?
        try database.exclusive { db in
            db.statementObserver = { sql, changesDatabase in if changesDatabase { recorder.record(sql) } }
            defer { db.statementObserver = nil }
            let record = try Store.migrate(db, from: from, to: schema, options: options)
            result = MigrationDryRun(
                fromVersion: from.version, toVersion: schema.version, steps: record.steps,
                statements: [], objectsTouched: record.objectsTouched, stepRecords: record.stepRecords)
            db.statementObserver = nil
            // An entity of a hierarchy counts its own objects in the hierarchy's table (a sub-entity has no table).
            let layout = StoreLayout.standard(schema, dialect: db.dialect)
            for entity in schema.entities {
                let own = layout.ownRowsCondition(entity.name).map { " WHERE \($0)" } ?? ""
                result?.objectCounts[entity.name] = Int(
                    try db.fetchInt("SELECT COUNT(*) FROM \(layout.table(entity.name))\(own)") ?? 0)
            }
            return false
        }
        guard var dryRun = result else {
            throw MoltError(
                .migrationFailed,
                "The dry run of the migration of \(location) ended without a result; nothing was written.")
        }
        dryRun.statements = recorder.statements
        return dryRun
    }
}

extension Store {
    /// Checks, without touching any file, that a store at `stored` can be migrated to `schema`: throws what
    /// opening it would throw (a newer store, a shipped version that changed, a step that cannot be inferred).
    ///
    /// ```swift
    /// try Store.checkMigration(from: try Store.inspect(at: url).schema, to: v6)
    /// ```
    ///
    /// - Returns: The number of steps the migration takes; 0 when the store is already at `schema`.
    /// - Throws: ``MoltError`` with the message `Store.open(at:schema:options:)` would give.
    @discardableResult
    package static func checkMigration(from stored: Schema, to schema: Schema, plan: MigrationPlan? = nil) throws -> Int
    {
        try schema.validate()
        var options = Options()
        options.plan = plan
        let metadata = StoreMetadata(
            formatVersion: StoreMetadata.currentFormatVersion, schema: stored, schemaHash: stored.contentHash)
        guard case .migrate(let from) = try decision(for: metadata, schema: schema, options: options) else { return 0 }
        return try (plan ?? MigrationPlan.inferred(from: from, to: schema)).path(from: from).count
    }

    /// The steps from `stored` to `schema`, one line each (`3 → 4 (inferred)`), without touching any file.
    ///
    /// - Throws: What ``checkMigration(from:to:plan:)`` throws.
    package static func plannedSteps(
        from stored: Schema, to schema: Schema, plan: MigrationPlan? = nil
    ) throws
        -> [String]
    {
        guard try checkMigration(from: stored, to: schema, plan: plan) > 0 else { return [] }
        return try (plan ?? MigrationPlan.inferred(from: stored, to: schema)).path(from: stored).map { step in
            "\(step.from.version) → \(step.to.version) (\(step.stage == nil ? "inferred" : "custom stage"))"
        }
    }
}

/// Collects the statements that change a store, skipping reads (`SELECT`, `PRAGMA`, `WITH … SELECT`).
/// The statements a dry run ran that change the database, as the engine reports them
/// (``SQLConnection/statementObserver`` says which statements may change it).
private final class StatementRecorder: Sendable {
    private let recorded = LockedValue<[String]>([])

    var statements: [String] { recorded.withLock { $0 } }

    func record(_ sql: String) { recorded.withLock { $0.append(sql.trimmingCharacters(in: .whitespacesAndNewlines)) } }
}
