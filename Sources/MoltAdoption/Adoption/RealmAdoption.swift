import Foundation
import Molt

/// Adopts a Realm file into Molt, read without Realm: once, all-or-nothing, every object and value proven
/// against the original before the adoption commits.
///
/// The file says its own schema (its classes, their properties, primary keys, indexes, links, embedded objects and
/// its schema version), so an adoption needs no model; the app's plan then walks the store on, a Realm-form plan
/// included:
///
/// ```swift
/// let store = try Store.open(
///     at: storeURL, schema: MemoSchema.v6,
///     options: .init().migrating(with: plan).adopting(.realm(from: realmURL)))
/// ```
///
/// Give ``schema`` — the app's Molt schema of the file as it is — to choose the version number, delete rules and
/// indexes, and to keep a `LinkingObjects` property as the inverse of the link it computes from. Types map one to
/// one (a `Date` is the one Realm Swift reads, a `Decimal128` the same `Decimal` or refused, an `ObjectId` its 24
/// hexadecimal digits); a property with no exact Molt form yet (`AnyRealmValue`, a collection of values, a map) is
/// refused naming the class and the property.
///
/// The adoption reads the file in place, read-only (it is mapped, never written), checking every ref and count
/// before it follows it; a file that another process writes while it is read is refused (close the Realm app
/// first). Objects keep their Realm object key as their identity (`_id` = key + 1). Formats 22–24 (Realm Swift 10
/// and later, realm-core 10–14) are read; older ones are refused naming the version, and encrypted files are
/// refused (open them once with Realm and write an unencrypted copy with `writeCopy(toFile:encryptionKey: nil)`).
public struct RealmAdoption: StoreAdoption {
    /// The app's Molt schema of the file as it is, or nil to adopt at the schema the file describes, numbered with
    /// its Realm schema version.
    public var schema: Schema?
    /// New names for Realm properties Molt cannot take as they are (`_id`, which Molt reserves), as
    /// `["Class.property": "name"]`.
    public var renaming: [String: String]
    /// The Realm file, when it is not where the Molt store will be; nil to adopt in place.
    public var source: URL?
    /// What becomes of the original. Defaults to ``AdoptedOriginal/keptAsBackup``.
    public var original: AdoptedOriginal

    public init(
        schema: Schema? = nil, renaming: [String: String] = [:], from source: URL? = nil,
        original: AdoptedOriginal = .keptAsBackup
    ) {
        self.schema = schema
        self.renaming = renaming
        self.source = source
        self.original = original
    }

    public func adoptIfNeeded(at location: StoreLocation, schema: Schema, options: Store.Options) throws {
        _ = try adopt(at: location, schema: schema, options: options)
    }

    /// Adopts the Realm file, when there is one to adopt, and reports what was done.
    ///
    /// - Returns: The report, or nil when there was nothing to adopt (a Molt store already, or no file).
    /// - Throws: `MoltError` naming the class, property or object that cannot be adopted, or what the plan's
    ///   migration throws; the Realm file is left as it was.
    public func adopt(
        at location: StoreLocation, schema target: Schema, options: Store.Options
    ) throws
        -> AdoptionReport?
    {
        try adopt(at: location, options: options) { _ in (target, options) }
    }

    /// Adopts as ``adopt(at:schema:options:)`` does, with the schema and options to walk the adopted store to
    /// returned by `target`, given the version adopted at (what `molt adopt` plans from).
    package func adopt(
        at location: StoreLocation, options: Store.Options, target: AdoptionTarget
    ) throws
        -> AdoptionReport?
    {
        try AdoptionFlow.adopt(self, at: location, from: source, original: original, options: options, target: target)
    }

    /// The version the file would be adopted at, and its schema, without writing anything.
    package func matchedVersion(of url: URL) throws -> (version: String, schema: Schema) {
        let (_, objectSchema) = try read(url)
        return (Self.versionName(objectSchema), objectSchema.schema)
    }

    private func read(_ url: URL) throws -> (RealmFile, RealmObjectSchema) {
        let file = try RealmFile(at: url)
        let derived = try RealmObjectSchema(file, renaming: renaming)
        return (file, try schema.map { try derived.reading(as: $0) } ?? derived)
    }

    private static func versionName(_ objectSchema: RealmObjectSchema) -> String {
        "Realm schema version \(objectSchema.realmVersion)"
    }
}

extension RealmAdoption: ForeignSource {
    var engine: String { "Realm" }

    /// A Realm file, or a file that is not SQLite: the Realm reader then says what it is (encrypted, damaged, not
    /// a Realm file), rather than the adoption saying only that it is no SQLite database.
    func adopts(_ kind: ForeignFile) -> Bool { kind == .realm || kind == .notSQLite }

    func readable(_ url: URL, copyingTo copy: URL) throws -> AdoptionSource { try AdoptionSource(notSQLite: url) }

    func prepare(source: String, original: URL) throws -> PreparedAdoption {
        let (file, objectSchema) = try read(URL(fileURLWithPath: source))
        return PreparedAdoption(
            schema: objectSchema.schema, matchedVersion: Self.versionName(objectSchema),
            sourceVersions: [Self.versionName(objectSchema), "file format \(file.formatVersion)"],
            leftOut: objectSchema.leftOut, identifierMarks: [:], filledFromInverse: objectSchema.filledFromInverse,
            copy: { importer in (try objectSchema.copy(file, into: importer), []) })
    }
}

extension StoreAdoption where Self == RealmAdoption {
    /// Adopts a Realm file, read without Realm (``RealmAdoption``).
    ///
    /// ```swift
    /// options.adopting(.realm(from: realmURL))
    /// ```
    public static func realm(
        schema: Schema? = nil, renaming: [String: String] = [:], from source: URL? = nil,
        original: AdoptedOriginal = .keptAsBackup
    ) -> RealmAdoption {
        RealmAdoption(schema: schema, renaming: renaming, from: source, original: original)
    }
}
