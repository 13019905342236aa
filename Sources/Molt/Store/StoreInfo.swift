import Foundation

/// What a store file says about itself, read without migrating it or needing the app's schema.
///
/// ```swift
/// let info = try Store.inspect(at: url)
/// print(info.version, info.schema.entities.map(\.name), info.objectCounts)
/// ```
public struct StoreInfo: Sendable {
    /// The store's file.
    public var url: URL
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

    /// The schema version the store is at.
    public var version: Int { schema.version }
}

extension Store {
    /// Reads a store's version, schema, object counts and migration history without migrating it.
    ///
    /// The file is opened for reading only; nothing is written.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/storeNotFound``, ``MoltError/Code/notAMoltStore`` or
    ///   ``MoltError/Code/corruptStore``.
    public static func inspect(at url: URL) throws -> StoreInfo {
        try withReadOnlyConnection(at: url) { db in
            guard let metadata = try StoreMetadata.read(db) else { throw notAMoltStore(url) }
            var counts: [String: Int] = [:]
            for entity in metadata.schema.entities {
                counts[entity.name] = Int(try db.fetchInt("SELECT COUNT(*) FROM \(db.dialect.quote(entity.name))") ?? 0)
            }
            return StoreInfo(
                url: url, formatVersion: metadata.formatVersion, schema: metadata.schema,
                schemaHash: metadata.schemaHash, objectCounts: counts, history: try StoreMetadata.history(db))
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
        try withReadOnlyConnection(at: url) { db in
            guard let metadata = try StoreMetadata.read(db) else { throw notAMoltStore(url) }
            return metadata.schema.version
        }
    }

    static func notAMoltStore(_ url: URL) -> MoltError {
        MoltError(
            .notAMoltStore,
            "The file at \(url.path) is an SQLite database but not a Molt store (it has no \(StoreMetadata.table) table). Choose another path, or import its data with `molt import`; nothing was written.")
    }

    /// Runs `body` on a connection that reads an existing file and writes nothing to it.
    static func withReadOnlyConnection<T>(at url: URL, _ body: (any SQLConnection) throws -> T) throws -> T {
        let database = try openForReading(url)
        defer { try? database.close() }
        return try database.inspect(body)
    }

    /// Opens an existing file for reading only.
    static func openForReading(_ url: URL) throws -> SQLiteDatabase {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MoltError(.storeNotFound, "There is no store at \(url.path). Check the path.")
        }
        // A writable connection that refuses writes (`query_only`): as the last connection to a WAL store it
        // removes the -wal and -shm files it needed on close, which a read-only connection cannot; and it
        // rolls back the journal of a process that died mid-transaction (a killed migration), reading the
        // last committed state. A file that cannot be opened for writing is read read-only.
        var settings = SQLiteDatabase.Settings()
        settings.busyTimeout = 10
        settings.queryOnly = true
        do {
            return try SQLiteDatabase.open(path: url.path, settings: settings)
        } catch let error as MoltError where error.code == .ioError || error.code == .readOnly {
            settings.readOnly = true
            return try SQLiteDatabase.open(path: url.path, settings: settings)
        }
    }
}
