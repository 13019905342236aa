import Foundation

extension Store {
    /// Opens the store at `url` at `schema`'s version: creates it, opens it, or migrates it first.
    ///
    /// - A missing or empty file is created at `schema`'s version.
    /// - A store at the same version and the same schema is opened.
    /// - A store at the same version with another schema is refused with every difference listed: the model
    ///   changed without a version bump.
    /// - An older store is migrated along `options.plan`, or by inference without a plan, in one transaction,
    ///   validated against `schema` before it commits. Other threads and processes opening the same file wait.
    /// - A store newer than `schema` is refused; nothing is written.
    ///
    /// ```swift
    /// let store = try Store.open(at: url, schema: v6, options: .init().migrating(with: plan))
    /// ```
    ///
    /// - Parameters:
    ///   - url: The store's file.
    ///   - schema: The newest schema the app knows.
    ///   - options: Journal mode, development reset, plan, progress.
    /// - Throws: ``MoltError``: ``MoltError/Code/storeIsNewer``, ``MoltError/Code/schemaChangedWithoutVersionBump``,
    ///   ``MoltError/Code/migrationNotInferable``, ``MoltError/Code/validationFailed``,
    ///   ``MoltError/Code/notAMoltStore``, ``MoltError/Code/corruptStore``…, or the error a custom stage threw,
    ///   unchanged, so that the app can catch its own error types; in every case the store is left as it was.
    public static func open(at url: URL, schema: Schema, options: Options = Options()) throws -> Store {
        try open(at: .file(url), schema: schema, options: options)
    }

    /// Opens the store at `location` at `schema`'s version: creates it, opens it, or migrates it first, by the
    /// rules of ``open(at:schema:options:)-7fe3v``.
    ///
    /// ```swift
    /// let store = try Store.open(at: .file(url), schema: v6, options: .init().migrating(with: plan))
    /// ```
    public static func open(at location: StoreLocation, schema: Schema, options: Options = Options()) throws -> Store {
        try schema.validate()
        if let plan = options.plan, plan.newestVersion != schema.version {
            throw MoltError(
                .invalidPlan,
                "The migration plan ends at version \(plan.newestVersion), but the store is opened with schema version \(schema.version). List version \(schema.version) last in the plan."
            )
        }
        if let adoption = options.adoption {
            var rest = options
            rest.adoption = nil
            try adoption.adoptIfNeeded(at: location, schema: schema, options: rest)
        }
        let database = try location.engine.open(options: options)
        do {
            // An up-to-date store opens on three keys of its metadata, without decoding its recorded schema; any
            // other store's metadata is read whole in the same transaction. This first read writes nothing: a
            // foreign, damaged or newer file is reported without a byte written.
            let hash = schema.contentHash
            let read = try database.inspect { db in try StoreMetadata.opening(schema, hash: hash, in: db) }
            if read.upToDate {
                try database.finishOpening(journal: options.journal, isNew: false)
                return Store(schema: schema, url: location.url, database: database, outcome: .opened)
            }
            let current = read.metadata
            let first = try current.map { try decision(for: $0, schema: schema, options: options) }
            if case .open = first {
                try database.finishOpening(journal: options.journal, isNew: false)
                return Store(schema: schema, url: location.url, database: database, outcome: .opened)
            }
            var run: MigrationRecord?
            var outcome = try prepare(
                database, location: location, schema: schema, options: options, known: current, run: &run)
            if case .opened = outcome, case .migrate(let stored) = first {
                outcome = .migratedByAnotherProcess(fromVersion: stored.version)
            }
            try database.finishOpening(journal: options.journal, isNew: current == nil)
            return Store(schema: schema, url: location.url, database: database, outcome: outcome, migrationRun: run)
        } catch {
            try? database.close()
            throw error
        }
    }

    enum OpeningDecision {
        case create, open, reset, migrate(from: Schema)
    }

    static func decision(for metadata: StoreMetadata?, schema: Schema, options: Options) throws -> OpeningDecision {
        guard let metadata else { return .create }
        let stored = metadata.schema
        if stored.version > schema.version {
            throw MoltError(
                .storeIsNewer,
                "The store is at schema version \(stored.version), newer than this app's version \(schema.version): a newer version of the app wrote it. Nothing was written. Update the app, or open the store with a schema of version \(stored.version) or later."
            )
        }
        if stored.version == schema.version {
            if schema.isRecorded(version: stored.version, hash: metadata.schemaHash) { return .open }
            // A store recorded before Molt recorded the shapes of JSON values: the same schema.
            if SchemaDiff(from: stored, to: schema).onlyRecordsShapes { return .open }
            if options.resetsStoreIfMigrationNeeded { return .reset }
            let changes = SchemaDiff(from: stored, to: schema).changes.map { "- \($0)" }
            let list =
                changes.isEmpty ? "- (the recorded hash differs from the schema's)" : changes.joined(separator: "\n")
            throw MoltError(
                .schemaChangedWithoutVersionBump,
                "The schema of version \(schema.version) differs from the one this store was created with:\n\(list)\nA shipped version must not change: restore version \(schema.version) as it was and declare the change as version \(schema.version.advanced(by: 1)). During development, open with `options.resettingStoreIfMigrationNeeded()` to start over."
            )
        }
        return options.resetsStoreIfMigrationNeeded ? .reset : .migrate(from: stored)
    }

