import Foundation

extension Store {
    /// Opens an existing store to read its objects, at the schema recorded in it, without ever writing to it or
    /// migrating it — Realm's read-only mode.
    ///
    /// Nothing is written: not the store, not a journal recovery, not a `-wal` or `-shm` file left beside it. A
    /// store another process is migrating is waited for, as ``open(at:schema:options:)-7fe3v`` waits. A
    /// store that a process left mid-write (a rollback journal, or a write-ahead log without its index) is refused
    /// with ``MoltError/Code/needsRecovery``: opening it for writing recovers it.
    ///
    /// ```swift
    /// let store = try Store.openReadOnly(at: url)
    /// defer { try? store.close() }
    /// let count = try store.read { objects in try objects.count("UserMemo") }
    /// ```
    ///
    /// Each ``read(_:)-15rin`` checks, in its own transaction, that the store still has the schema it was opened
    /// with, so that objects are never read through another version's schema.
    ///
    /// - Parameters:
    ///   - url: The store's file.
    ///   - timeout: How long to wait for another process that is migrating the store, in seconds.
    /// - Returns: A store whose ``isReadOnly`` is true: writes throw ``MoltError/Code/readOnly``.
    /// - Throws: ``MoltError``: ``MoltError/Code/storeNotFound``, ``MoltError/Code/notAMoltStore``,
    ///   ``MoltError/Code/corruptStore``, ``MoltError/Code/needsRecovery``, ``MoltError/Code/locked``…
    public static func openReadOnly(
        at url: URL, waitingUpTo timeout: TimeInterval = Store.defaultWaitTimeout
    ) throws -> Store {
        try openReadOnly(at: .file(url), waitingUpTo: timeout)
    }

    /// Opens the store at `location` read-only, by the rules of ``openReadOnly(at:waitingUpTo:)-(URL,_)``.
    public static func openReadOnly(
        at location: StoreLocation, waitingUpTo timeout: TimeInterval = Store.defaultWaitTimeout
    ) throws -> Store {
        let database = try location.engine.openForReading(waitingUpTo: timeout)
        do {
            let metadata = try database.inspect { db in try requireMetadata(db, location) }
            return Store(
                schema: metadata.schema, url: location.url, database: database, isReadOnly: true,
                recordedHash: metadata.schemaHash)
        } catch {
            try? database.close()
            throw error
        }
    }

    /// Reads a store's metadata and objects in one read-only transaction, so that the version read and the data
    /// read belong together even while another process migrates the store: what the read commands of `molt` use.
    ///
    /// - Parameter body: Called with the recorded metadata, and the objects at the recorded schema.
    /// - Throws: What ``openReadOnly(at:waitingUpTo:)-(URL,_)`` throws, or what `body` throws.
    package static func reading<T>(
        at location: StoreLocation, waitingUpTo timeout: TimeInterval = Store.defaultWaitTimeout,
        _ body: (StoreSnapshot, Objects) throws -> T
    ) throws -> T {
        let database = try location.engine.openForReading(waitingUpTo: timeout)
        defer { try? database.close() }
        return try database.inspect { db in
            let metadata = try requireMetadata(db, location)
            let snapshot = StoreSnapshot(location: location, metadata: metadata, db: db)
            return try body(snapshot, Objects(db: db, schema: metadata.schema, isWritable: false))
        }
    }

    static func requireMetadata(_ db: any SQLConnection, _ location: StoreLocation) throws -> StoreMetadata {
        guard let metadata = try StoreMetadata.read(db) else { throw notAMoltStore(location) }
        return metadata
    }

    /// Copies the store to a new file with SQLite's online backup: a consistent copy of the last committed state,
    /// even while another process writes, in one file that opens as a store of its own.
    ///
    /// ```swift
    /// try store.backup(to: url.appendingPathExtension("backup"))
    /// ```
    ///
    /// - Parameter destination: Where to write the copy; nothing may be there yet.
    /// - Throws: ``MoltError/Code/ioError`` when `destination` exists or cannot be written,
    ///   ``MoltError/Code/diskFull``…; a failed backup leaves no file behind.
    public func backup(to destination: URL) throws {
        if FileManager.default.fileExists(atPath: destination.path) {
            throw MoltError(
                .ioError,
                "\(destination.path) already exists; the backup of the store was not written. Move that file away or choose another path."
            )
        }
        do {
            try database.backup(to: destination.path)
        } catch {
            SQLFiles.remove(destination.path)
            throw error
        }
    }

