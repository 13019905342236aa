import ArgumentParser
import Foundation
import Molt
import MoltAdoption

/// `molt adopt STORE --from coredata --model MODEL --to N.json|DIR`: brings a Core Data, SwiftData, GRDB, SQLite
/// or Realm store into Molt, in place (the original kept as a backup) or into another store (`--into`), and walks it to the target.
struct AdoptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adopt",
        abstract:
            "Turn a Core Data, SwiftData, GRDB, SQLite or Realm store into a Molt store, every value proven, then migrate it.",
        discussion: """
            The store's own metadata and tables are matched against the versions of the Core Data model given \
            with --model (an .xcdatamodeld folder, or one .xcdatamodel); the matching version is written as the \
            Molt schema of the same number that `molt convert-model` gives it (a SwiftData app, which has no model \
            file, gives instead with --schema the Molt snapshots that declare its classes, and names the binary \
            attributes kept in external storage with --external-storage; with neither, the model the store carries \
            in Z_MODELCACHE is read, and adopted as version 0), every object is copied with its \
            Z_PK as identifier and compared with the original before the copy commits (counts per entity, and \
            every value and link), and the store is migrated to --to as `molt migrate` would. Into an SQLite store \
            a Core Data store is copied with one INSERT … SELECT per entity and per to-many relationship and \
            compared with the original in SQL; into PostgreSQL, or when a value needs the object-by-object copy \
            (a real holding an integer in an integer attribute, or a value it refuses naming the object: a text \
            in a date, bytes that are not UTF-8), it is copied and compared object by object. \
            Until all of it has succeeded the original is not written; then it is kept beside the store as \
            STORE.adoption-backup/ (or removed with --remove-original). With --into, the Molt store is created \
            there (a new file, or postgres://…) and the original stays where it is. --dry-run prints what would be \
            done; --rehearse does it on a copy and reports, leaving everything as it was. A GRDB, FMDB or plain \
            SQLite database (--from sqlite) is read as the schema given with --schema, its tables and columns \
            matched by name or by the mapping file given with --tables; every row is checked before anything is \
            written, and GRDB's grdb_migrations or PRAGMA user_version goes into the adoption record. A Realm \
            file (--from realm) is read without Realm, in place and read-only: its own classes, properties and \
            schema version are the Molt schema it is adopted at (or --schema names the app's Molt schema of it, to \
            keep LinkingObjects as inverses; --rename gives a property Molt reserves, such as _id, another name). \
            Without --to the store is adopted at the version it matched and not migrated.
            """)

    enum Source: String, ExpressibleByArgument, CaseIterable {
        case coredata, sqlite, realm
    }

    @Argument(
        help: ArgumentHelp("The Core Data, SwiftData, GRDB, FMDB, plain SQLite or Realm store.", valueName: "store"))
    var store: String

    @Option(
        name: .long,
        help: "The kind of store: coredata (Core Data and SwiftData), sqlite (GRDB, FMDB, plain SQLite), or realm.")
    var from: Source = .coredata

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --from coredata: the app's Core Data model, an .xcdatamodeld folder or an .xcdatamodel (without it or --schema, the model the store carries is read).",
            valueName: "model"))
    var model: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --model: the model's versions in the order they shipped, oldest first, comma-separated, when its files cannot tell it (as for molt convert-model).",
            valueName: "names"))
    var versionOrder: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --from sqlite: the Molt schema snapshot the database's tables are read as. With --from realm (optional): the app's Molt snapshot of the file's classes as they are. With --from coredata, instead of --model (a SwiftData app has none): the snapshot, or folder of snapshots, whose entities and properties are the store's.",
            valueName: "schema.json|dir"))
    var schema: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --from coredata and --schema: a binary attribute that allows external storage (SwiftData's @Attribute(.externalStorage)), as Entity.attribute; repeat for each.",
            valueName: "entity.attribute"))
    var externalStorage: [String] = []

    enum MissingFiles: String, ExpressibleByArgument, CaseIterable {
        case refuse, null
    }

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --from coredata: what a binary value whose external-storage file is missing becomes: refuse the adoption, or adopt it as null and list it in the record.",
            valueName: "refuse|null"))
    var missingExternalData: MissingFiles = .refuse

    @Option(
        name: .customLong("tables"),
        help: ArgumentHelp(
            "With --from sqlite: the mapping of tables to entities (JSON); what it leaves out is matched by name.",
            valueName: "mapping.json"))
    var tables: String?

    @Option(
        name: .customLong("rename"),
        help: ArgumentHelp(
            "With --from realm: a new name for a Realm property Molt cannot take as it is (_id), as Class.property=name; repeat for each.",
            valueName: "class.property=name"))
    var renames: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The schema snapshot to migrate to, or a folder of snapshots to walk version by version (as for molt migrate); without it, the store is adopted at the version it matched and not migrated.",
            valueName: "new.json|dir"))
    var to: String?

    @Option(
        name: .long,
        help: ArgumentHelp("With a folder: the version to walk to (default: the folder's newest).", valueName: "n"))
    var toVersion: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Create the Molt store here (a new file, or postgres://…) and leave the original in place.",
            valueName: "store"))
    var into: String?

    @Flag(name: .long, help: "Remove the original's files after an adoption in place, instead of keeping a backup.")
    var removeOriginal = false

    @Flag(name: .long, help: "Print the matched model version and the plan; write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Adopt a copy in a temporary folder and report; leave the store as it was.")
    var rehearse = false

    @OptionGroup var output: OutputOptions

    struct Report: Encodable {
        var store: String
        var modelVersion: String
        var adoptedAtVersion: Int
        var toVersion: Int
        var steps: [String]
        var written: Bool
        var comparison: [Line]?
        var leftOut: [String]?
        /// The to-many relationships copied objects hold too few destinations through, kept (Core Data's save-only
        /// check let them be).
        var underMinimumCount: [String]?
        /// The objects the walk after the adoption kept under a minimum count one of its steps added or raised,
        /// `FROM → TO: line`, as the store's history lists them (absent when none).
        var keptUnderMinimumCount: [String]?
        var backup: String?

        struct Line: Encodable {
            var entity: String
            var original: Int
            var adopted: Int
            var valuesAndLinksEqual: Bool
        }
    }

    func validate() throws {
        if dryRun && rehearse { throw ValidationError("--dry-run and --rehearse exclude each other.") }
        switch from {
        case .coredata where model != nil && schema != nil:
            throw ValidationError(
                "--model and --schema exclude each other: give the Core Data model, or Molt snapshots of the same entities (a SwiftData app), or neither to read the model the store carries."
            )
        case .coredata where tables != nil:
            throw ValidationError("--tables is for --from sqlite; a Core Data store's tables are Core Data's.")
        case .sqlite where schema == nil:
            throw ValidationError("--from sqlite needs --schema (the Molt schema the tables are read as).")
        case .sqlite where model != nil:
            throw ValidationError("--model is for --from coredata; a SQLite database is read with --schema.")
        case .realm where model != nil || tables != nil:
            throw ValidationError(
                "--model and --tables are not for --from realm: a Realm file says its own schema (--schema may name the app's)."
            )
        default: break
        }
        if !renames.isEmpty && from != .realm {
            throw ValidationError("--rename is for --from realm.")
        }
        if toVersion != nil && to == nil { throw ValidationError("--to-version needs --to (a folder of snapshots).") }
        if !externalStorage.isEmpty && (from != .coredata || schema == nil) {
            throw ValidationError("--external-storage is for --from coredata with --schema (a --model says it itself).")
        }
        if missingExternalData == .null && from != .coredata {
            throw ValidationError(
                "--missing-external-data is for --from coredata; a SQLite database has no external files.")
        }
        if into != nil && removeOriginal {
            throw ValidationError("--remove-original is for an adoption in place; with --into the original stays.")
        }
    }

    func run() throws {
        let storeURL = Files.url(store)
        // A kill during the swap of an adoption in place may leave no file at the path for a moment; the work
        // folder beside it then holds both stores, and the adoption finishes the swap.
        let swapping = FileManager.default.fileExists(atPath: InPlaceSwap(url: storeURL, keepsBackup: true).folder.path)
        guard FileManager.default.fileExists(atPath: storeURL.path) || (into == nil && swapping) else {
            throw CLIFailure(.badInput, "There is no store at \(storeURL.path). Check the path.")
        }
        let destination = try into.map { try StoreAddress.location($0) } ?? .file(storeURL)
        if isMoltStore(destination) { return }
        let adoption = try self.adoption(storeURL)
        let goal = try to.map { path in
            let target = try TargetSchemaOptions.parse(
                ["--to", path] + (toVersion.map { ["--to-version", "\($0)"] } ?? []))
            return try MigrationTarget(target, mapping: try MappingOptions.parse([]))
        }
        var report: Report?
        // The plan from the version the store was matched with: called by the adoption once it has read the
        // store, so that the store is read once (only --dry-run matches without adopting).
        func plan(_ matched: (version: String, schema: Schema)) throws -> (schema: Schema, options: Store.Options) {
            guard let goal else {
                report = Report(
                    store: storeURL.path, modelVersion: matched.version, adoptedAtVersion: matched.schema.version,
                    toVersion: matched.schema.version, steps: [], written: false)
                return (matched.schema, Store.Options())
            }
            var options = Store.Options()
            options.plan = try goal.plan(from: matched.schema)
            try Store.checkMigration(from: matched.schema, to: goal.schema, plan: options.plan)
            let steps = try Store.plannedSteps(from: matched.schema, to: goal.schema, plan: options.plan)
            report = Report(
                store: storeURL.path, modelVersion: matched.version, adoptedAtVersion: matched.schema.version,
                toVersion: goal.schema.version, steps: steps, written: false)
            return (goal.schema, options)
        }
        if !dryRun {
            let done =
                try rehearse
                ? rehearsal(adoption, storeURL, target: plan)
                : adoption.adopt(at: destination, options: Store.Options(), target: plan)
            if let done, let planned = report { report = outcome(planned, done, in: destination) }
        }
        // Nothing adopted because an adoption that a kill or a crash interrupted once it was done was finished
        // (the store is a Molt store now): say so, rather than read the store as the foreign one.
        if report == nil, !dryRun, into == nil, isMoltStore(destination, finished: true) { return }
        // A dry run, or nothing adopted (what the store holds is not for this adoption): matched on a copy.
        if report == nil { _ = try plan(adoption.matchedVersion(of: storeURL)) }
        guard let report else { return }
        if output.json { return try Terminal.json(report) }
        print(report)
    }

    /// `report` completed with what the adoption `done` did, and what the walk after it kept under a minimum count.
    private func outcome(_ planned: Report, _ done: AdoptionReport, in destination: StoreLocation) -> Report {
        var report = planned
        report.written = !rehearse
        report.comparison = done.comparison.lines.map {
            Report.Line(
                entity: $0.entity, original: $0.originalCount, adopted: $0.adoptedCount,
                valuesAndLinksEqual: $0.digestsAgree)
        }
        report.leftOut = done.record.leftOut
        report.underMinimumCount = done.record.underMinimumCount.isEmpty ? nil : done.record.underMinimumCount
        if !rehearse, let walk = try? Store.inspect(at: destination, countingObjects: false).history.last,
            walk.fromVersion == done.record.adoptedAtVersion
        {
            let kept = walk.stepRecords.flatMap { step in
                step.underMinimumCount.map { "\(step.fromVersion) → \(step.toVersion): \($0)" }
            }
            report.keptUnderMinimumCount = kept.isEmpty ? nil : kept
        }
        report.backup = rehearse ? nil : done.backup?.path
        return report
    }

    /// Whether `destination` is a Molt store, said on the terminal: nothing to adopt there. `finished`: it became
    /// one during this run (adopted by another process meanwhile, or an interrupted adoption finished).
    private func isMoltStore(_ destination: StoreLocation, finished: Bool = false) -> Bool {
        guard let info = try? Store.inspect(at: destination, countingObjects: false) else { return false }
        let origin = info.adoption.map { " adopted from \($0.engine) (\($0.source))" } ?? ""
        let place = StoreAddress.describe(destination)
        Terminal.line(
            finished
                ? "\(place) is a Molt store at version \(info.version)\(origin) now: another process adopted it while this one waited, or this run finished an adoption that a kill or a crash interrupted once it was done. There is nothing more to adopt."
                : "\(place) is a Molt store at version \(info.version)\(origin): nothing to adopt. Bring it to a newer version with `molt migrate`."
        )
        return true
    }

    /// The adoption the options describe.
    private func adoption(_ storeURL: URL) throws -> any CommandAdoption {
        let foreign = into == nil ? nil : storeURL
        let original: AdoptedOriginal = removeOriginal ? .removed : .keptAsBackup
        switch from {
        case .coredata:
            let described: CoreDataAdoption.Model
            if let model {
                described = .file(Files.url(model))
            } else if let schema {
                described = .schemas(try Self.snapshots(at: schema), externalStorage: Set(externalStorage))
            } else {
                described = .storedModel(version: 0)
            }
            var adoption = CoreDataAdoption(describedBy: described, from: foreign, original: original)
            adoption.missingExternalData = missingExternalData == .null ? .adoptedAsNull : .refused
            adoption.versionOrder = try ConvertModelCommand.versionOrder(versionOrder)
            return adoption
        case .sqlite:
            let mapping = try tables.map { path in
                guard let data = FileManager.default.contents(atPath: Files.url(path).path) else {
                    throw CLIFailure(.badInput, "There is no mapping file at \(path). Check the path.")
                }
                return try SQLiteMapping(json: data)
            }
            return SQLiteAdoption(
                try Files.schema(at: schema ?? ""), mapping: mapping ?? SQLiteMapping(), from: foreign,
                original: original)
        case .realm:
            return RealmAdoption(
                schema: try schema.map { try Files.schema(at: $0) }, renaming: try Self.renaming(renames),
                from: foreign, original: original)
        }
    }

    /// `Class.property=name` options as a renaming.
    private static func renaming(_ options: [String]) throws -> [String: String] {
        var renaming: [String: String] = [:]
        for option in options {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].contains("."), !parts[1].isEmpty else {
                throw ValidationError("--rename \(option): write Class.property=name, for example Memo._id=id.")
            }
            renaming[parts[0]] = parts[1]
        }
        return renaming
    }

    /// The snapshot at `path`, or every snapshot of the folder at `path`.
    private static func snapshots(at path: String) throws -> [Schema] {
        var isDirectory: ObjCBool = false
        let url = Files.url(path)
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [try Files.schema(at: path)]
        }
        let folder = SnapshotFolder(url)
        let versions = try folder.recordedVersions()
        guard !versions.isEmpty else {
            throw CLIFailure(
                .badInput, "The folder \(url.path) holds no schema snapshot; snapshots are named <version>.json.")
        }
        return try versions.map { try folder.schema(version: $0) }
    }

    /// Adopts the store into a new store in a temporary folder, removed afterwards: the store's files are only
    /// read.
    private func rehearsal(
        _ adoption: any CommandAdoption, _ storeURL: URL, target: AdoptionTarget
    ) throws -> AdoptionReport? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("molt-rehearse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try adoption.from(storeURL).adopt(
            at: .file(folder.appendingPathComponent("rehearsal.sqlite")), options: Store.Options(), target: target)
    }

    private func print(_ report: Report) {
        let verb =
            dryRun
            ? "Would adopt"
            : rehearse ? "Rehearsed the adoption of" : report.written ? "Adopted" : "Nothing to adopt in"
        Terminal.line("\(verb) \(report.store)")
        let source =
            from == .coredata && model != nil ? "Core Data model version '\(report.modelVersion)'" : report.modelVersion
        Terminal.line("  \(source) → Molt version \(report.adoptedAtVersion)")
        for step in report.steps { Terminal.line("  then \(step)") }
        if let comparison = report.comparison {
            Terminal.line("Compared with the original before committing:")
            for line in comparison {
                Terminal.line(
                    "  \(line.entity): \(line.original) original, \(line.adopted) adopted, \(line.valuesAndLinksEqual ? "values and links equal" : "VALUES OR LINKS DIFFER")"
                )
            }
        }
        for line in report.leftOut ?? [] { Terminal.line("  left out: \(line)") }
        for line in report.underMinimumCount ?? [] { Terminal.line("  short: \(line)") }
        for line in report.keptUnderMinimumCount ?? [] { Terminal.line("  kept short by the walk, \(line)") }
        if let backup = report.backup { Terminal.line("The original's files are kept in \(backup)") }
    }
}

/// What `molt adopt` needs of either adoption.
protocol CommandAdoption: StoreAdoption {
    /// The source's version and the Molt schema it is adopted at, without writing (a dry run).
    func matchedVersion(of url: URL) throws -> (version: String, schema: Schema)
    /// The same adoption, reading the store at `url` into another location (a rehearsal).
    func from(_ url: URL) -> Self
    /// Adopts, walking the store to what `target` returns for the matched version.
    func adopt(at location: StoreLocation, options: Store.Options, target: AdoptionTarget) throws -> AdoptionReport?
}

extension CoreDataAdoption: CommandAdoption {
    func from(_ url: URL) -> CoreDataAdoption {
        var copy = self
        copy.source = url
        return copy
    }
}

extension RealmAdoption: CommandAdoption {
    func from(_ url: URL) -> RealmAdoption {
        var copy = self
        copy.source = url
        return copy
    }
}

extension SQLiteAdoption: CommandAdoption {
    func matchedVersion(of url: URL) throws -> (version: String, schema: Schema) { (versionName, schema) }

    func from(_ url: URL) -> SQLiteAdoption { SQLiteAdoption(schema, mapping: mapping, from: url, original: original) }
}
