import Foundation
import GRDB
import Molt

/// One adoption of a Core Data store, read in place or from a private copy, into a Molt store at `destination`:
/// reads the store's description, finds the model version that wrote it, writes that version as a Molt schema, copies
/// every object and link, proves the copy (``AdoptionProof``) and records where the store came from, in one
/// transaction; then walks the app's plan to the app's schema, as any opening does.
struct CoreDataAdoptionRun {
    /// What SQLite opens to read the store: the store in place, read-only, or its private copy.
    var source: String
    var original: URL
    var model: CoreDataAdoption.Model
    var missingFiles: CoreDataAdoption.MissingExternalData = .refused
    /// The versions of a `.file` model in the order they shipped, when its files cannot tell it.
    var versionOrder: [String]? = nil
    /// Whether the copy may run as `INSERT … SELECT` (``CoreDataSQLCopy``) into an SQLite store.
    var copiesInSQL = true
    /// For tests: SQL run between the copy in SQL and its proof (``CoreDataSQLCopy/beforeProof``).
    var sqlBeforeProof: String? = nil

    /// The model versions the store may have been written with, each with the Molt schema it is adopted as
    /// (computed for the chosen one only: a Core Data history converts version by version).
    private func versions(
        of store: CoreDataStoreFile
    ) throws -> (models: [CoreDataModel], schema: (Int) throws -> (Schema, String?)) {
        switch model {
        case .storedModel(let version):
            let recovered = try store.storedModel()
            return ([recovered], { _ in try Self.schema(of: recovered, version: version, previous: nil) })
        case .file(let url):
            let history = try CoreDataHistory(at: url, order: versionOrder)
            return (history.models, { try Self.schema(of: history, at: $0) })
        case .schemas(let schemas, let externalStorage):
            let models = try schemas.map { try CoreDataModel(describing: $0, externalStorage: externalStorage) }
            return (models, { (schemas[$0], nil) })
        }
    }

    /// What to give when no version describes the store.
    private var remedy: String {
        switch model {
        case .file(let url):
            "the Core Data model at \(url.path)"
        case .schemas(let schemas, _):
            "the Molt schemas given (versions \(schemas.map { String($0.version) }.joined(separator: ", ")))"
        case .storedModel:
            "the model the store carries (Z_MODELCACHE)"
        }
    }

    /// The model version that wrote the store, and its Molt schema.
    func matchedVersion(
        of store: CoreDataStoreFile
    ) throws -> (layout: CoreDataStoreLayout, schema: Schema, flattenedBecause: String?) {
        let (models, schema) = try versions(of: store)
        var mismatches: [CoreDataStoreMismatch] = []
        var candidates: [(index: Int, layout: CoreDataStoreLayout)] = []
        for (index, version) in models.enumerated() {
            switch CoreDataStoreLayout.matching(version, in: store) {
            case .success(let layout): candidates.append((index, layout))
            case .failure(let mismatch): mismatches.append(mismatch)
            }
        }
        let saved = try savedModelCheck(store, candidates: candidates.map(\.layout.model))
        candidates = candidates.filter { saved.accepts($0.layout.model) }
        // Versions that store alike differ in what is not stored (a default, an index): the one the store names
        // wins, or else the newest.
        let named = candidates.last { candidate in
            candidate.layout.model.versionIdentifier.map(store.versionIdentifiers.contains) ?? false
        }
        guard let chosen = named ?? candidates.last else {
            let closest =
                (mismatches.last { $0.sameEntities } ?? mismatches.last).map {
                    " The closest version, '\($0.version)', differs: \($0.what) (entity '\($0.entity)')."
                } ?? ""
            throw MoltError(
                .invalidSchema,
                "No version of \(remedy) describes the store at \(original.path) (its model has the entities \(store.modelEntityNames.sorted().joined(separator: ", "))).\(closest) Nothing was adopted and the store was left as it was. \(model.fix)",
                entity: (mismatches.last { $0.sameEntities } ?? mismatches.last)?.entity)
        }
        let (matched, flattenedBecause) = try schema(chosen.index)
        return (chosen.layout, matched, flattenedBecause)
    }