    /// Checks the whole store: SQLite's `integrity_check` of every page and index (on SQLite), every table's
    /// shape against the schema the store records (columns, types, constraints, references, indexes), every
    /// link, the two sides of every relationship and its inverse, every required relationship (which must point to an
    /// object), and Molt's metadata and history, which must decode. It reads the whole file: run it when a store
    /// is suspected of damage (`molt check STORE` does), not on every launch.
    ///
    /// Objects under a to-many relationship's minimum count are not damage: an adoption or a migration that raised
    /// the minimum kept them, as Core Data does (``Schema/ShortOwners``), and writes hold them to it once they
    /// change. They are returned, not thrown: ``StoreVerification/underMinimumCount``.
    ///
    /// ```swift
    /// do {
    ///     let verification = try store.verify()
    ///     for line in verification.underMinimumCount { print("kept:", line) }
    /// } catch MoltError.Code.corruptStore { restoreFromBackup() }
    /// ```
    ///
    /// - Returns: What the check found that is not damage: the objects under a minimum count.
    /// - Throws: ``MoltError/Code/corruptStore`` listing the first problems found, with the fix.
    @discardableResult
    public func verify() throws -> StoreVerification {
        // The page check is SQLite's (a server checks its own storage); the rest holds for every engine.
        var problems = try database.integrityProblems()
        var short: [String] = []
        if problems.isEmpty {
            let schema = self.schema
            (problems, short) = try database.read { db in
                _ = try StoreMetadata.read(db)
                _ = try StoreMetadata.history(db)
                // Tables whose shape another tool changed (a column retyped behind Molt's back).
                var found = try StoreValidator.shapeProblems(db, schema: schema).map { "the shape of " + $0 }
                found += try db.brokenLinks(around: nil).map { link in
                    "a link of table '\(link.table)'\(link.rowID.map { " (row \($0))" } ?? "") points to a missing row of '\(link.parent)'"
                }
                let layout = StoreLayout.standard(schema, dialect: db.dialect)
                var short: [String] = []
                for empty in try EmptyRequiredLink.find(in: db, schema: schema, layout: layout) {
                    if empty.relationship.kind == .toMany {
                        short.append("\(empty.problem): \(empty.phrase)")
                    } else {
                        found.append("\(empty.problem): \(empty.phrase)")
                    }
                }
                if let (_, disagreement) = try StoreValidator.disagreeingInverse(db, schema: schema, around: nil) {
                    found.append(disagreement)
                }
                return (found, short)
            }
        }
        guard !problems.isEmpty else { return StoreVerification(underMinimumCount: short) }
        let shown = problems.prefix(5).joined(separator: "; ")
        let more = problems.count > 5 ? " (and \(problems.count - 5) more)" : ""
        throw MoltError(
            .corruptStore,
            "The store at \(database.location) is damaged: \(shown)\(more). Restore it from a backup; `molt export` may still save the objects that read."
        )
    }
}

/// What a store records about itself, read inside a read-only transaction (``Store/reading(at:waitingUpTo:_:)``).
package struct StoreSnapshot {
    package let location: StoreLocation
    let metadata: StoreMetadata
    let db: any SQLConnection

    /// The schema the store is at.
    package var schema: Schema { metadata.schema }
    /// The recorded content hash of the schema.
    package var schemaHash: String { metadata.schemaHash }
    /// The version of Molt's file format.
    package var formatVersion: Int { metadata.formatVersion }
    /// The migration history, oldest first.
    package func history() throws -> [MigrationRecord] { try StoreMetadata.history(db) }

    /// The number of objects of each entity (of a hierarchy's entities, each one's own, not its sub-entities'): a
    /// scan of every table, so only when asked.
    package func objectCounts() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        let layout = StoreLayout.standard(schema, dialect: db.dialect)
        for entity in schema.entities {
            // An entity of a hierarchy counts the rows of its own objects in the hierarchy's table.
            let own = layout.ownRowsCondition(entity.name).map { " WHERE \($0)" } ?? ""
            counts[entity.name] = Int(try db.fetchInt("SELECT COUNT(*) FROM \(layout.table(entity.name))\(own)") ?? 0)
        }
        return counts
    }

    /// The whole ``StoreInfo``, counting objects only when `countingObjects`.
    package func info(countingObjects: Bool) throws -> StoreInfo {
        StoreInfo(
            location: location, formatVersion: formatVersion, schema: schema, schemaHash: schemaHash,
            objectCounts: countingObjects ? try objectCounts() : [:], history: try history(),
            adoption: try StoreMetadata.adoption(db))
    }
}
