import Foundation

/// A Molt store: a database that holds objects of a ``Schema`` and records its own version, schema and
/// migration history.
///
/// Opening a store is the one moment a migration runs: ``open(at:schema:options:)-7fe3v`` creates a new file,
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
/// In an `async` function, the same calls take `await` and run off Swift's cooperative thread pool:
///
/// ```swift
/// let store = try await Store.open(at: url, schema: v6, options: .init().migrating(with: plan))
/// let count = try await store.read { objects in try objects.count("UserMemo") }
/// ```
///
/// ## Topics
/// ### Opening
/// - ``open(at:schema:options:)-7fe3v``
/// - ``openReadOnly(at:waitingUpTo:)-(URL,_)``
/// - ``outcome``
/// - ``OpeningOutcome``
/// - ``inMemory(schema:)``
/// - ``Options``
/// ### Reading a file without opening it
/// - ``version(at:)-(URL)``
/// - ``inspect(at:countingObjects:)-(URL,_)``
/// ### Objects
/// - ``read(_:)-15rin``
/// - ``write(_:)-6ejup``
/// ### Observing
/// - ``observe(_:)``
/// - ``otherConnectionsLatency``
/// - ``noticeOtherConnections()``
/// ### Maintenance
/// - ``history()``
/// - ``backup(to:)``
/// - ``verify()``
/// - ``compact()``
public final class Store: Sendable {
    /// The schema the store is at.
    public let schema: Schema
    /// The store's file, or nil for an in-memory store or a database that is not a file.
    public let url: URL?
    /// Whether the store was opened read-only: writes throw ``MoltError/Code/readOnly``.
    public let isReadOnly: Bool
    /// What opening the store did: created it, opened it, migrated it, or found it migrated by another process.
    public let outcome: OpeningOutcome
    let database: any SQLDatabase
    let layout: StoreLayout
    /// For a read-only store: the schema hash it was opened at, checked by every read.
    let recordedHash: String?
    /// The run this opening recorded in the history, when it migrated the store: what `molt migrate` reports,
    /// without reading the history back.
    package let migrationRun: MigrationRecord?
    /// The store's observations, told of each commit.
    let changes = StoreChanges()

    init(
        schema: Schema, url: URL?, database: any SQLDatabase, isReadOnly: Bool = false,
        outcome: OpeningOutcome = .opened,
        recordedHash: String? = nil, migrationRun: MigrationRecord? = nil
    ) {
        self.schema = schema
        self.url = url
        self.database = database
        self.isReadOnly = isReadOnly
        self.outcome = outcome
        self.recordedHash = recordedHash
        self.migrationRun = migrationRun
        self.layout = .standard(schema, dialect: database.dialect)
    }

    /// What ``Store/open(at:schema:options:)-7fe3v`` did to the store before it returned.
    ///
    /// ```swift
    /// let store = try Store.open(at: url, schema: v6, options: .init().migrating(with: plan))
    /// if case .migratedByAnotherProcess(let from) = store.outcome { print("another process migrated it from \(from)") }
    /// ```
    public enum OpeningOutcome: Sendable, Hashable {
        /// The file was missing or empty: a store was created at the schema's version.
        case created
        /// The store was already at the schema: nothing was written.
        case opened
        /// The store was migrated from this version by this opening.
        case migrated(fromVersion: Int)
        /// The store was at this older version when this opening looked, and another thread or process migrated it
        /// while this one waited for the lock: nothing was written by this opening.
        case migratedByAnotherProcess(fromVersion: Int)
        /// The store's data was deleted and recreated (``Options/resettingStoreIfMigrationNeeded()``).
        case reset
    }

    /// Creates an empty store in memory, for tests and previews.
    ///
    /// - Throws: ``MoltError`` when the schema is invalid.
    public static func inMemory(schema: Schema) throws -> Store {
        try schema.validate()
        let database = try SQLFiles.inMemory()
        try database.exclusive { db in
            try create(schema, in: db)
            return true
        }
        return Store(schema: schema, url: nil, database: database)
    }

    /// Reads objects. Reads see a consistent state of the store.
    ///
    /// - Parameter body: Reads through ``Objects``; what it returns is returned.
    /// - Throws: What `body` throws, or a ``MoltError``.
    @discardableResult
    public func read<T>(_ body: (Objects) throws -> T) throws -> T {
        let (schema, layout) = (self.schema, self.layout)
        return try database.read { db in
            try checkRecordedSchema(db)
            return try body(Objects(db: db, schema: schema, layout: layout, isWritable: false))
        }
    }

    /// For a read-only store, throws when another process changed the store's schema since it was opened.
    private func checkRecordedSchema(_ db: any SQLConnection) throws {
        guard let recordedHash else { return }
        let recorded = try StoreMetadata.values(of: ["schemaHash", "schemaVersion"], in: db)
        guard recorded["schemaHash"] != recordedHash else { return }
        throw MoltError(
            .storeIsNewer,
            "The store at \(database.location) was migrated to version \(recorded["schemaVersion"] ?? "?") by another process after it was opened read-only at version \(schema.version). Open it again to read it."
        )
    }

