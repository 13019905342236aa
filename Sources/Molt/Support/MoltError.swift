import Foundation

/// The error Molt throws: a code to switch on, a message that names the problem and the fix, and context.
///
/// ```swift
/// do {
///     let store = try Store.open(at: url, schema: v3)
/// } catch MoltError.Code.storeIsNewer {
///     // The user downgraded the app: show a message, keep the file.
/// } catch let error as MoltError {
///     logger.error("\(error.debugDescription)")
/// }
/// ```
///
/// ## Topics
/// ### Switching on the kind of problem
/// - ``code``
/// - ``Code``
/// ### Context
/// - ``message``
/// - ``entity``
/// - ``property``
/// - ``sql``
/// - ``cause``
public struct MoltError: Error, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of problem this is. New codes may be added without breaking a `switch` with a default.
    ///
    /// A code matches a thrown error in a `catch` clause or a `switch`:
    ///
    /// ```swift
    /// catch MoltError.Code.locked { retryLater() }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidSchema, invalidValue, notAMoltStore, corruptStore, storeIsNewer, schemaChangedWithoutVersionBump
            case migrationNotInferable, migrationFailed, validationFailed, invalidPlan, objectNotFound
            case constraintViolation, storeNotFound, unsupportedFormat, cancelled, ioError
            case locked, diskFull, snapshotMissing, dataLossRefused, readOnly, needsRecovery
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        public var description: String { base.rawValue }

        /// A schema is not well formed: duplicate names, a relationship to a missing entity, a bad default…
        public static let invalidSchema = Code(.invalidSchema)
        /// A value does not fit its attribute: wrong type, or null in a required attribute.
        public static let invalidValue = Code(.invalidValue)
        /// The file is an SQLite database but not a Molt store.
        public static let notAMoltStore = Code(.notAMoltStore)
        /// The file is damaged, is not a database at all, or holds values Molt did not write.
        public static let corruptStore = Code(.corruptStore)
        /// The store was written by a newer version of the app.
        public static let storeIsNewer = Code(.storeIsNewer)
        /// The model changed but its version number did not.
        public static let schemaChangedWithoutVersionBump = Code(.schemaChangedWithoutVersionBump)
        /// A change between two versions cannot be inferred and needs a custom stage.
        public static let migrationNotInferable = Code(.migrationNotInferable)
        /// A migration step failed; the store was left at its old version.
        public static let migrationFailed = Code(.migrationFailed)
        /// The migrated store does not match the target schema; nothing was committed.
        public static let validationFailed = Code(.validationFailed)
        /// A migration plan has a gap, a duplicate, a cycle or an unknown version.
        public static let invalidPlan = Code(.invalidPlan)
        /// No object has this identifier.
        public static let objectNotFound = Code(.objectNotFound)
        /// A uniqueness, relationship or delete-rule constraint was violated.
        public static let constraintViolation = Code(.constraintViolation)
        /// No store exists at the path.
        public static let storeNotFound = Code(.storeNotFound)
        /// The store's file format is newer than this version of Molt.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// The work was cancelled and rolled back.
        public static let cancelled = Code(.cancelled)
        /// Reading or writing a file failed for a reason no more specific code names.
        public static let ioError = Code(.ioError)
        /// Another connection or process held the store's lock for longer than Molt waits.
        public static let locked = Code(.locked)
        /// The disk (or the process's file size limit) has no room for what the work needs to write.
        public static let diskFull = Code(.diskFull)
        /// A schema snapshot that a check needs is not recorded.
        public static let snapshotMissing = Code(.snapshotMissing)
        /// A migration would delete data that the plan does not declare deleted: nothing was written.
        public static let dataLossRefused = Code(.dataLossRefused)
        /// The store was opened read-only, or its file cannot be written.
        public static let readOnly = Code(.readOnly)
        /// A process that died while writing left a rollback journal or a write-ahead log beside the store, which
        /// only a connection that may write can recover; a read-only opening refuses instead of changing the file.
        public static let needsRecovery = Code(.needsRecovery)

        /// Whether `error` is a ``MoltError`` with this code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? MoltError)?.code == code
        }
    }

    /// What kind of problem this is.
    public var code: Code
    /// One or more sentences that name the problem and the fix.
    public var message: String
    /// The entity concerned, if any.
    public var entity: String?
    /// The attribute or relationship concerned, if any.
    public var property: String?
    /// The SQL statement that failed, if any.
    public var sql: String?
    /// The error that caused this one (an SQLite error, a file-system error), if any.
    public var cause: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of problem it is.
    ///   - message: Sentences that name the problem and the fix.
    ///   - entity: The entity concerned.
    ///   - property: The attribute or relationship concerned.
    ///   - sql: The statement that failed.
    ///   - cause: The underlying error.
    public init(
        _ code: Code, _ message: String, entity: String? = nil, property: String? = nil, sql: String? = nil,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.entity = entity
        self.property = property
        self.sql = sql
        self.cause = cause
    }

    /// The message.
    public var description: String { message }

    /// The message with its code and context, for logs.
    public var debugDescription: String {
        var parts = ["MoltError.\(code): \(message)"]
        if let entity { parts.append("entity: \(entity)") }
        if let property { parts.append("property: \(property)") }
        if let sql { parts.append("sql: \(sql)") }
        if let cause { parts.append("cause: \(String(reflecting: cause))") }
        return parts.joined(separator: "\n  ")
    }

    /// Errors are equal when their code, message and context are; the cause is not compared.
    public static func == (lhs: MoltError, rhs: MoltError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.entity == rhs.entity && lhs.property == rhs.property
            && lhs.sql == rhs.sql
    }
}

/// Hashable again, as in earlier releases (a set of errors, a dictionary keyed by error): the hash covers what
/// `==` compares, never the cause.
extension MoltError: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(entity)
        hasher.combine(property)
        hasher.combine(sql)
    }
}

extension MoltError: LocalizedError {
    /// The message, so that `localizedDescription` shows it on every platform.
    public var errorDescription: String? { message }
}
