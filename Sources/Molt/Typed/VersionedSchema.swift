import Foundation

/// One shipped version of an application's model, written as Swift types nested in a namespace, as
/// SwiftData does.
///
/// ```swift
/// enum V1: VersionedSchema {
///     static let version = 1
///     static let models: [any PersistentModel.Type] = [Note.self, Folder.self]
///
///     @Model struct Note { var title: String }
///     @Model struct Folder { var name: String }
/// }
/// let store = try Store.open(at: url, schema: V1.schema)
/// ```
///
/// ## Why an `Int` version
///
/// The version is an integer, not SwiftData's `Schema.Version(1, 0, 0)`: it is what the store records and
/// orders by, every version has exactly one successor, and there is no question of whether `1.10` comes
/// after `1.9` or whether a patch bump is a migration. Map a marketing version to it in your release notes,
/// not in the store.
///
/// Once a version ships, freeze it: record its ``Schema/snapshotJSON()`` and check it with
/// ``SnapshotFolder/verify(_:)-(P.Type)``.
public protocol VersionedSchema: SendableMetatype {
    /// The version number; it grows by at least one with every change of the model.
    static var version: Int { get }
    /// The models of this version, each stored as one entity.
    static var models: [any PersistentModel.Type] { get }
    /// The models and properties of the previous version that this version deletes on purpose, with their data
    /// (see ``Deletion``). Molt refuses to drop objects, or the values of a likely rename, that are not declared.
    ///
    /// ```swift
    /// static let deletions: [Deletion] = [.entity("WineNote"), .property("memoContent", of: "UserMemo")]
    /// ```
    static var deletions: [Deletion] { get }
    /// What a migration into this version does with existing objects that hold fewer destinations than a
    /// minimum count it adds or raises (see ``Schema/ShortOwners``): kept and listed by default.
    ///
    /// ```swift
    /// static let shortOwners: Schema.ShortOwners = .refused   // every owner must meet the raised minimum
    /// ```
    static var shortOwners: Schema.ShortOwners { get }
}

extension VersionedSchema {
    /// No deletion declared.
    public static var deletions: [Deletion] { [] }

    /// Short owners are kept and listed, as Core Data's lightweight migration keeps them.
    public static var shortOwners: Schema.ShortOwners { .kept }

    /// The runtime schema of this version: one entity per model, in the order of ``models``.
    ///
    /// Everything the runtime schema supports applies unchanged: inference, validation, plans, snapshots.
    ///
    /// The model of a sub-entity repeats its parent's stored properties (see <doc:Inheritance>): its entity
    /// declares only those its parent's model does not have.
    public static var schema: Schema {
        let entities = models.map { $0.entity }
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var schema = Schema(
            version: version, deleting: deletions,
            entities: entities.map { entity in
                guard let parent = entity.parent.flatMap({ byName[$0] }) else { return entity }
                return entity.removingMembers(of: parent)
            })
        schema.shortOwners = shortOwners
        return schema
    }
}

/// The shipped versions of a model and the stages between them, as SwiftData's `SchemaMigrationPlan`.
///
/// Consecutive versions without a stage are inferred when they can be.
///
/// ```swift
/// enum NotesPlan: SchemaMigrationPlan {
///     static let schemas: [any VersionedSchema.Type] = [V1.self, V2.self, V3.self]
///     static var stages: [MigrationStage] { [.lightweight(from: 1, to: 2)] }
/// }
/// let store = try Store.open(at: url, plan: NotesPlan.self)
/// ```
public protocol SchemaMigrationPlan: SendableMetatype {
    /// Every version shipped, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The custom stages and lightweight shortcuts.
    static var stages: [MigrationStage] { get }
}

extension SchemaMigrationPlan {
    /// No stage: every step is inferred.
    public static var stages: [MigrationStage] { [] }

    /// The runtime plan: the schema of each version and the stages.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/invalidPlan`` as ``MigrationPlan/init(schemas:stages:)``.
    public static func migrationPlan() throws -> MigrationPlan {
        try MigrationPlan(schemas: schemas.map { $0.schema }, stages: stages)
    }

    /// The newest version's runtime schema.
    public static var newestSchema: Schema {
        guard let newest = schemas.last else {
            preconditionFailure("Migration plan \(Self.self) lists no schema; list every version the app has shipped.")
        }
        return newest.schema
    }
}

extension Store {
    /// Opens the store at `url` at the newest version of a plan, migrating it along the plan first.
    ///
    /// ```swift
    /// let store = try Store.open(at: url, plan: NotesPlan.self)
    /// ```
    ///
    /// - Parameters:
    ///   - url: The store's file.
    ///   - plan: The versions and stages.
    ///   - options: Journal mode, development reset, progress; the plan replaces `options.plan`.
    /// - Throws: ``MoltError`` as `Store.open(at:schema:options:)`, or ``MoltError/Code/invalidPlan``.
    public static func open<P: SchemaMigrationPlan>(
        at url: URL, plan: P.Type, options: Options = Options()
    ) throws -> Store {
        var options = options
        options.plan = try P.migrationPlan()
        return try open(at: url, schema: P.newestSchema, options: options)
    }

    /// Opens the store at the newest version of a plan off the caller's thread, migrating it along the plan
    /// first; cancelling the calling task cancels the migration, which rolls back.
    ///
    /// ```swift
    /// let store = try await Store.open(at: url, plan: NotesPlan.self)
    /// ```
    ///
    /// - Throws: ``MoltError`` as `Store.open(at:schema:options:)`, or ``MoltError/Code/invalidPlan``.
    public static func open<P: SchemaMigrationPlan>(
        at url: URL, plan: P.Type, options: Options = Options()
    ) async throws -> Store {
        var options = options
        options.plan = try P.migrationPlan()
        return try await open(at: url, schema: P.newestSchema, options: options)
    }

    /// Starts opening the store at the newest version of a plan in the background, with the migration's
    /// progress as an async sequence; see `Store.opening(at:schema:options:)`.
    ///
    /// ```swift
    /// let opening = try Store.opening(at: url, plan: NotesPlan.self)
    /// let store = try await opening.store
    /// ```
    ///
    /// - Throws: ``MoltError/Code/invalidPlan`` when the plan is not valid; opening errors come from `store`.
    public static func opening<P: SchemaMigrationPlan>(
        at url: URL, plan: P.Type, options: Options = Options()
    ) throws -> Opening {
        var options = options
        options.plan = try P.migrationPlan()
        return opening(at: url, schema: P.newestSchema, options: options)
    }
}
