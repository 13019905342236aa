import Foundation
import Molt

/// One kind of foreign store an adoption reads (Core Data, GRDB or plain SQLite): how it is recognized, and how
/// it is read (in place, read-only, or from a private copy) into a Molt store.
protocol ForeignSource: Sendable {
    /// The engine's name, as the adoption record and the messages say it.
    var engine: String { get }
    /// Whether a file of this kind is this source's to adopt.
    func adopts(_ kind: ForeignFile) -> Bool
    /// Reads the store at `original` from `source` (what SQLite opens: the store in place, read-only, or its
    /// private copy): the schema it is adopted at and how its objects are copied. Throws, naming the problem and
    /// leaving the original as it was, when it cannot be adopted.
    func prepare(source: String, original: URL) throws -> PreparedAdoption
    /// The store at `url` as the adoption reads it: in place, or a private copy at `copy`
    /// (``ForeignFile/source(of:copyingTo:)`` for an SQLite store, the default).
    func readable(_ url: URL, copyingTo copy: URL) throws -> AdoptionSource
}

extension ForeignSource {
    func readable(_ url: URL, copyingTo copy: URL) throws -> AdoptionSource {
        try ForeignFile.source(of: url, copyingTo: copy)
    }
}

/// A foreign store read and ready to copy.
struct PreparedAdoption {
    /// The Molt schema its objects are written at.
    var schema: Schema
    /// The version the store was matched with, as `molt adopt` names it (a Core Data model version's name).
    var matchedVersion: String
    /// The source's own version names, for the record.
    var sourceVersions: [String]
    /// The engine that wrote it, when the source tells it more precisely than its kind (GRDB for SQLite).
    var engine: String? = nil
    /// The engine's housekeeping left out, one line each.
    var leftOut: [String]
    /// The largest identifier each entity ever handed out.
    var identifierMarks: [String: Int64]
    /// Per entity, the relationships the copy does not give (filled from their inverse), left out of digests.
    var filledFromInverse: [String: [String]]
    /// Copies every object through the importer; returns each entity's digest of what was read, and what the copy
    /// left out (values read as null on purpose), one line each.
    var copy: (ObjectImporter) throws -> (digests: [String: AdoptionDigest], leftOut: [String])

    /// The copy by `INSERT … SELECT` into an SQLite store, for a source that has one (Core Data).
    var sqlCopy: CoreDataSQLCopy? = nil

    /// Creates a store at `destination` at ``schema``, copies, proves the copy and records the adoption, in one
    /// transaction: in SQL when the destination is an SQLite file and the source has a ``sqlCopy`` that takes
    /// every value, object by object otherwise. Objects under a to-many relationship's minimum count are kept and
    /// listed in the record (`AdoptionRecord.underMinimumCount`); an empty required to-one refuses the copy.
    ///
    /// `beforeCommit` runs last in the transaction (the wait for the check of the store's pages).
    func adopt(
        into destination: StoreLocation, engine: String, original: URL, beforeCommit: () throws -> Void
    ) throws -> AdoptionReport {
        var result: AdoptionReport?
        let inSQL = destination.url == nil ? nil : sqlCopy
        let attachment = inSQL.map { (path: $0.source, name: RowCopy.sourceSchema) }
        try Store.create(at: destination, schema: schema, attaching: attachment) { objects in
            var outcome: CopyOutcome
            switch try inSQL?.copy(objects, schema: schema, marks: identifierMarks) {
            case .copied(let counts, let comparison, let copyLeftOut):
                outcome = CopyOutcome(counts: counts, comparison: comparison, leftOut: copyLeftOut, path: .sql)
            case .unfit(let reason):
                outcome = try copyObjectByObject(objects, because: reason)
            case nil:
                outcome = try copyObjectByObject(
                    objects, because: sqlCopy == nil ? "this source has no copy in SQL" : "the store is not SQLite")
            }
            let engine = self.engine ?? engine
            let short = try objects.linksUnderMinimumCount(
                engine == "Core Data"
                    ? "Core Data checks minimum counts only at save" : "\(engine) does not check minimum counts")
            let record = AdoptionRecord(
                engine: engine, sourceVersions: sourceVersions, source: original.path,
                adoptedAtVersion: schema.version, objectCounts: outcome.counts, leftOut: leftOut + outcome.leftOut,
                underMinimumCount: short, adoptedAt: Date())
            try objects.recordAdoption(record)
            result = AdoptionReport(record: record, comparison: outcome.comparison, backup: nil, copy: outcome.path)
            try beforeCommit()
        }
        return result!
    }

