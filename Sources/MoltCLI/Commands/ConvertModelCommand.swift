import ArgumentParser
import Foundation
import Molt
import MoltAdoption

/// `molt convert-model MODEL --out DIR [--approximate KIND]… [--json]`: writes a Core Data model history as a
/// folder of Molt snapshots `1.json … N.json`.
struct ConvertModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert-model",
        abstract:
            "Write a Core Data model (.xcdatamodeld: every version; or one .xcdatamodel) as Molt snapshots 1.json … N.json.",
        discussion: """
            The versions of an .xcdatamodeld are ordered by their version identifiers when each has its own (1, 2, \
            2.24.1), and by the number at the end of their names (Model, Model 2, … Model 10) otherwise; the two \
            must agree, and .xccurrentversion plays no part (Core Data builds with any version). When the files \
            cannot tell, --version-order gives the order. Version i is written as i.json. \
            Entities, attributes (type, optional, default), relationships (to-one or to-many, ordered, inverse, \
            delete rule), uniqueness constraints (unique indexes) and indexes are kept; each renaming identifier \
            becomes the originalName of the renamed entity or property in the version that renames it. Binary and \
            Transformable attributes are written as data (their stored bytes), URI as string, UUID as uuid, Integer \
            16/32 as int16/int32, Float as float, Decimal as decimal (exact: every digit kept); transient \
            properties are left out (Core Data does not store them). coredata-versions.txt lists which Core Data \
            version each snapshot is.

            A required to-one relationship is written required (optional: false), and a required to-many one with \
            its minimum count (minimumCount: at least 1, or its minCount), as Molt enforces them too. Some things \
            of a Core Data model Molt cannot state yet: entity inheritance, the minimum count of an optional \
            to-many relationship (none or at least N), maximum counts, indexes over relationships, the No Action \
            delete rule. Without \
            --approximate, the command lists every one it finds (entity, property, versions, and the --approximate \
            value that accepts it) and writes nothing (exit 1). With --approximate KIND (repeatable, or all) it \
            writes the closest form and prints each: a sub-entity as an entity of its own that holds its parent's \
            properties too (a link to the parent holds parent objects only); an optional to-many relationship's \
            minimum, maximum counts and indexes over relationships left out; No Action as nullify.
            """)

    @Argument(
        help: ArgumentHelp("The Core Data model: an .xcdatamodeld folder, or one .xcdatamodel.", valueName: "model"))
    var model: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The folder to write the snapshots into (created if needed; must hold no snapshot).", valueName: "dir"))
    var out: String

    @Option(
        name: .customLong("approximate"),
        help: ArgumentHelp(
            "Accept one kind of approximation (repeatable): \(CoreDataApproximation.Kind.allCases.map(\.rawValue).joined(separator: ", ")), or all.",
            valueName: "kind"))
    var approximations: [String] = []

    @Flag(
        name: .long,
        help:
            "Write sub-entities as Molt sub-entities (their own properties, in their root's table), as `molt adopt` reads a Core Data store; without it, each is an entity holding its parents' properties too (--approximate inheritance)."
    )
    var hierarchies = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The versions' names in the order they shipped, oldest first, comma-separated, when their files cannot tell it (names without a shared numbering, no version identifiers).",
            valueName: "names"))
    var versionOrder: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if out.isEmpty { throw ValidationError("The path given to --out is empty.") }
        _ = try accepted()
    }

    func accepted() throws -> AcceptedApproximations {
        var kinds = Set<CoreDataApproximation.Kind>()
        for value in approximations {
            if value == "all" { return .all }
            guard let kind = CoreDataApproximation.Kind(rawValue: value) else {
                throw ValidationError(
                    "'\(value)' is not a kind of approximation; use one of \(CoreDataApproximation.Kind.allCases.map(\.rawValue).joined(separator: ", ")), or all."
                )
            }
            kinds.insert(kind)
        }
        return AcceptedApproximations(kinds: kinds)
    }

    struct Report: Encodable {
        struct Version: Encodable {
            var version: Int
            var coreDataVersion: String
            var file: String
        }
        struct Approximation: Encodable {
            var kind: String
            var entity: String
            var property: String?
            var what: String
            var versions: String
        }
        var directory: String
        var versions: [Version]
        var approximations: [Approximation]
        var transients: [String]
        var notes: [String]
    }

    /// The names a `--version-order` lists, trimmed; nil without the option.
    ///
    /// - Throws: `ValidationError` for an empty name.
    static func versionOrder(_ option: String?) throws -> [String]? {
        guard let option else { return nil }
        let names = option.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if names.contains(where: \.isEmpty) {
            throw ValidationError(
                "--version-order lists an empty name in '\(option)': give the versions' names, comma-separated, oldest first (--version-order \"Model,Model 2\")."
            )
        }
        return names
    }

    func run() throws {
        let source = Files.url(model)
        let history = try CoreDataHistory(at: source, order: try Self.versionOrder(versionOrder))
        let conversion: CoreDataHistoryConversion
        do {
            conversion = try history.conversion(accepting: try accepted(), hierarchies: hierarchies)
        } catch let refusal as ApproximationsRefused {
            throw CLIFailure(.failure, refusal.message)
        }
        let folder = Files.url(out)
        try Self.prepare(folder)
        let snapshots = SnapshotFolder(folder)
        for schema in conversion.schemas { try snapshots.write(schema) }
        let table = zip(conversion.schemas, conversion.versionNames).map { "\($0.version)\t\($1)\n" }.joined()
        try Data(table.utf8).write(to: folder.appendingPathComponent("coredata-versions.txt"), options: .atomic)

        let report = Report(
            directory: folder.path,
            versions: zip(conversion.schemas, conversion.versionNames).map {
                Report.Version(version: $0.version, coreDataVersion: $1, file: "\($0.version).json")
            },
            approximations: conversion.groupedApproximations.map {
                Report.Approximation(
                    kind: $0.approximation.kind.rawValue, entity: $0.approximation.entity,
                    property: $0.approximation.property, what: $0.approximation.what, versions: $0.versions)
            },
            transients: conversion.transients, notes: conversion.notes)
        if output.json { return try Terminal.json(report) }
        let count = conversion.schemas.count
        Terminal.line(
            "Wrote \(Format.count(count, "snapshot")) of \(source.lastPathComponent) into \(folder.path): "
                + (count == 1
                    ? "1.json ('\(conversion.versionNames[0])')."
                    : "1.json ('\(conversion.versionNames[0])') … \(count).json ('\(conversion.versionNames[count - 1])'); coredata-versions.txt lists them all.")
        )
        if !report.approximations.isEmpty {
            Terminal.line("Approximated (\(report.approximations.count), accepted with --approximate):")
            for group in conversion.groupedApproximations {
                Terminal.line(
                    "  \(CoreDataHistory.line(group.approximation, group.versions)) [\(group.approximation.kind.rawValue)]"
                )
            }
        }
        if !conversion.transients.isEmpty {
            Terminal.line(
                "Left out \(conversion.transients.count) transient \(conversion.transients.count == 1 ? "property" : "properties") (Core Data does not store them): \(conversion.transients.joined(separator: ", "))."
            )
        }
        if !conversion.notes.isEmpty {
            Terminal.line("Notes:")
            for note in conversion.notes { Terminal.line("  \(note)") }
        }
        Terminal.line("Next: molt check \(out)")
    }

    /// Creates the folder, or checks that an existing one holds no snapshot that this run would mix with.
    static func prepare(_ folder: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIFailure(.badInput, "\(folder.path) is a file; give --out a folder (it is created if needed).")
            }
            let existing = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
                $0.hasSuffix(".json")
            }
            guard existing.isEmpty else {
                throw CLIFailure(
                    .badInput,
                    "\(folder.path) already holds snapshots (\(existing.sorted().prefix(3).joined(separator: ", "))\(existing.count > 3 ? ", …" : "")); nothing was written. Give --out an empty or new folder."
                )
            }
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw CLIFailure(.failure, "Could not create the folder \(folder.path): \(error.localizedDescription)")
        }
    }
}
