import ArgumentParser
import Foundation
import Molt
import MoltTooling

/// `molt check DIR [--stage FROM:TO]… [--json]`: lints a folder of schema snapshots named by version (`0.json`,
/// `1.json`, …).
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Lint a folder of schema snapshots (0.json, 1.json, …): gaps, duplicates, steps that need code, edits.",
        discussion: """
            Errors: a file that does not read as a valid schema, a file whose name is not the version inside it, \
            two files for one version, a version missing between two others, and a step between consecutive \
            versions that Molt cannot infer and that no --stage declares nor a mapping file of the folder covers \
            (FROM-to-TO.mapping.json, the stage `migrate --to DIR` runs), and a version edited after it shipped (its \
            snapshot no longer matches a store given with --against). Warnings: changes that delete data, \
            declared stages over steps Molt could infer, and steps whose success depends on the data (an empty \
            store migrates, a user's store holding the data named is refused: a null where an attribute becomes \
            required, two equal values where one becomes unique, an integer beyond 2^53 widened to double…). \
            Exits 1 when there is an error (3 when a file cannot be read at all), 0 otherwise.

            Given a store file instead of a folder, checks the store itself: SQLite's integrity_check of every page \
            and index, foreign_key_check of every link, and Molt's metadata and history; it reads the whole file \
            and writes nothing. Exits 0 when the store is sound, 3 when it is damaged.
            """)

    @Argument(help: ArgumentHelp("The folder of snapshots, or a store file to check.", valueName: "dir-or-store"))
    var directory: String

    @Option(
        name: .customLong("stage"),
        help: ArgumentHelp(
            "A step that the app covers with a custom stage, as FROM:TO (repeatable).", valueName: "from:to"))
    var stages: [String] = []

    @Option(
        name: .customLong("against"),
        help: ArgumentHelp(
            "A store created by a shipped version (repeatable): its version's snapshot must not have been edited since.",
            valueName: "store"))
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
            throw ValidationError(
                "--stage '\(stage)' is not FROM:TO with two versions, the second greater (for example 4:5).")
        }
    }

    static func parseStage(_ text: String) -> (from: Int, to: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let from = Int(parts[0]), let to = Int(parts[1]), from >= 0, to > from else {
            return nil
        }
        return (from, to)
    }

    func run() throws {
        if Self.namesStoreFile(directory) { return try checkStore(directory) }
        let folder = Files.url(directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw CLIFailure(
                .badInput, "There is no folder at \(folder.path). Give the folder that holds the snapshots.")
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
                "Checked \(Format.count(report.versions.count, "version"))\(versions.isEmpty ? "" : " (\(versions))"): \(Format.count(report.errors, "error")), \(Format.count(report.warnings, "warning"))."
            )
        }
        if unreadable { throw ExitStatus.badInput.exitCode }
        if report.errors > 0 { throw ExitStatus.failure.exitCode }
    }

    /// Lints the folder (``SnapshotFolder/lint(stages:shipped:)``), with the stores given by `--against` as
    /// evidence of shipped versions.
    func lint(_ folder: URL) throws -> (Report, unreadable: Bool) {
        let shipped = try stores.map { path in
            let info = try Files.existingStore(at: path)
            return SnapshotFolder.ShippedStore(name: info.url.lastPathComponent, schema: info.schema)
        }
        let declared = stages.compactMap(Self.parseStage).map { $0.from...$0.to }
        let snapshots = SnapshotFolder(folder)
        let lint = snapshots.lint(stages: declared, shipped: shipped)
        var issues = lint.issues.map { issue in
            Issue(severity: issue.severity == .error ? .error : .warning, file: issue.file, message: issue.message)
        }
        // A step's mapping file must read as `migrate --to DIR` will read it (its misnamed files are in the lint).
        for step in (try? snapshots.mappingSteps()) ?? [] {
            do {
                _ = try MappingFile.mappings(at: snapshots.mappingURL(from: step.from, to: step.to))
            } catch let failure as CLIFailure {
                issues.append(Issue(severity: .error, file: nil, message: failure.message))
            }
        }
        return (Report(directory: folder.path, versions: lint.versions, issues: issues), lint.hasUnreadableFile)
    }
}
