import Foundation
import Molt

/// Adopts a Core Data or SwiftData store (SQLite store type) into Molt: once, in place, all-or-nothing.
///
/// Give the app's Core Data model — the `.xcdatamodeld` folder with every version the app shipped, or one
/// `.xcdatamodel` — and keep the option on in every release: an opening that finds a Core Data store where its
/// Molt store should be adopts it, and one that finds a Molt store does nothing.
///
/// ```swift
/// import MoltAdoption
///
/// let store = try Store.open(
///     at: storeURL, schema: AppSchema.v7,
///     options: .init().migrating(with: plan).adopting(.coreData(model: modelURL)))
/// ```
///
/// The adoption:
/// 1. copies the store through SQLite's backup (its `-wal` included) and reads the copy: the original's files
///    are never written;
/// 2. finds the model version whose layout is the store's (entities, tables, columns; the version named by the
///    store's `NSStoreModelVersionIdentifiers` among equals), and writes it as the Molt schema of the same number
///    `molt convert-model` gives it (version *n* for the model's *n*-th version);
/// 3. creates a new store at that schema and copies every object and link with its `Z_PK` as identifier, then
///    compares the new store with the original, entity by entity (``AdoptionComparison``), in the same
///    transaction. Into an SQLite store the copy is one `INSERT … SELECT` per entity and per to-many
///    relationship and the comparison joins every original row to its copy in SQL; a store holding a value SQL
///    would not convert exactly is copied object by object, which refuses that value naming it;
/// 4. walks the app's plan from that version to `schema`, validated as any migration;
/// 5. swaps the new store in, and keeps the original's files in `<name>.adoption-backup/` (or removes them).
///
/// Until step 5 a crash, a full disk or a refusal leaves the original as it was, openable by Core Data; a crash
/// during step 5 is finished by the next opening. Other threads and processes opening the store wait.
public struct CoreDataAdoption: StoreAdoption {
    /// What becomes of the original's files once the adopted store is in place.
    public typealias Original = AdoptedOriginal

    /// What describes the store's model: the app's Core Data model file, or the Molt schemas that mirror it.
    public enum Model: Sendable {
        /// The app's Core Data model: an `.xcdatamodeld` folder (every version) or one `.xcdatamodel`.
        case file(URL)
        /// Molt schemas whose entities and properties are the store's, for a SwiftData app (its model is its Swift
        /// classes) or a Core Data app without its model file: the one that matches the store is its version.
        /// `externalStorage` names the binary attributes that allow external storage (`Entity.attribute`).
        case schemas([Schema], externalStorage: Set<String>)
        /// The compiled model the store itself carries (`Z_MODELCACHE`), for a store whose app gives neither: it
        /// is adopted as Molt schema `version`, without defaults, indexes or uniqueness constraints (the plan's next
        /// versions bring the app's).
        case storedModel(version: Int)
    }

    /// What describes the store's model.
    public var model: Model
    /// The Core Data store, when it is not where the Molt store will be (adopting into a new file, or into
    /// PostgreSQL); nil to adopt in place.
    public var source: URL?
    /// What becomes of the original. Defaults to ``AdoptedOriginal/keptAsBackup``.
    public var original: Original
    /// What a binary value becomes when the file Core Data kept it in (external storage) is missing. Defaults to
    /// ``MissingExternalData/refused``.
    public var missingExternalData: MissingExternalData = .refused
    /// The names of a ``Model/file(_:)`` model's versions in the order the app shipped them, oldest first, for a
    /// model whose files cannot tell it (versions named without a shared numbering, and without version
    /// identifiers of their own); nil (the default) to read the order from the files.
    ///
    /// ```swift
    /// var adoption = CoreDataAdoption(model: modelURL)
    /// adoption.versionOrder = ["Launch", "Sync", "Sharing"]
    /// ```
    public var versionOrder: [String]? = nil
    /// Whether an adoption into an SQLite store copies with `INSERT … SELECT` when every value allows it (the
    /// default); false copies object by object, as into PostgreSQL: what the tests compare the two copies with.
    package var copiesInSQL = true
    /// For tests: SQL run on the new store between the copy in SQL and its proof, to show that the proof refuses
    /// what it changes (and that the original is left as it was).
    package var sqlBeforeProof: String? = nil

    /// What a binary value becomes when its external-storage file is missing from the store's
    /// `.<name>_SUPPORT/_EXTERNAL_DATA` folder: Core Data cannot read such a value either.
    public enum MissingExternalData: Sendable, Hashable {
        /// The adoption is refused, naming the file, the entity, the attribute and the object; nothing is written.
        case refused
        /// The value is adopted as null (its attribute must be optional), and each one is listed in the adoption's
        /// record (`AdoptionRecord.leftOut`, shown by `molt info`), naming the object and the file.
        case adoptedAsNull
    }

    /// - Parameters:
    ///   - model: The app's Core Data model: an `.xcdatamodeld` folder or an `.xcdatamodel`.
    ///   - source: The Core Data store when it is elsewhere than the Molt store; nil for in place.
    ///   - original: What becomes of the original's files after an adoption in place.
    public init(model: URL, from source: URL? = nil, original: Original = .keptAsBackup) {
        self.init(describedBy: .file(model), from: source, original: original)
    }

    /// - Parameters:
    ///   - model: What describes the store's model: its Core Data model file, or Molt schemas.
    ///   - source: The Core Data store when it is elsewhere than the Molt store; nil for in place.
    ///   - original: What becomes of the original's files after an adoption in place.
    public init(describedBy model: Model, from source: URL? = nil, original: Original = .keptAsBackup) {
        self.model = model
        self.source = source
        self.original = original
    }

