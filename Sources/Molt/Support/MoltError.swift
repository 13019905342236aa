/// The error Molt throws: a code to switch on, a message that names the problem and the fix, and context.
///
/// ```swift
/// do {
///     let store = try Store.open(at: url, schema: v3)
/// } catch let error as MoltError where error.code == .storeIsNewer {
///     // The user downgraded the app: show a message, keep the file.
/// }
/// ```
public struct MoltError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added without breaking a `switch` with a default.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidSchema, invalidValue, notAMoltStore, corruptStore, storeIsNewer, schemaChangedWithoutVersionBump
            case migrationNotInferable, migrationFailed, validationFailed, invalidPlan, objectNotFound
            case constraintViolation, storeNotFound, unsupportedFormat, cancelled, ioError
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
        /// The file is damaged or is not a database at all.
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
        /// Reading or writing a file failed.
        public static let ioError = Code(.ioError)
    }

    /// What kind of problem this is.
    public var code: Code
    /// One or more sentences that name the problem and the fix.
    public var message: String
    /// The entity concerned, if any.
    public var entity: String?
    /// The attribute or relationship concerned, if any.
    public var property: String?
    /// The underlying error's description (an SQLite message, a file-system error), if any.
    public var underlying: String?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, entity: String? = nil, property: String? = nil, underlying: String? = nil
    ) {
        self.code = code
        self.message = message
        self.entity = entity
        self.property = property
        self.underlying = underlying
    }

    /// The message.
    public var description: String { message }

    /// The message with its code and context, for logs.
    public var debugDescription: String {
        var parts = ["MoltError.\(code): \(message)"]
        if let entity { parts.append("entity: \(entity)") }
        if let property { parts.append("property: \(property)") }
        if let underlying { parts.append("underlying: \(underlying)") }
        return parts.joined(separator: "\n  ")
    }
}
