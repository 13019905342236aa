import Foundation

/// Where a store lives: a file (SQLite), or — with the `MoltPostgres` product — a schema of a PostgreSQL
/// database.
///
/// Every way to open or inspect a store takes a location; the `URL` forms are shorthands for ``file(_:)``.
///
/// ```swift
/// let store = try Store.open(at: .file(url), schema: v6)      // the same as Store.open(at: url, schema: v6)
/// ```
public struct StoreLocation: Sendable, CustomStringConvertible {
    /// The store's file, for a store in a file.
    public let url: URL?
    /// Where the store is, for messages: a path, or a database URL without its password.
    public let description: String
    package let engine: any StoreEngine

    package init(url: URL?, description: String, engine: any StoreEngine) {
        self.url = url
        self.description = description
        self.engine = engine
    }

    /// A store in an SQLite file.
    public static func file(_ url: URL) -> StoreLocation {
        StoreLocation(url: url, description: url.path, engine: FileEngine(url: url))
    }

    /// The URL schemes that name a PostgreSQL database (`postgres://`, `postgresql://`): the one rule both
    /// MoltPostgres and the `molt` CLI (built with or without PostgreSQL) recognise such a URL by.
    package static let postgresSchemes: Set<String> = ["postgres", "postgresql"]

    /// Whether `text` is a PostgreSQL URL rather than a path.
    package static func namesPostgres(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return false }
        return postgresSchemes.contains(text[..<colon].lowercased())
    }
}

/// How an engine opens a store's database: the seam between ``Store``'s opening rules and a storage engine.
package protocol StoreEngine: Sendable {
    /// Opens the database for a store's work (creating what the engine needs to reach it), writing nothing to
    /// the store itself.
    func open(options: Store.Options) throws -> any SQLDatabase
    /// Opens the database to read it only: nothing is written, ever.
    func openForReading() throws -> any SQLDatabase
    /// ``openForReading()``, waiting up to `timeout` seconds for a writer's lock where the engine waits.
    func openForReading(waitingUpTo timeout: TimeInterval) throws -> any SQLDatabase
}

extension StoreEngine {
    package func openForReading(waitingUpTo timeout: TimeInterval) throws -> any SQLDatabase { try openForReading() }
}

/// Store files, through ``SQLFiles``.
struct FileEngine: StoreEngine {
    let url: URL

    func open(options: Store.Options) throws -> any SQLDatabase {
        try SQLFiles.open(
            path: url.path, busyTimeout: options.migrationWaitTimeout, fastSecureDelete: options.secureDelete == .fast)
    }

    func openForReading() throws -> any SQLDatabase {
        try openForReading(waitingUpTo: Store.Options().migrationWaitTimeout)
    }

    /// A read-only connection that never writes, not even a journal recovery or a `-wal`/`-shm` pair left behind;
    /// it waits for a migrating writer as long as a writable opener would.
    func openForReading(waitingUpTo timeout: TimeInterval) throws -> any SQLDatabase {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw MoltError(.storeNotFound, "There is no store at \(url.path). Check the path.")
        }
        if isDirectory.boolValue {
            throw MoltError(.storeNotFound, "\(url.path) is a folder, not a store. Give the path of the store's file.")
        }
        return try SQLFiles.openForReading(path: url.path, busyTimeout: timeout)
    }
}