    /// What the model the store was saved with (its `Z_MODELCACHE`) says of the versions whose tables match:
    /// with a model file, only versions that store every value as that model does are accepted (the tables alone
    /// cannot tell an `Integer 16` from an `Integer 64`, or a `Date` from a `Double`); a store without a readable
    /// cache is matched by its tables.
    private func savedModelCheck(_ store: CoreDataStoreFile, candidates: [CoreDataModel]) throws -> SavedModelCheck {
        guard case .file = model, !candidates.isEmpty, let saved = try? store.storedModel() else {
            return SavedModelCheck(saved: nil)
        }
        guard candidates.contains(where: { $0.storedDifference(from: saved) == nil }) else {
            let closest = candidates.last!
            throw MoltError(
                .invalidSchema,
                "The store at \(original.path) has the tables of model version '\(closest.name)', but it was saved with a model that stores its values otherwise (Core Data keeps that model in the store): \(closest.storedDifference(from: saved) ?? ""). Reading it as '\(closest.name)' would change values. Nothing was adopted and the store was left as it was. Give the .xcdatamodeld that holds the version the app saved this store with, or adopt with the model the store carries (`.storedModel`, or molt adopt without --model)."
            )
        }
        return SavedModelCheck(saved: saved)
    }

    /// The Molt schema of the history's version at `index` (numbered `index + 1`), its renames resolved against
    /// the version before: with Core Data's hierarchies as Molt's, or, when Molt cannot hold one of them (siblings
    /// that declare the same property), flattened, with the reason.
    static func schema(of history: CoreDataHistory, at index: Int) throws -> (schema: Schema, flattenedBecause: String?)
    {
        try schema(
            of: history.models[index], version: index + 1, previous: index > 0 ? history.models[index - 1] : nil)
    }

    /// The Molt schema of one model version, numbered `version`: with Core Data's hierarchies as Molt's, or
    /// flattened with the reason.
    static func schema(
        of model: CoreDataModel, version: Int, previous: CoreDataModel?
    ) throws -> (schema: Schema, flattenedBecause: String?) {
        do {
            return (try model.conversion(version: version, previous: previous, hierarchies: true).schema, nil)
        } catch let error as MoltError {
            let flat = try model.conversion(version: version, previous: previous, hierarchies: false).schema
            return (flat, error.message)
        }
    }

    /// Reads the store: the matched version, its schema, and the copy of its objects.
    func prepare() throws -> PreparedAdoption {
        let store = try CoreDataStoreFile(source: source, originalPath: original.path)
        let (layout, schema, flattenedBecause) = try matchedVersion(of: store)
        switch model {
        case .schemas, .storedModel: try Self.refuseUndeclaredExternalStorage(store, layout: layout)
        case .file: break
        }
        let leftOut = Self.housekeeping(store, layout: layout)
        try Self.refuseUnknownTables(store, layout: layout, leftOut: leftOut, original: original)
        let values = CoreDataValues(original: original, missingFiles: missingFiles)
        let reader = CoreDataCopy(store: store, layout: layout, values: values, flattenedBecause: flattenedBecause)
        let marks = Dictionary(
            store.entityRows.compactMap { row in
                layout.entities.first { $0.number == row.number }.map { ($0.name, row.maxKey) }
            }, uniquingKeysWith: { first, _ in first })
        return PreparedAdoption(
            schema: schema, matchedVersion: layout.model.name,
            sourceVersions: [layout.model.name] + store.versionIdentifiers.filter { !$0.isEmpty }
                + (store.frameworkVersion.map { ["NSPersistenceFrameworkVersion \($0)"] } ?? []),
            leftOut: leftOut, identifierMarks: marks,
            filledFromInverse: Dictionary(
                layout.entities.map { ($0.name, $0.inverseOnly.map(\.name)) }, uniquingKeysWith: { a, _ in a }),
            copy: { importer in
                let digests = try reader.copy(into: importer, schema: schema)
                return (digests, values.missingLeftOut())
            }, sqlCopy: copiesInSQL ? CoreDataSQLCopy(reader: reader, source: source, beforeProof: sqlBeforeProof) : nil
        )
    }