    /// The copy through ``ObjectImporter``, object by object, and the proof that reads every object back.
    private func copyObjectByObject(_ objects: Objects, because reason: String) throws -> CopyOutcome {
        let importer = try ObjectImporter(objects, keepingIDs: true)
        let (digests, copyLeftOut) = try copy(importer)
        try importer.finish(identifierMarks: identifierMarks)
        let comparison = try AdoptionProof.compare(objects, original: digests, skipping: filledFromInverse)
        return CopyOutcome(
            counts: digests.mapValues(\.count), comparison: comparison, leftOut: copyLeftOut,
            path: .objectByObject(reason))
    }

    private struct CopyOutcome {
        var counts: [String: Int]
        var comparison: AdoptionComparison
        var leftOut: [String]
        var path: AdoptionCopyPath
    }
}

/// How an adoption copied the objects.
package enum AdoptionCopyPath: Sendable, Equatable {
    /// One `INSERT … SELECT` per entity and per to-many relationship, proved in SQL (an SQLite destination).
    case sql
    /// Object by object, with the reason the copy in SQL did not run (a PostgreSQL destination, a value it
    /// does not convert, which this copy then refuses or converts).
    case objectByObject(String)
}

/// What an adoption walks the adopted store to, given the version the foreign store was matched with and the Molt
/// schema it is adopted at: the app's schema, and the options of its opening (the plan). `molt adopt` plans from
/// the matched version here, so that the foreign store is copied once, for the match and the adoption alike.
package typealias AdoptionTarget = (_ matched: (version: String, schema: Schema)) throws -> (
    schema: Schema, options: Store.Options
)

/// What the adoptions share: in place (the store read, the new store swapped in) or into another location.
enum AdoptionFlow {
    /// Adopts `source` into `location` and walks it to what `target` returns, with `options` for the wait on
    /// concurrent openers; nil when there is nothing to adopt.
    static func adopt(
        _ source: some ForeignSource, at location: StoreLocation, from foreign: URL?, original: AdoptedOriginal,
        options: Store.Options, target: AdoptionTarget
    ) throws -> AdoptionReport? {
        if let foreign, foreign.standardizedFileURL != location.url?.standardizedFileURL {
            return try adopt(source, from: foreign, into: location, target: target)
        }
        guard let url = location.url else {
            throw MoltError(
                .invalidPlan,
                "An adoption into \(location) needs the \(source.engine) store's file: give it with `from:`.")
        }
        let swap = InPlaceSwap(url: url, keepsBackup: original == .keptAsBackup)
        if !FileManager.default.fileExists(atPath: swap.folder.path), try !source.adopts(ForeignFile.kind(at: url)) {
            return nil
        }
        return try AdoptionLock.holding(for: url, workFolder: swap.folder, timeout: options.migrationWaitTimeout) {
            try swap.recover()
            guard try source.adopts(ForeignFile.kind(at: url)) else { return nil }
            try swap.prepare()
            do {
                let read = try source.readable(url, copyingTo: swap.copy)
                var report = try read.reading {
                    let prepared = try source.prepare(source: read.path, original: url)
                    let (schema, options) = try target((prepared.matchedVersion, prepared.schema))
                    let report = try prepared.adopt(
                        into: .file(swap.adopted), engine: source.engine, original: url, beforeCommit: read.checked)
                    try Store.open(at: swap.adopted, schema: schema, options: options).close()
                    return report
                }
                try swap.commit()
                report.backup = original == .keptAsBackup ? swap.backup : nil
                return report
            } catch {
                try? FileManager.default.removeItem(at: swap.folder)
                throw error
            }
        }
    }

    /// Adopts the store at `foreign` into a new store at `destination`; the foreign store is not changed.
    private static func adopt(
        _ source: some ForeignSource, from foreign: URL, into destination: StoreLocation, target: AdoptionTarget
    ) throws -> AdoptionReport? {
        if (try? Store.inspect(at: destination, countingObjects: false)) != nil { return nil }
        let kind = try ForeignFile.kind(at: foreign)
        guard source.adopts(kind) else {
            throw MoltError(
                .invalidSchema,
                "The file at \(foreign.path) is not a \(source.engine) store (\(kind.description)). Nothing was adopted. Check the path."
            )
        }
        return try reading(foreign, with: source.readable) { read in
            let prepared = try source.prepare(source: read.path, original: foreign)
            let (schema, options) = try target((prepared.matchedVersion, prepared.schema))
            let report = try prepared.adopt(
                into: destination, engine: source.engine, original: foreign, beforeCommit: read.checked)
            try Store.open(at: destination, schema: schema, options: options).close()
            return report
        }
    }

    /// Runs `body` with the store at `url` to read (in place, or a private copy removed afterwards); refuses a
    /// damaged store as damaged, once `body` is done or has failed.
    static func reading<T>(
        _ url: URL, with readable: (URL, URL) throws -> AdoptionSource = ForeignFile.source,
        _ body: (AdoptionSource) throws -> T
    ) throws -> T {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-adoption-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let read = try readable(url, work.appendingPathComponent("original-copy.sqlite"))
        let result = try read.reading { try body(read) }
        try read.checked()
        return result
    }
}
