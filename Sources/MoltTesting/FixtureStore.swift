import Foundation

/// A store created at a given schema version and filled with fixtures: the starting point of a migration
/// test (Room's `MigrationTestHelper.createDatabase`).
///
/// ```swift
/// let v1 = try snapshots.schema(version: 1)
/// let start = try FixtureStore.create(at: url, schema: v1, fixtures: [
///     Fixture("UserMemo", "groceries", ["objectID": .uuid(UUID()), "memoTitle": "Milk", "memoDate": .date(.now)]),
/// ])
/// print(start.object("groceries")!.id)
/// try start.close()
/// let migrated = try Store.open(at: url, schema: v6, options: .init().migrating(with: plan))
/// ```
///
/// ## Topics
/// ### Creating
/// - ``create(at:schema:fixtures:options:)``
/// - ``create(at:snapshot:fixtures:options:)``
/// ### Reading
/// - ``objects``
/// - ``object(_:)``
public struct FixtureStore: Sendable {
    /// The open store.
    public let store: Store
    /// Its file.
    public let url: URL
    /// The schema it was created at.
    public let schema: Schema
    /// The fixtures as stored, in the order they were given.
    public let objects: [FixtureObject]

    /// The stored fixture with this key.
    public func object(_ key: String) -> FixtureObject? { objects.first { $0.key == key } }

    /// Closes the store, so that it can be opened again with a newer schema.
    ///
    /// - Throws: `MoltError` when SQLite cannot close it.
    public func close() throws { try store.close() }

    /// Creates a store at `schema`'s version and inserts the fixtures, then links them, in one transaction.
    ///
    /// ```swift
    /// let start = try FixtureStore.create(at: url, schema: v0, fixtures: [
    ///     Fixture("Folder", "home", ["name": "Home"]),
    ///     Fixture("Note", "milk", ["text": "Milk"], links: ["folder": "home"]),
    /// ])
    /// ```
    ///
    /// - Parameters:
    ///   - url: The store's file; a new one is created.
    ///   - schema: The version to create, usually a recorded snapshot (``SchemaSnapshots/schema(version:)``).
    ///   - fixtures: The objects to insert.
    ///   - options: How to open the store. Defaults to a rollback journal: one file, easy to copy.
    /// - Returns: The open store and the fixtures as stored.
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/invalidFixture`` naming the version,
    ///   the fixture, the entity and the attribute when a fixture does not fit the schema; or
    ///   ``MigrationTestError/Code/migrationFailed`` when the store cannot be created.
    public static func create(
        at url: URL, schema: Schema, fixtures: [Fixture], options: Store.Options = FixtureStore.defaultOptions
    ) throws -> FixtureStore {
        let store: Store
        do {
            store = try Store.open(at: url, schema: schema, options: options)
        } catch let error as MoltError {
            throw MigrationTestError(
                .migrationFailed, "Cannot create a store at version \(schema.version): \(error.message)",
                version: schema.version, entity: error.entity, attribute: error.property, underlying: error)
        }
        do {
            let objects = try store.write { objects in try insert(fixtures, into: objects, schema: schema) }
            return FixtureStore(store: store, url: url, schema: schema, objects: objects)
        } catch {
            try? store.close()
            throw error
        }
    }

    /// Creates a store at the version recorded in a snapshot file, and inserts the fixtures.
    ///
    /// ```swift
    /// let start = try FixtureStore.create(at: url, snapshot: snapshotsFolder.appendingPathComponent("2.json"), fixtures: [
    ///     Fixture("Note", "milk", ["text": "Milk"]),
    /// ])
    /// ```
    ///
    /// - Parameters:
    ///   - url: The store's file; a new one is created.
    ///   - snapshot: A file written by `Schema/snapshotJSON()` or ``SchemaSnapshots/record(_:overwriting:)``.
    ///   - fixtures: The objects to insert.
    ///   - options: How to open the store. Defaults to a rollback journal.
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/invalidSnapshot`` when the file cannot
    ///   be read, or the errors of ``create(at:schema:fixtures:options:)``.
    public static func create(
        at url: URL, snapshot: URL, fixtures: [Fixture], options: Store.Options = FixtureStore.defaultOptions
    ) throws -> FixtureStore {
        let schema: Schema
        do {
            schema = try Schema(snapshotJSON: try Data(contentsOf: snapshot))
        } catch let error as MoltError {
            throw MigrationTestError(
                .invalidSnapshot, "The snapshot \(snapshot.path) cannot be read: \(error.message)",
                entity: error.entity, attribute: error.property, underlying: error)
        } catch {
            throw MigrationTestError(
                .invalidSnapshot, "The snapshot \(snapshot.path) cannot be read: \(error.localizedDescription)")
        }
        return try create(at: url, schema: schema, fixtures: fixtures, options: options)
    }

    /// The default options of test stores: a rollback journal, so a store is one file.
    public static var defaultOptions: Store.Options {
        var options = Store.Options()
        options.journalMode = .rollback
        return options
    }

    private static func insert(_ fixtures: [Fixture], into objects: Objects, schema: Schema) throws -> [FixtureObject] {
        var insertion = FixtureInsertion(objects: objects, schema: schema)
        for fixture in fixtures { try insertion.insert(fixture) }
        for fixture in fixtures { try insertion.link(fixture) }
        return try insertion.objects(of: fixtures)
    }
}
