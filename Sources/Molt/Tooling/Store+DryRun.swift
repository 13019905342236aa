import Foundation
import GRDB

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
    /// The rows the run would write (copies made by table rebuilds, values converted or set by stages).
    package var objectsTouched: Int
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
    package static func dryRunMigration(at url: URL, to schema: Schema, plan: MigrationPlan? = nil) throws -> MigrationDryRun {
        try schema.validate()
        let stored = try inspect(at: url).schema
        var options = Options()
        options.plan = plan
        guard case .migrate(let from) = try decision(
            for: StoreMetadata(formatVersion: StoreMetadata.currentFormatVersion, schema: stored, schemaHash: stored.contentHash),
            schema: schema, options: options)
        else {
            return MigrationDryRun(fromVersion: stored.version, toVersion: stored.version, steps: [], statements: [], objectsTouched: 0)
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: url.path, configuration: configuration)
        } catch let error as DatabaseError {
            throw mapOpeningError(error, url: url)
        }
        defer { try? queue.close() }
        let recorder = StatementRecorder()
        var result: MigrationDryRun?
        do {
            try queue.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    db.trace(options: .statement) { event in
                        if case .statement(let statement) = event { recorder.record(statement.expandedSQL) }
                    }
                    defer { db.trace(options: [], nil) }
                    let record = try Store.migrate(db, from: from, to: schema, options: options)
                    result = MigrationDryRun(
                        fromVersion: from.version, toVersion: schema.version, steps: record.steps,
                        statements: [], objectsTouched: record.objectsTouched)
                    return .rollback
                }
            }
        } catch let error as DatabaseError {
            throw mapOpeningError(error, url: url)
        }
        result!.statements = recorder.statements
        return result!
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
    package static func checkMigration(from stored: Schema, to schema: Schema, plan: MigrationPlan? = nil) throws -> Int {
        try schema.validate()
        var options = Options()
        options.plan = plan
        let metadata = StoreMetadata(formatVersion: StoreMetadata.currentFormatVersion, schema: stored, schemaHash: stored.contentHash)
        guard case .migrate(let from) = try decision(for: metadata, schema: schema, options: options) else { return 0 }
        return try (plan ?? MigrationPlan.inferred(from: from, to: schema)).path(from: from).count
    }
}

/// Collects the statements that change a store, skipping reads (`SELECT`, `PRAGMA`, `WITH … SELECT`).
private final class StatementRecorder: @unchecked Sendable {
    private(set) var statements: [String] = []

    func record(_ sql: String) {
        let text = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        let keyword = text.prefix { $0.isLetter }.uppercased()
        guard ["CREATE", "ALTER", "INSERT", "UPDATE", "DELETE", "DROP", "REPLACE"].contains(keyword) else { return }
        statements.append(text)
    }
}

extension Objects {
    /// Inserts an object under a given identifier instead of the next free one, so that an import keeps the
    /// identifiers of an export (and the relationships that name them).
    ///
    /// ```swift
    /// try objects.insert("UserMemo", ["title": "Milk"], keepingID: 42)
    /// ```
    ///
    /// - Throws: ``MoltError`` when a value does not fit, or another object already has that identifier.
    @discardableResult
    package func insert(_ entityName: String, _ values: [String: Value], keepingID id: Int64) throws -> DynamicObject {
        let object = try insert(entityName, values)
        let table = layout.table(entityName)
        let idColumn = SchemaSQL.quote(SchemaSQL.idColumn)
        try Store.mappingErrors {
            try db.execute(sql: "UPDATE \(table) SET \(idColumn) = ? WHERE \(idColumn) = ?", arguments: [id, object.id!])
        }
        return DynamicObject(entity: object.entity, id: id, values: object.attributeValues)
    }
}