    /// Writes objects in one transaction: everything `body` does is committed together, or not at all when it
    /// throws.
    ///
    /// - Parameter body: Writes through ``Objects``; what it returns is returned.
    /// - Throws: What `body` throws, or a ``MoltError``.
    @discardableResult
    public func write<T>(_ body: (Objects) throws -> T) throws -> T {
        try requireWritable()
        let (schema, layout) = (self.schema, self.layout)
        let access = writeAccess
        let result = try database.write { db in
            let result = try body(Objects(db: db, schema: schema, layout: layout, isWritable: true, access: access))
            try Self.finishWrite(access, schema: schema, layout: layout, on: db)
            return result
        }
        changes.didCommit(access)
        return result
    }

    /// Reads objects without blocking the caller or a thread of Swift's cooperative pool: the body runs on a
    /// thread of the store's own (SQLite: its serial queue; PostgreSQL: one of its pool's threads, reads running
    /// concurrently on sessions of their own), and the task suspends until it is done.
    ///
    /// ```swift
    /// let notes = try await store.read { objects in
    ///     try objects.fetch(Note.self, where: \.count > 3)
    /// }
    /// ```
    ///
    /// - Parameter body: Reads through ``Objects``; what it returns (a `Sendable` value) is returned.
    /// - Throws: What `body` throws, or a ``MoltError``.
    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (Objects) throws -> T) async throws -> T {
        let (schema, layout) = (self.schema, self.layout)
        return try await database.read { db in
            try self.checkRecordedSchema(db)
            return try body(Objects(db: db, schema: schema, layout: layout, isWritable: false))
        }
    }

    /// Writes objects in one transaction without blocking the caller or a thread of Swift's cooperative pool.
    ///
    /// ```swift
    /// let saved = try await store.write { objects in
    ///     try objects.insert(Note(title: "Milk"))
    /// }
    /// ```
    ///
    /// - Parameter body: Writes through ``Objects``; what it returns (a `Sendable` value) is returned.
    /// - Throws: What `body` throws, or a ``MoltError``.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Objects) throws -> T) async throws -> T {
        try requireWritable()
        let (schema, layout) = (self.schema, self.layout)
        let access = writeAccess
        let result = try await database.write { db in
            let result = try body(Objects(db: db, schema: schema, layout: layout, isWritable: true, access: access))
            try Self.finishWrite(access, schema: schema, layout: layout, on: db)
            return result
        }
        changes.didCommit(access)
        return result
    }

    /// Where a write transaction records the tables it writes: for observations, for other servers'
    /// observations, and for the check of required relationships; nil when nothing needs it.
    private var writeAccess: TableAccess? {
        changes.isActive || database.announcesCommits || schema.hasRequiredLinks ? TableAccess() : nil
    }

    /// Before a write transaction commits: refuses it when it leaves a required relationship empty in a table it
    /// wrote (an object inserted without its link, a link unset, a destination deleted), then announces what it
    /// wrote to other servers' observations (PostgreSQL). Only the objects the writes named are checked (those
    /// inserted, unlinked or saved), so a small write costs a lookup by identifier; a write that named none (a
    /// destination deleted under nullify, an import's own SQL) has its table scanned. A to-many relationship's
    /// minimum count is held only by the objects the transaction inserted and those it removed links of, as Core
    /// Data validates only the objects a save changes: an object already short (adopted so) can be updated.
    private static func finishWrite(
        _ access: TableAccess?, schema: Schema, layout: StoreLayout, on db: any SQLConnection
    ) throws {
        guard let access else { return }
        let written = access.written
        guard !written.isEmpty else { return }
        if schema.hasRequiredLinks,
            let empty = try EmptyRequiredLink.find(
                in: db, schema: schema, layout: layout,
                scope: { entity, relationship in access.requiredLinkScope(entity, relationship, layout: layout) }
            ).first
        {
            throw empty.writeRefusal
        }
        try db.announceCommit(of: written)
    }

    private func requireWritable() throws {
        guard !isReadOnly else {
            throw MoltError(
                .readOnly,
                "This store was opened read-only (\(database.location)); nothing was written. Open it with `Store.open(at:schema:options:)` to write."
            )
        }
    }

    /// The migration runs recorded in the store, oldest first.
    public func history() throws -> [MigrationRecord] {
        try database.read { try StoreMetadata.history($0) }
    }

    deinit { changes.close() }

    /// Closes the store's connection and ends its observations (each ends without an error). Using the store
    /// afterwards throws.
    public func close() throws {
        changes.close()
        try database.close()
    }

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
        try requireWritable()
        try database.compact()
    }
}