    /// Creates, resets or migrates the store, in one exclusive transaction that other openers wait for.
    /// - Parameters:
    ///   - known: The metadata the opening read before it waited for the lock, if any.
    ///   - run: Set to the run recorded in the history, when the store is migrated.
    private static func prepare(
        _ database: any SQLDatabase, location: StoreLocation, schema: Schema, options: Options, known: StoreMetadata?,
        run: inout MigrationRecord?
    ) throws -> OpeningOutcome {
        var outcome = OpeningOutcome.opened
        try database.exclusive { db in
            // Another thread or process may have done the work while this one waited for the lock.
            let metadata = try StoreMetadata.reread(db, known: known)
            switch try decision(for: metadata, schema: schema, options: options) {
            case .open:
                return true
            case .create:
                if try !db.tableNames().isEmpty { throw notAMoltStore(location) }
                try create(schema, in: db)
                outcome = .created
            case .reset:
                try dropEverything(in: db)
                try create(schema, in: db)
                outcome = .reset
            case .migrate(let stored):
                // The run appends to the history: a damaged one is refused before the first write, not found after.
                try StoreMetadata.checkHistory(db)
                let path = try migrationPath(db, from: stored, to: schema, options: options)
                if options.checksIntegrityBeforeMigrating {
                    try checkIntegrity(
                        db, location: location, version: stored.version,
                        tables: Migrator.tablesReadWhole(by: path, in: db))
                }
                // Before any stage creates objects: a created object must never get an old object's identifier.
                try db.keepIdentifiersIncreasing()
                let record = try migrate(db, path: path, from: stored, options: options)
                try StoreMetadata.write(schema, in: db)
                try StoreMetadata.append(record, in: db)
                run = record
                outcome = .migrated(fromVersion: stored.version)
            }
            return true
        }
        return outcome
    }

    /// The store checked inside the migration's transaction, before its first write: SQLite's `quick_check` of
    /// the pages of `tables` (every page when nil), then the links around them on every engine. Validation
    /// checks only the links a migration writes (the store was valid before it); this finds those broken behind
    /// Molt's back (a tool that wrote with references off) where the migration reads and rewrites, so that a
    /// damaged store is refused rather than migrated. A step that changes the schema only (adding or renaming
    /// a column) reads no row, and checks nothing: it stays as fast at a million objects as at ten.
    static func checkIntegrity(
        _ db: any SQLConnection, location: StoreLocation, version: Int, tables: Set<String>? = nil
    ) throws {
        if let tables, tables.isEmpty { return }
        let problems = try db.pageProblems(in: tables.map { $0.sorted() })
        if !problems.isEmpty {
            let shown = problems.prefix(3).joined(separator: "; ")
            throw MoltError(
                .corruptStore,
                "The store at \(location) is damaged (\(db.pageCheckName): \(shown)\(problems.count > 3 ? "; …" : "")), so it was not migrated; it is still at version \(version) and nothing was written. Restore it from a backup; `molt export` may still save the objects that read."
            )
        }
        let broken = try db.brokenLinks(around: tables)
        guard let first = broken.first else { return }
        throw MoltError(
            .corruptStore,
            "The store at \(location) has \(broken.count) broken link(s), written behind Molt's back with references off: \(first.phrase). It was not migrated; it is still at version \(version) and nothing was written. Delete or relink such objects at version \(version) (or in a custom stage), then migrate again.",
            entity: first.table)
    }

    /// Runs the migration from `stored` to `schema` inside the caller's exclusive transaction. Shared by
    /// opening and by dry runs.
    static func migrate(
        _ db: any SQLConnection, from stored: Schema, to schema: Schema, options: Options
    ) throws -> MigrationRecord {
        try migrate(
            db, path: try migrationPath(db, from: stored, to: schema, options: options), from: stored, options: options)
    }

    /// The steps from `stored` to `schema`, by the options' plan or inferred; every version the run makes tables
    /// of must keep its names whole in this engine.
    static func migrationPath(
        _ db: any SQLConnection, from stored: Schema, to schema: Schema, options: Options
    ) throws -> [MigrationStep] {
        let path = try (options.plan ?? MigrationPlan.inferred(from: stored, to: schema)).path(from: stored)
        try SchemaDDL(dialect: db.dialect).checkNames(of: path.map(\.to))
        return path
    }

    static func migrate(
        _ db: any SQLConnection, path: [MigrationStep], from stored: Schema, options: Options
    ) throws -> MigrationRecord {
        try Migrator(path: path, progress: options.progress, cancellation: options.cancellation).run(
            in: db, from: stored)
    }

    static func create(_ schema: Schema, in db: any SQLConnection) throws {
        try SchemaDDL(dialect: db.dialect).checkNames(of: [schema])
        try StoreMetadata.create(db)
        for change in SchemaDDL(dialect: db.dialect).createChanges(schema) { try db.change(change) }
        try StoreMetadata.write(schema, in: db)
    }

    static func dropEverything(in db: any SQLConnection) throws {
        for table in try db.tableNames() { try db.change(.dropTable(table)) }
    }
}
