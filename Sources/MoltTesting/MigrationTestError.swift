/// The error every check of MoltTesting throws: what went wrong, where, and what to do about it.
///
/// The kit never calls a test framework; a check that fails throws this error, so it works the same under
/// swift-testing and XCTest. Its ``message`` names the schema version, the entity, the attribute and the
/// fixture object concerned, and says what to fix; the same facts are in the properties, for code that
/// switches on them.
///
/// ```swift
/// @Test func migrationsKeepEveryMemo() throws {
///     // A failure is reported with the whole message, e.g.
///     // "From version 1: 'UserMemo' object \"groceries\" (_id 1): title: expected \"Milk\", found null"
///     try MigrationTester(plan: plan, snapshots: snapshots)
///         .migrateFromEveryVersion(fixtures: Fixtures.memos)
/// }
///
/// // Or look inside:
/// do {
///     try snapshots.verify(AppSchemas.all)
/// } catch let error as MigrationTestError where error.code == .frozenVersionEdited {
///     print(error.version!, error.entity!, error.attribute ?? "-")
/// }
/// ```
///
/// ## Topics
/// ### Reading the error
/// - ``code``
/// - ``message``
/// - ``failures``
/// - ``Code``
public struct MigrationTestError: Error, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of problem the kit found. New codes may be added; `switch` over them with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case snapshotMissing, frozenVersionEdited, versionRemoved, invalidSnapshot, snapshotsRecorded
            case invalidFixture, missingStage, migrationFailed, invalidData, objectsLost, valueMismatch, countMismatch
            case checkFailed, versionNotRecorded, severalFailures, lossNotDeclared, ambiguousMatch,
                dataDependentStepFails
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// The code's name, such as `frozenVersionEdited`.
        public var description: String { base.rawValue }

        /// A schema version of the code has no recorded snapshot file yet.
        public static let snapshotMissing = Code(.snapshotMissing)
        /// A recorded (shipped) version differs from its snapshot: it was edited after the fact.
        public static let frozenVersionEdited = Code(.frozenVersionEdited)
        /// A version is recorded in the snapshots folder but the code no longer lists it.
        public static let versionRemoved = Code(.versionRemoved)
        /// A snapshot file cannot be read, or is not named after its version.
        public static let invalidSnapshot = Code(.invalidSnapshot)
        /// Record mode was on and snapshot files were written; run again without it to verify them.
        public static let snapshotsRecorded = Code(.snapshotsRecorded)
        /// A fixture does not fit its schema version (unknown entity or attribute, wrong type, bad link), or its
        /// expectation names an attribute the fixture's version does not have.
        public static let invalidFixture = Code(.invalidFixture)
        /// A step between two versions cannot be inferred and the plan declares no stage for it.
        public static let missingStage = Code(.missingStage)
        /// Molt threw while migrating (a stage failed, a constraint was violated, validation failed).
        public static let migrationFailed = Code(.migrationFailed)
        /// The migrated store holds values that do not fit the newest schema (text in an integer attribute, a
        /// malformed UUID): SQLite's loose typing let a stage's SQL store them.
        public static let invalidData = Code(.invalidData)
        /// Fixture objects expected to survive the migration are gone.
        public static let objectsLost = Code(.objectsLost)
        /// Objects survived, but some attribute values or links differ from the expectation.
        public static let valueMismatch = Code(.valueMismatch)
        /// The migration drops fixture data (the objects of a removed entity, the values of a removed attribute)
        /// that the expectation does not declare: ``ObjectExpectation/deleted``, ``ObjectExpectation/values(_:in:)``
        /// with the entity a stage moves the object to, or `dropping` in ``ObjectExpectation/survives(_:links:ignoring:dropping:)``.
        public static let lossNotDeclared = Code(.lossNotDeclared)
        /// An object expected in another entity matches several objects there, and no primary key value tells
        /// which: the kit does not guess.
        public static let ambiguousMatch = Code(.ambiguousMatch)
        /// A step refuses data a user's store may hold, which the fixtures lack: the kit generated it at the
        /// step's older version (a null, two equal values, an integer beyond 2^53, a value in a removed
        /// attribute, an object linked from two others) and the migration failed
        /// (``MigrationTester/checkDataDependentSteps()``).
        public static let dataDependentStepFails = Code(.dataDependentStepFails)
        /// The number of objects of an entity after the migration differs from the expectation.
        public static let countMismatch = Code(.countMismatch)
        /// A check closure given to the kit threw.
        public static let checkFailed = Code(.checkFailed)
        /// A version was asked for that is neither recorded nor in the plan.
        public static let versionNotRecorded = Code(.versionNotRecorded)
        /// Several problems were found; each is in ``MigrationTestError/failures``.
        public static let severalFailures = Code(.severalFailures)
    }

    /// What kind of problem this is.
    public var code: Code
    /// The full report: one or more sentences naming the problem and the fix.
    public var message: String
    /// The schema version concerned: the starting version of a failed migration, or the edited version.
    public var version: Int?
    /// The entity concerned, if one is.
    public var entity: String?
    /// The attribute or relationship concerned, if one is.
    public var attribute: String?
    /// The key of the fixture object concerned, if one is.
    public var object: String?
    /// The Molt error behind this one, if Molt threw.
    public var underlying: MoltError?
    /// For ``Code/severalFailures``: each problem, in the order found.
    public var failures: [MigrationTestError]

    /// Creates an error.
    ///
    /// ```swift
    /// throw MigrationTestError(.valueMismatch, "From version 1: …", version: 1, entity: "UserMemo", attribute: "title")
    /// ```
    public init(
        _ code: Code, _ message: String, version: Int? = nil, entity: String? = nil, attribute: String? = nil,
        object: String? = nil, underlying: MoltError? = nil, failures: [MigrationTestError] = []
    ) {
        self.code = code
        self.message = message
        self.version = version
        self.entity = entity
        self.attribute = attribute
        self.object = object
        self.underlying = underlying
        self.failures = failures
    }

    /// One error for a list of problems: the problem itself when there is one, else a ``Code/severalFailures``
    /// error whose message lists every one under `heading`.
    static func combining(_ failures: [MigrationTestError], heading: String) -> MigrationTestError? {
        guard let first = failures.first else { return nil }
        if failures.count == 1 { return first }
        return MigrationTestError(
            .severalFailures, heading + "\n" + failures.map(\.message).joined(separator: "\n"),
            version: first.version, entity: first.entity, attribute: first.attribute, object: first.object,
            underlying: first.underlying, failures: failures)
    }

    /// The message.
    public var description: String { message }

    /// The message with its code and context, for logs.
    public var debugDescription: String {
        var parts = ["MigrationTestError.\(code): \(message)"]
        if let version { parts.append("version: \(version)") }
        if let entity { parts.append("entity: \(entity)") }
        if let attribute { parts.append("attribute: \(attribute)") }
        if let object { parts.append("object: \(object)") }
        if let underlying { parts.append("underlying: \(underlying.debugDescription)") }
        return parts.joined(separator: "\n  ")
    }
}