    public func adoptIfNeeded(at location: StoreLocation, schema: Schema, options: Store.Options) throws {
        _ = try adopt(at: location, schema: schema, options: options)
    }

    /// Adopts the Core Data store, when there is one to adopt, and reports what was done.
    ///
    /// - Returns: The report, or nil when there was nothing to adopt (a Molt store already, or no store).
    /// - Throws: `MoltError`: `invalidSchema` when no model version describes the store (naming the entity
    ///   that differs) or the store holds what the version that matched does not describe (rows of an unknown
    ///   entity, a link to an object of another entity, an unknown table), `corruptStore` for a damaged
    ///   store, or what the plan's migration throws; in every case the original is left as it was.
    public func adopt(at location: StoreLocation, schema: Schema, options: Store.Options) throws -> AdoptionReport? {
        try adopt(at: location, options: options) { _ in (schema, options) }
    }

    /// Adopts as ``adopt(at:schema:options:)`` does, with the schema and options to walk the adopted store to
    /// chosen once the store is matched: `target` is given the model version that wrote it and the Molt schema
    /// it is adopted at, read by the adoption itself (what `molt adopt` plans from, without reading the store
    /// a second time as ``matchedVersion(of:)`` would). What `target` throws refuses the
    /// adoption, the original left as it was.
    package func adopt(
        at location: StoreLocation, options: Store.Options, target: AdoptionTarget
    ) throws -> AdoptionReport? {
        try AdoptionFlow.adopt(
            self, at: location, from: source, original: original, options: options, target: target)
    }
}

extension CoreDataAdoption {
    /// The model version that wrote the Core Data store at `url` and the Molt schema it is adopted as, read from
    /// the store, written nowhere: what `molt adopt --dry-run` and `molt plan` show before anything is written.
    ///
    /// - Throws: What ``adopt(at:schema:options:)`` throws when no version describes the store.
    public func matchedVersion(of url: URL) throws -> (version: String, schema: Schema) {
        try AdoptionFlow.reading(url) { read in
            let store = try CoreDataStoreFile(source: read.path, originalPath: url.path)
            let matched = try CoreDataAdoptionRun(
                source: read.path, original: url, model: model, versionOrder: versionOrder
            ).matchedVersion(of: store)
            return (matched.layout.model.name, matched.schema)
        }
    }
}

extension CoreDataAdoption: ForeignSource {
    var engine: String { "Core Data" }

    func adopts(_ kind: ForeignFile) -> Bool { kind == .coreData }

    func prepare(source: String, original: URL) throws -> PreparedAdoption {
        try CoreDataAdoptionRun(
            source: source, original: original, model: model, missingFiles: missingExternalData,
            versionOrder: versionOrder, copiesInSQL: copiesInSQL,
            sqlBeforeProof: sqlBeforeProof
        )
        .prepare()
    }
}

extension StoreAdoption where Self == CoreDataAdoption {
    /// Adopts a Core Data or SwiftData store made with `model` (``CoreDataAdoption``).
    ///
    /// ```swift
    /// let options = Store.Options().migrating(with: plan).adopting(.coreData(model: modelURL))
    /// ```
    public static func coreData(
        model: URL, from source: URL? = nil, original: CoreDataAdoption.Original = .keptAsBackup
    ) -> CoreDataAdoption {
        CoreDataAdoption(model: model, from: source, original: original)
    }

    /// Adopts a SwiftData store (or a Core Data store without its model file) whose entities and properties are
    /// those of one of `schemas` (``CoreDataAdoption/Model/schemas(_:externalStorage:)``): declare the app's
    /// SwiftData classes as Molt models of the same names, as the first version of the Molt plan.
    ///
    /// ```swift
    /// let options = Store.Options().migrating(with: plan)
    ///     .adopting(.swiftData(matching: [AppV1.schema], externalStorage: ["Trip.photo"]))
    /// ```
    ///
    /// - Parameters:
    ///   - schemas: The Molt schemas the store may be written in, typically the plan's first versions.
    ///   - externalStorage: The `Entity.attribute` names of binary attributes declared with
    ///     `@Attribute(.externalStorage)` in SwiftData (`allowsExternalBinaryDataStorage` in Core Data).
    ///   - source: The store when it is elsewhere than the Molt store; nil for in place.
    ///   - original: What becomes of the original's files after an adoption in place.
    public static func swiftData(
        matching schemas: [Schema], externalStorage: Set<String> = [], from source: URL? = nil,
        original: CoreDataAdoption.Original = .keptAsBackup
    ) -> CoreDataAdoption {
        CoreDataAdoption(
            describedBy: .schemas(schemas, externalStorage: externalStorage), from: source, original: original)
    }
}

/// What an adoption did: where the store came from, the comparison of the copy with the original, and where the
/// original's files were kept.
public struct AdoptionReport: Sendable {
    /// What the adopted store records about its origin.
    public var record: AdoptionRecord
    /// The comparison made before the adoption committed.
    public var comparison: AdoptionComparison
    /// The folder holding the original's files, when kept.
    public var backup: URL?
    /// How the objects were copied.
    package var copy: AdoptionCopyPath = .objectByObject("not recorded")

    package init(record: AdoptionRecord, comparison: AdoptionComparison, backup: URL?, copy: AdoptionCopyPath) {
        self.record = record
        self.comparison = comparison
        self.backup = backup
        self.copy = copy
    }
}
