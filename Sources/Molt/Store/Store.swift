import Foundation
import GRDB

/// A Molt store: an SQLite file that holds objects of a ``Schema`` and records its own version, schema and
/// migration history.
///
/// Opening a store is the one moment a migration runs: ``open(at:schema:options:)`` creates a new file,
/// opens a current one, or brings an older one to `schema`'s version before it returns. Other threads and
/// processes that open the same file meanwhile wait, then open the result.
///
/// ```swift
/// let store = try Store.open(at: url, schema: v6)
/// try store.write { objects in
///     try objects.insert("UserMemo", ["title": "Groceries", "favorite": true])
/// }
/// let favorites = try store.read { objects in
///     try objects.fetch("UserMemo", where: .equal("favorite", true))
/// }
/// ```
///
/// ## Topics
/// ### Opening
/// - ``open(at:schema:options:)``
/// - ``inMemory(schema:)``
/// - ``Options``
/// ### Reading a file without opening it
/// - ``version(at:)``
/// - ``inspect(at:)``
/// ### Objects
/// - ``read(_:)``
/// - ``write(_:)``
public final class Store: Sendable {
    /// The schema the store is at.
    public let schema: Schema
    /// The store's file, or nil for an in-memory store.
    public let url: URL?
    let queue: DatabaseQueue
    let layout: StoreLayout

    init(schema: Schema, url: URL?, queue: DatabaseQueue) {
        self.schema = schema
        self.url = url
        self.queue = queue
        self.layout = .standard(schema)
    }

    /// Creates an empty store in memory, for tests and previews.
    ///
    /// - Throws: ``MoltError`` when the schema is invalid.
    public static func inMemory(schema: Schema) throws -> Store {
        try schema.validate()
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        let queue = try DatabaseQueue(configuration: configuration)
        try queue.write { db in
            try StoreMetadata.create(db)
            for statement in SchemaSQL.createStatements(schema) { try db.execute(sql: statement) }
            try StoreMetadata.write(schema, in: db)
        }
        return Store(schema: schema, url: nil, queue: queue)
    }

    /// Reads objects. Reads see a consistent state of the store.
    ///
    /// - Parameter body: Reads through ``Objects``; what it returns is returned.
    /// - Throws: What `body` throws, or a ``MoltError``.
    @discardableResult
    public func read<T>(_ body: (Objects) throws -> T) throws -> T {
        try Store.mappingErrors { try queue.read { db in try body(Objects(db: db, schema: schema, layout: layout, isWritable: false)) } }
    }

    /// Writes objects in one transaction: everything `body` does is committed together, or not at all when it
    /// throws.
    ///
    /// - Parameter body: Writes through ``Objects``; what it returns is returned.
    /// - Throws: What `body` throws, or a ``MoltError``.
    @discardableResult
    public func write<T>(_ body: (Objects) throws -> T) throws -> T {
        try Store.mappingErrors { try queue.write { db in try body(Objects(db: db, schema: schema, layout: layout, isWritable: true)) } }
    }

    /// The migration runs recorded in the store, oldest first.
    public func history() throws -> [MigrationRecord] {
        try queue.read { try StoreMetadata.history($0) }
    }

    /// Closes the store's connection. Using the store afterwards throws.
    public func close() throws {
        try queue.close()
    }

    /// Maps SQLite's errors to ``MoltError`` with a sentence a developer can act on.
    static func mappingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_CONSTRAINT:
                throw MoltError(.constraintViolation, "A constraint was violated: \(error.message ?? "unknown").", underlying: "\(error)")
            case .SQLITE_FULL:
                throw MoltError(.ioError, "The disk is full; the transaction was rolled back. Free some space and try again.", underlying: "\(error)")
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                throw MoltError(.corruptStore, "The store is damaged: \(error.message ?? "unknown"). Restore it from a backup.", underlying: "\(error)")
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                throw MoltError(
                    .ioError, "The store is locked by another connection or process (\(error.message ?? "busy")); nothing was written. Try again once it is done.",
                    underlying: "\(error)")
            default:
                throw MoltError(.ioError, "SQLite failed: \(error.message ?? "\(error.resultCode)").", underlying: "\(error)")
            }
        }
    }
}

extension Store {
    /// Rebuilds the store file to reclaim the space that migrations and deletions freed (SQLite's `VACUUM`).
    ///
    /// A table rebuild can leave the file up to twice its size; a migration with
    /// ``Options/SecureDelete-swift.enum/fast`` can leave old values in free pages. This is the explicit,
    /// deferred clean-up step for both, to run when the app is idle: it takes time proportional to the store's
    /// size and blocks other writers meanwhile.
    ///
    /// ```swift
    /// try store.compact()
    /// ```
    public func compact() throws {
        try Store.mappingErrors { try queue.vacuum() }
    }
}
