import Foundation

/// What a store file says about itself, read without migrating it or needing the app's schema.
///
/// ```swift
/// let info = try Store.inspect(at: url)
/// print(info.version, info.schema.entities.map(\.name), info.objectCounts)
/// ```
public struct StoreInfo: Sendable {
    /// Where the store is.
    public var location: StoreLocation
    /// The store's file, for a store in a file.
    public var url: URL { location.url ?? URL(fileURLWithPath: location.description) }
    /// The version of Molt's file format.
    public var formatVersion: Int
    /// The schema the store is at.
    public var schema: Schema
    /// The schema's content hash, as recorded.
    public var schemaHash: String
    /// The number of objects of each entity.
    public var objectCounts: [String: Int]
    /// Every migration run, oldest first.
    public var history: [MigrationRecord]
    /// Where the store came from, when it was adopted from another engine's store (``StoreAdoption``).
    public var adoption: AdoptionRecord?

    /// The schema version the store is at.
    public var version: Int { schema.version }
}

extension Store {
    /// Reads a store's version, schema, object counts and migration history without migrating it.
    ///
    /// The file is read in one read-only transaction, and nothing is written, with one exception: a journal or
    /// log left by a process that died while writing (a crash of the app) is recovered first, as any opening of
    /// the store would (``openReadOnly(at:waitingUpTo:)-(URL,_)`` refuses such a store instead).
    ///
    /// - Parameters:
    ///   - url: The store's file.
    ///   - countingObjects: Whether to count each entity's objects: a scan of every table, proportional to the
    ///     store's size. Without it ``StoreInfo/objectCounts`` is empty.
    /// - Throws: ``MoltError`` with code ``MoltError/Code/storeNotFound``, ``MoltError/Code/notAMoltStore``,
    ///   ``MoltError/Code/corruptStore`` or ``MoltError/Code/needsRecovery``.
    public static func inspect(at url: URL, countingObjects: Bool = true) throws -> StoreInfo {
        try inspect(at: .file(url), countingObjects: countingObjects)
    }

    /// Reads the version, schema, object counts and migration history of the store at `location` without
    /// migrating it, in one read-only transaction. Nothing is written, except that a journal or log left by a
    /// process that died while writing is recovered first, as any SQLite connection that writes would.
    public static func inspect(at location: StoreLocation, countingObjects: Bool = true) throws -> StoreInfo {
        try recoveringFirst(location) {
            try reading(at: location) { snapshot, _ in try snapshot.info(countingObjects: countingObjects) }
        }
    }

    /// Runs a read; when a dead writer's journal or log stands in its way, recovers it (telling `recovered` what
    /// was done) and reads again.
    package static func recoveringFirst<T>(
        _ location: StoreLocation, recovered: (String) -> Void = { _ in }, _ read: () throws -> T
    ) throws -> T {
        do {
            return try read()
        } catch MoltError.Code.needsRecovery {
            guard let url = location.url else {
                throw MoltError(.needsRecovery, "The store at \(location) needs recovery.")
            }
            if let done = try recover(at: url) { recovered(done) }
            return try read()
        }
    }

    /// Reads the schema version of the store at `url` without migrating it (Realm's `schemaVersionAtURL`).
    ///
    /// ```swift
    /// if try Store.version(at: url) < 6 { showMigrationScreen() }
    /// ```
    ///
    /// - Throws: ``MoltError`` when there is no store, or the file is not a Molt store.
    public static func version(at url: URL) throws -> Int {
        try version(at: .file(url))
    }

    /// Reads the schema version of the store at `location` without migrating it.
    public static func version(at location: StoreLocation) throws -> Int {
        try recoveringFirst(location) {
            try withReadOnlyConnection(at: location) { db in try requireMetadata(db, location).schema.version }
        }
    }

    static func notAMoltStore(_ location: StoreLocation) -> MoltError {
        MoltError(
            .notAMoltStore,
            location.url == nil
                ? "The database at \(location) is not a Molt store (it has no \(StoreMetadata.table) table). Choose another database or schema, or import its data with `molt import`; nothing was written."
                : "The file at \(location) is an SQLite database but not a Molt store (it has no \(StoreMetadata.table) table). Choose another path; if Core Data, SwiftData, GRDB or another app wrote it, adopt it (`molt adopt`, or `Store.Options.adopting(_:)` with MoltAdoption); nothing was written."
        )
    }

    /// The schema a store records and its content hash, read in one read-only transaction that writes nothing,
    /// without the history or object counts: what `molt migrate` and `molt import` look at before they open the
    /// store for writing.
    ///
    /// - Throws: What ``openReadOnly(at:waitingUpTo:)-(URL,_)`` throws.
    package static func recordedSchema(at location: StoreLocation) throws -> (schema: Schema, hash: String) {
        try withReadOnlyConnection(at: location) { db in
            let metadata = try requireMetadata(db, location)
            return (metadata.schema, metadata.schemaHash)
        }
    }

    /// Runs `body` on a connection that reads an existing store and writes nothing to it.
    static func withReadOnlyConnection<T>(
        at location: StoreLocation, _ body: (any SQLConnection) throws -> T
    ) throws -> T {
        let database = try location.engine.openForReading()
        defer { try? database.close() }
        return try database.inspect(body)
    }
}

extension StoreInfo {
    /// Whether the store is already at `schema` (``Schema/isRecorded(version:hash:)``): nothing to migrate.
    package func isAt(_ schema: Schema) -> Bool { schema.isRecorded(version: version, hash: schemaHash) }
}
