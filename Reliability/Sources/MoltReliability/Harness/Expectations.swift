/// Every text, exit status and budget the campaign expects of `molt`, in one place.
///
/// These are the contract of issue 11 (item 9), not a description of today's behaviour: change one only when the
/// contract changes, never to make a run pass.
enum Expectations {
    // MARK: Messages

    /// What a process that waited for another process's migration of the same store prints, with the version
    /// in place of `{N}` (`concurrent-migrators`).
    static let migratedByAnotherProcessTemplate = "already at version {N} (migrated by another process)"

    /// ``migratedByAnotherProcessTemplate`` for version `version`.
    static func migratedByAnotherProcess(version: Int) -> String {
        migratedByAnotherProcessTemplate.replacingOccurrences(of: "{N}", with: String(version))
    }

    /// What `molt migrate` prints when the store is already at the target version (`rerun`; also accepted from a
    /// concurrent migrator that started after the migration had committed).
    static func alreadyAtVersion(_ version: Int) -> String { "already at version \(version)" }

    /// What a migrating process prints when it did the migration: `Migrated STORE from version 1 to 2 …`.
    static func migrated(from old: Int, to new: Int) -> String { "from version \(old) to \(new)" }

    /// The message of a migration stopped by a full disk must contain one of these (case-insensitive).
    static let diskFullPhrases = ["disk is full"]

    /// The message of a migration stopped by the file-size limit (`ulimit -f`) must contain one of these.
    static let fileSizeLimitPhrases = ["file size limit", "disk is full"]

    // MARK: Exit statuses (molt --help)

    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let badInput: Int32 = 3
    static let versionConflict: Int32 = 4
    static let needsStage: Int32 = 5

    /// The statuses `molt` documents.
    static let documentedExits: Set<Int32> = [0, 1, 2, 3, 4, 5]

    /// What a command given well-formed arguments may end with when a *file* is damaged or odd: anything
    /// documented but a usage error (2), which is about the arguments, not the files.
    static let exitsForFileProblems: Set<Int32> = [0, 1, 3, 4, 5]

    // MARK: Budgets

    /// `diff`, `plan` and `check` of a snapshot with ``largeSnapshotEntities`` entities finish within this many
    /// seconds (the 4k extra entities took 76 s).
    static let largeSnapshotBudget = 1.0
    static let largeSnapshotEntities = 10_000
    /// `plan` runs the migration, which creates a table per new entity, then validates it against a fresh copy of
    /// the schema (the same tables again), and SQLite's own `CREATE TABLE` costs as many rows as the schema has
    /// tables (10k tables in one transaction: ~9 s with the C API). Its budget is this factor times SQLite creating
    /// the tables once in the same run (twice for the two sets, and half again for Molt's own work), plus
    /// ``largeSnapshotBudget``.
    static let largeSnapshotPlanFactor = 3.0

    /// A migration run while readers loop must take at most this factor times its duration alone, plus
    /// ``starvationSlack`` seconds (readers share two cores with it, so some slowdown is expected).
    static let starvationFactor = 4.0
    static let starvationSlack = 2.0
}
