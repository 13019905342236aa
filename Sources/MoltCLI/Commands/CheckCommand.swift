import ArgumentParser
import Foundation
import Molt

/// `molt check DIR [--stage FROM:TO]… [--json]`: lints a folder of schema snapshots named by version (`0.json`,
/// `1.json`, …).
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Lint a folder of schema snapshots (0.json, 1.json, …): gaps, duplicates, steps that need code, edits.",
        discussion: """
            Errors: a file that does not read as a valid schema, a file whose name is not the version inside it, \
            two files for one version, a version missing between two others, and a step between consecutive \
            versions that Molt cannot infer and that no --stage declares, and a version edited after it shipped (its \
            snapshot no longer matches a store given with --against). Warnings: changes that delete data, and \
            declared stages over steps Molt could infer. Exits 1 when there is an error (3 when a file cannot be \
            read at all), 0 otherwise.

            Given a store file instead of a folder, checks the store itself: SQLite's integrity_check of every page \
            and index, foreign_key_check of every link, and Molt's metadata and history; it reads the whole file \
            and writes nothing. Exits 0 when the store is sound, 3 when it is damaged.
            """)

    @Argument(help: ArgumentHelp("The folder of snapshots, or a store file to check.", valueName: "dir-or-store"))
    var directory: String

    @Option(
        name: .customLong("stage"),
        help: ArgumentHelp("A step that the app covers with a custom stage, as FROM:TO (repeatable).", valueName: "from:to"))
    var stages: [String] = []

    @Option(
        name: .customLong("against"),
        help: ArgumentHelp("A store created by a shipped version (repeatable): its version's snapshot must not have been edited since.", valueName: "store"))
    var stores: [String] = []

    @OptionGroup var output: OutputOptions

    struct Issue: Encodable, Equatable {
        enum Severity: String, Encodable { case error, warning }
        var severity: Severity
        var file: String?
        var message: String
    }

    struct Report: Encodable {
        var directory: String
        var versions: [Int]
        var issues: [Issue]
        var errors: Int { issues.filter { $0.severity == .error }.count }
        var warnings: Int { issues.filter { $0.severity == .warning }.count }

        enum CodingKeys: String, CodingKey { case directory, versions, issues, errors, warnings }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(directory, forKey: .directory)
            try container.encode(versions, forKey: .versions)
            try container.encode(issues, forKey: .issues)
            try container.encode(errors, forKey: .errors)
            try container.encode(warnings, forKey: .warnings)
        }
    }

    func validate() throws {
        for stage in stages where Self.parseStage(stage) == nil {
            throw ValidationError("--stage '\(stage)' is not FROM:TO with two versions, the second greater (for example 4:5).")
        }
    }

    static func parseStage(_ text: String) -> (from: Int, to: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let from = Int(parts[0]), let to = Int(parts[1]), from >= 0, to > from else { return nil }
        return (from, to)
    }

    func run() throws {
        if Self.namesStoreFile(directory) { return try checkStore(directory) }
        let folder = Files.url(directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIFailure(.badInput, "There is no folder at \(folder.path). Give the folder that holds the snapshots.")
        }
        let (report, unreadable) = try lint(folder)
        if output.json {
            try Terminal.json(report)
        } else {
            for issue in report.issues {
                Terminal.line("\(issue.severity.rawValue): \(issue.file.map { "\($0): " } ?? "")\(issue.message)")
            }
            let versions = report.versions.map(String.init).joined(separator: ", ")
            Terminal.line(
                "Checked \(Format.count(report.versions.count, "version"))\(versions.isEmpty ? "" : " (\(versions))"): \(Format.count(report.errors, "error")), \(Format.count(report.warnings, "warning")).")
        }
        if unreadable { throw ExitStatus.badInput.exitCode }
        if report.errors > 0 { throw ExitStatus.failure.exitCode }
    }

    /// Reads every `*.json` of the folder and checks the chain of versions.
    func lint(_ folder: URL) throws -> (Report, unreadable: Bool) {
        // By version, the canonical name (`1.json`) before variants (`01.json`), so that those are the duplicates.
        func key(_ name: String) -> (Int, Int, String) {
            let number = Int(name.dropLast(5))
            return (number ?? .max, name == number.map { "\($0).json" } ? 0 : 1, name)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted { key($0) < key($1) }
        var issues: [Issue] = []
        var unreadable = false
        var byVersion: [Int: (file: String, schema: Schema)] = [:]
        for name in names {
            guard let number = Int(name.dropLast(5)) else {
                issues.append(Issue(severity: .error, file: name, message: "the name is not a version number; name snapshots `<version>.json`."))
                continue
            }
            let schema: Schema
            do {
                schema = try Schema(snapshotJSON: Data(contentsOf: folder.appendingPathComponent(name)))
            } catch let error as MoltError {
                issues.append(Issue(severity: .error, file: name, message: error.message))
                unreadable = true
                continue
            } catch {
                issues.append(Issue(severity: .error, file: name, message: "it cannot be read: \(error.localizedDescription)"))
                unreadable = true
                continue
            }
            if schema.version != number {
                issues.append(Issue(
                    severity: .error, file: name,
                    message: "it holds version \(schema.version), but its name says \(number); rename it \(schema.version).json or fix its version."))
            }
            if let other = byVersion[schema.version] {
                issues.append(Issue(
                    severity: .error, file: name,
                    message: "version \(schema.version) is also in \(other.file); keep one snapshot per version."))
                continue
            }
            byVersion[schema.version] = (name, schema)
        }
        let versions = byVersion.keys.sorted()
        let declared = stages.compactMap(Self.parseStage)
        for (from, to) in zip(versions, versions.dropFirst()) {
            let old = byVersion[from]!, new = byVersion[to]!
            if to > from + 1 {
                let missing = (from + 1..<to).map(String.init).joined(separator: ", ")
                issues.append(Issue(
                    severity: .error, file: nil,
                    message: "version\(to - from > 2 ? "s" : "") \(missing) missing between \(old.file) and \(new.file); keep the snapshot of every version you shipped."))
            }
            let diff = SchemaDiff(from: old.schema, to: new.schema)
            let covered = declared.contains { $0.from <= from && $0.to >= to }
            if !covered {
                for change in diff.refusedChanges {
                    issues.append(Issue(
                        severity: .error, file: new.file,
                        message: "step \(from) → \(to) cannot be inferred and no --stage covers it: \(change.refusal ?? change.description)"))
                }
            } else if diff.isInferable && declared.contains(where: { $0.from == from && $0.to == to }) {
                issues.append(Issue(
                    severity: .warning, file: new.file,
                    message: "step \(from) → \(to) has a declared stage, but Molt can infer it; the stage is only needed if it changes values."))
            }
            for change in diff.changes where change.isDestructive {
                issues.append(Issue(
                    severity: .warning, file: new.file,
                    message: "step \(from) → \(to) deletes data: \(change.description)"))
            }
            for rename in DiffReport.renames(in: diff, newFile: new.file) {
                issues.append(Issue(severity: .warning, file: new.file, message: "step \(from) → \(to): \(rename.fix)"))
            }
        }
        // A store is evidence of a shipped version: the snapshot of its version must still describe it.
        for path in stores {
            let info = try Files.existingStore(at: path)
            guard let snapshot = byVersion[info.version] else {
                issues.append(Issue(
                    severity: .error, file: nil,
                    message: "\(info.url.lastPathComponent) is at version \(info.version), which has no snapshot in the folder; record it as \(info.version).json."))
                continue
            }
            guard snapshot.schema.contentHash != info.schemaHash else { continue }
            let changes = SchemaDiff(from: info.schema, to: snapshot.schema).changes.map(\.description).joined(separator: " ")
            issues.append(Issue(
                severity: .error, file: snapshot.file,
                message: "version \(info.version) was edited after it shipped (\(info.url.lastPathComponent) was created with the original): \(changes) Restore it, and put the change in a new version."))
        }
        for stage in declared where byVersion[stage.from] == nil || byVersion[stage.to] == nil {
            issues.append(Issue(
                severity: .error, file: nil,
                message: "--stage \(stage.from):\(stage.to) names a version with no snapshot in the folder."))
        }
        return (Report(directory: folder.path, versions: versions, issues: issues), unreadable)
    }
}
