import Foundation
import GRDB

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
    /// The file is opened read-only; nothing is written.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/storeNotFound``, ``MoltError/Code/notAMoltStore`` or
    ///   ``MoltError/Code/corruptStore``.
    public static func inspect(at url: URL) throws -> StoreInfo {
        try withReadOnlyConnection(at: url) { db in
            guard let metadata = try StoreMetadata.read(db) else { throw notAMoltStore(url) }
            var counts: [String: Int] = [:]
            for entity in metadata.schema.entities {
                counts[entity.name] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(SchemaSQL.quote(entity.name))") ?? 0
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

    /// Runs `body` on a read-only connection to an existing file, mapping SQLite's errors to ``MoltError``.
    static func withReadOnlyConnection<T>(at url: URL, _ body: (Database) throws -> T) throws -> T {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MoltError(.storeNotFound, "There is no store at \(url.path). Check the path.")
        }
        // A writable connection that refuses writes (`query_only`): as the last connection to a WAL store it
        // removes the -wal and -shm files it needed on close, which a read-only connection cannot; and it
        // rolls back the journal of a process that died mid-transaction (a killed migration), reading the
        // last committed state. A file that cannot be opened for writing is read read-only.
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA query_only = 1") }
        do {
            let queue: DatabaseQueue
            do {
                queue = try DatabaseQueue(path: url.path, configuration: configuration)
            } catch let error as DatabaseError
                where [.SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM].contains(error.resultCode)
            {
                configuration.readonly = true
                queue = try DatabaseQueue(path: url.path, configuration: configuration)
            }
            defer { try? queue.close() }
            return try queue.read(body)
        } catch let error as DatabaseError {
            throw mapOpeningError(error, url: url)
        }
    }

    static func mapOpeningError(_ error: DatabaseError, url: URL) -> MoltError {
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return MoltError(
                .corruptStore,
                "The file at \(url.path) is not a readable Molt store: \(error.message ?? "\(error.resultCode)"). It is damaged or is not a database; restore it from a backup or choose another path. Nothing was written.",
                underlying: "\(error)")
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
            return MoltError(
                .ioError, "The store at \(url.path) cannot be opened: \(error.message ?? "\(error.resultCode)"). Check the path and its permissions.",
                underlying: "\(error)")
        case .SQLITE_FULL:
            return MoltError(
                .ioError, "The disk is full while writing \(url.path); nothing was committed. Free some space and open the store again.",
                underlying: "\(error)")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return MoltError(
                .ioError,
                "The store at \(url.path) stayed locked by another process (one migrating it takes the lock for the whole run); nothing was written. Open it again later, or raise `Store.Options.migrationWaitTimeout`.",
                underlying: "\(error)")
        default:
            return MoltError(
                .migrationFailed, "SQLite failed on \(url.path): \(error.message ?? "\(error.resultCode)").", underlying: "\(error)")
        }
    }
}