    /// Refuses a binary attribute that Molt schemas describe as plain while every value it holds begins with Core
    /// Data's external-storage marker (1: the bytes follow; 2: a file's name follows): the schemas cannot say
    /// whether the app allowed external storage, and reading marked values as plain bytes would keep the marker
    /// in every value, or a file's name instead of its contents.
    static func refuseUndeclaredExternalStorage(_ store: CoreDataStoreFile, layout: CoreDataStoreLayout) throws {
        for entity in layout.entities {
            for attribute in entity.attributes
            where attribute.coreDataType == "Binary" && !attribute.allowsExternalStorage {
                let column = "\"\(attribute.column)\"", table = "\"\(entity.table)\""
                let (values, marked) = try store.queue.read { db in
                    let row = try Row.fetchOne(
                        db,
                        sql: """
                            SELECT count(*), count(CASE WHEN substr(\(column), 1, 1) IN (x'01', x'02') THEN 1 END)
                            FROM \(table) WHERE \(column) IS NOT NULL AND Z_ENT = ?
                            """, arguments: [entity.number])
                    return (row?[0] as Int? ?? 0, row?[1] as Int? ?? 0)
                }
                guard values > 0, values == marked else { continue }
                throw MoltError(
                    .invalidSchema,
                    "Every value of '\(entity.name).\(attribute.name)' (\(values)) begins with Core Data's external-storage marker: the attribute seems to allow external storage (SwiftData's @Attribute(.externalStorage)), which the Molt schemas cannot say. Name it in externalStorage (molt adopt --external-storage \(entity.name).\(attribute.name)); if its values really begin so, adopt with the app's Core Data model instead. Nothing was adopted and the store was left as it was.",
                    entity: entity.name, property: attribute.name)
            }
        }
    }

    /// Core Data's own tables, which hold no data of the app: reported, and left out.
    static func housekeeping(_ store: CoreDataStoreFile, layout: CoreDataStoreLayout) -> [String] {
        store.columns.keys.sorted().compactMap { table in
            switch table {
            case "Z_PRIMARYKEY", "Z_METADATA": return nil
            case "Z_MODELCACHE": return "Z_MODELCACHE (Core Data's compiled copy of the model)"
            case "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING":
                return "\(table) (Core Data's persistent history)"
            case _ where table.hasPrefix("ANSCK"): return "\(table) (Core Data's CloudKit mirroring)"
            default: return nil
            }
        }
    }

    /// Refuses a table that is neither the model's nor Core Data's own: the app (or a library) wrote it beside
    /// Core Data, and adopting would lose it.
    static func refuseUnknownTables(
        _ store: CoreDataStoreFile, layout: CoreDataStoreLayout, leftOut: [String], original: URL
    ) throws {
        let known = layout.tables.union(["Z_PRIMARYKEY", "Z_METADATA"])
        let unknown = store.columns.keys.filter { table in
            !known.contains(table) && !leftOut.contains { $0.hasPrefix(table + " ") } && !table.hasPrefix("SQLITE_")
        }
        guard let table = unknown.sorted().first else { return }
        throw MoltError(
            .invalidSchema,
            "The store at \(original.path) has a table \(table) that is not part of the Core Data model version '\(layout.model.name)' nor Core Data's own: adopting the store would leave its rows behind. Nothing was adopted and the store was left as it was. Export those rows with the app first, or drop the table if it holds nothing the app needs."
        )
    }
}

extension CoreDataAdoption.Model {
    /// How to give a model that describes the store.
    fileprivate var fix: String {
        switch self {
        case .file:
            "Give the .xcdatamodeld folder that holds every version the app shipped, including the one this store was saved with."
        case .storedModel:
            "The store's own copy of its model does not match its tables: give the app's Core Data model (--model) instead."
        case .schemas:
            "Give a Molt schema whose entities, attributes (of the types that store the same values) and relationships are the store's, as the app declared them when it saved this store."
        }
    }
}

/// The model a store was saved with, when it carries one: the versions that store every value as it does.
private struct SavedModelCheck {
    var saved: CoreDataModel?

    func accepts(_ version: CoreDataModel) -> Bool {
        saved.map { version.storedDifference(from: $0) == nil } ?? true
    }
}
