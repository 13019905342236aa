import Foundation

extension Store {
    /// How a store is opened: journal mode, what to do when a migration is needed, how long to wait for
    /// another opener's migration, and how to report progress.
    ///
    /// ```swift
    /// var options = Store.Options()
    /// options.progress = { print("\($0.fractionCompleted * 100)%") }
    /// let store = try Store.open(at: url, schema: v6, options: options)
    /// ```
    public struct Options: Sendable {
        /// How SQLite journals writes.
        public enum JournalMode: Sendable {
            /// Write-ahead logging: readers never wait for writers. The default.
            case wal
            /// A rollback journal, deleted after each transaction: one file, nothing beside it when closed.
            case rollback
            /// The mode the file already has; write-ahead logging for a new file. For tools that open other
            /// people's stores and must not change how they work.
            case preserve
        }

        /// How thoroughly SQLite overwrites deleted content during a migration.
        public enum SecureDelete: Sendable {
            /// Keep the SQLite build's setting (on, in Debian's and Apple's builds): deleted content is zeroed,
            /// which costs a table rebuild up to about twice the writes.
            case systemDefault
            /// Zero deleted content only where it costs no extra I/O: faster rebuilds, but old values may
            /// linger in free pages until the next `VACUUM` (``Store/compact()``).
            case fast
        }

        /// How SQLite journals writes. Defaults to ``JournalMode-swift.enum/wal``.
        public var journalMode: JournalMode = .wal
        /// Delete the store's data and recreate it at the schema's version instead of migrating or reporting a
        /// changed schema, as Realm's `deleteRealmIfMigrationNeeded` does.
        ///
        /// - Warning: For development only: it throws away the user's data. Never ship it enabled.
        public var resetsStoreIfMigrationNeeded = false
        /// How long an opener waits for another thread or process that is migrating the same file, in
        /// seconds. Defaults to ten minutes.
        public var migrationWaitTimeout: TimeInterval = LockWait.defaultTimeout
        /// How thoroughly a migration overwrites deleted content. Defaults to ``SecureDelete-swift.enum/systemDefault``.
        public var secureDelete: SecureDelete = .systemDefault
        /// Checks the whole store inside a migration's transaction, before its first write, and refuses a damaged
        /// store with ``MoltError/Code/corruptStore`` instead of migrating what it holds: SQLite's
        /// `PRAGMA quick_check` of every page, then every link on both engines (a migration's validation checks
        /// only the links it wrote; this also finds those a tool broke with references off, anywhere). It reads
        /// the whole store once — roughly a second per gigabyte on an SSD — which is why it is off by default;
        /// `molt migrate` turns it on. Defaults to false.
        public var checksIntegrityBeforeMigrating = false
        /// Called during a migration with its progress, on the opening thread.
        public var progress: (@Sendable (MigrationProgress) -> Void)?
        /// A switch that cancels a running migration, which then rolls back.
        public var cancellation: MigrationCancellation?
        /// The migration plan: every schema version shipped and the stages between them. Without a plan, Molt
        /// infers the migration from the stored schema straight to the target.
        public var plan: MigrationPlan?
        /// The adoption of another engine's store found where the store should be, run before the opening
        /// (``adopting(_:)``).
        public var adoption: (any StoreAdoption)?

        /// Default options: WAL, migrate when needed, wait up to ten minutes for another opener.
        public init() {}

        /// A copy that deletes and recreates the store instead of migrating it.
        ///
        /// - Warning: For development only: it throws away the user's data.
        public func resettingStoreIfMigrationNeeded() -> Options {
            var copy = self
            copy.resetsStoreIfMigrationNeeded = true
            return copy
        }

        /// A copy that migrates along `plan`.
        public func migrating(with plan: MigrationPlan) -> Options {
            var copy = self
            copy.plan = plan
            return copy
        }
    }
}

extension Store {
    /// `LockWait.defaultTimeout` where a public function's default argument needs it (those may only name
    /// public or `@usableFromInline` internal declarations).
    @usableFromInline static let defaultWaitTimeout: TimeInterval = LockWait.defaultTimeout
}

extension Store.Options {
    /// The journal an opening sets, as the engine names it.
    var journal: SQLJournal {
        switch journalMode {
        case .wal: return .wal
        case .rollback: return .rollback
        case .preserve: return .preserve
        }
    }
}
