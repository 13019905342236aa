import Foundation
import Molt

/// Adopts a GRDB, FMDB or plain SQLite database into Molt: once, in place, all-or-nothing, as
/// ``CoreDataAdoption`` does for Core Data stores.
///
/// The app gives the Molt schema its database is read as (its first Molt version, which describes the tables as
/// they are) and, where names differ, a ``SQLiteMapping``; the plan then walks on from that version:
///
/// ```swift
/// let v1 = Schema(version: 1) {
///     Entity("Team", primaryKey: "code") { Attribute("code", .string); Attribute("name", .string) }
///     Entity("Player") { Attribute("name", .string); Relationship("team", to: "Team") }
/// }
/// let mapping = SQLiteMapping(tables: [.init(entity: "Team", table: "team", columns: ["code": "id"])])
/// let store = try Store.open(
///     at: url, schema: v3, options: .init().migrating(with: plan).adopting(.sqlite(v1, mapping: mapping)))
/// ```
///
/// Every row is checked before the store is written: each value against its attribute's type, nulls in
/// required attributes, each to-one column resolved to a row of its destination (a text key included), a table or
/// column the mapping neither reads nor ignores; a refusal names the table, the row and the column and leaves the
/// database as it was. A text is copied byte for byte, a NUL included (PostgreSQL refuses a string with a NUL,
/// naming the attribute); a text whose bytes are not UTF-8, which no Molt string holds, is refused. Rows keep their identities (the integer primary key, or `rowid`). The version the
/// database records (GRDB's `grdb_migrations`, or `PRAGMA user_version`) goes into the adoption record.
public struct SQLiteAdoption: StoreAdoption {
    /// The Molt schema the database's tables are read as.
    public var schema: Schema
    /// Tables to entities; what it leaves out is matched by name.
    public var mapping: SQLiteMapping
    /// The database, when it is not where the Molt store will be; nil to adopt in place.
    public var source: URL?
    /// What becomes of the original. Defaults to ``AdoptedOriginal/keptAsBackup``.
    public var original: AdoptedOriginal

    public init(
        _ schema: Schema, mapping: SQLiteMapping = SQLiteMapping(), from source: URL? = nil,
        original: AdoptedOriginal = .keptAsBackup
    ) {
        self.schema = schema
        self.mapping = mapping
        self.source = source
        self.original = original
    }

    public func adoptIfNeeded(at location: StoreLocation, schema: Schema, options: Store.Options) throws {
        _ = try adopt(at: location, schema: schema, options: options)
    }

    /// Adopts the database, when there is one to adopt, and reports what was done.
    ///
    /// - Returns: The report, or nil when there was nothing to adopt (a Molt store already, or no file).
    /// - Throws: `MoltError` naming the table, row and column of a value that does not fit, or what the plan's
    ///   migration throws; the database is left as it was.
    public func adopt(
        at location: StoreLocation, schema target: Schema, options: Store.Options
    ) throws
        -> AdoptionReport?
    {
        try adopt(at: location, options: options) { _ in (target, options) }
    }

    /// Adopts as ``adopt(at:schema:options:)`` does, with the schema and options to walk the adopted store to
    /// returned by `target`, given ``versionName`` and ``schema`` once the database is read (what `molt adopt`
    /// plans from).
    package func adopt(
        at location: StoreLocation, options: Store.Options, target: AdoptionTarget
    ) throws -> AdoptionReport? {
        try schema.validate()
        return try AdoptionFlow.adopt(
            self, at: location, from: source, original: original, options: options, target: target)
    }

    /// The version the database is adopted at, as `molt adopt` names it.
    package var versionName: String { "the database's tables, read as schema version \(schema.version)" }
}

extension SQLiteAdoption: ForeignSource {
    var engine: String { "SQLite" }

    func adopts(_ kind: ForeignFile) -> Bool { kind == .otherSQLite }

    func prepare(source: String, original: URL) throws -> PreparedAdoption {
        let reader = try SQLiteDatabaseReader(source: source, original: original, schema: schema, mapping: mapping)
        let (engine, versions) = try reader.versions()
        return PreparedAdoption(
            schema: schema, matchedVersion: versionName, sourceVersions: versions, engine: engine, leftOut: [],
            identifierMarks: try reader.identifierMarks(),
            filledFromInverse: Dictionary(
                schema.entities.map { ($0.name, SQLiteDatabaseReader.filledFromInverse($0, in: schema)) },
                uniquingKeysWith: { first, _ in first }),
            copy: { importer in (try reader.copy(into: importer), []) })
    }
}

extension StoreAdoption where Self == SQLiteAdoption {
    /// Adopts a GRDB, FMDB or plain SQLite database read as `schema` (``SQLiteAdoption``).
    public static func sqlite(
        _ schema: Schema, mapping: SQLiteMapping = SQLiteMapping(), from source: URL? = nil,
        original: AdoptedOriginal = .keptAsBackup
    ) -> SQLiteAdoption {
        SQLiteAdoption(schema, mapping: mapping, from: source, original: original)
    }
}

/// What becomes of an adopted store's original files once the Molt store is in place.
public enum AdoptedOriginal: Sendable {
    /// Kept in a folder beside the store, `<name>.adoption-backup/`, as they were.
    case keptAsBackup
    /// Removed.
    case removed
}
