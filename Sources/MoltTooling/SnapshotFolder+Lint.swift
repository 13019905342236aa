import Foundation
import Molt

extension SnapshotFolder {
    /// One problem ``lint(stages:shipped:)`` found: an error, or a warning that does not fail a check.
    package struct LintIssue: Hashable, Sendable {
        /// How serious a problem is.
        package enum Severity: String, Hashable, Sendable {
            /// The folder cannot be trusted as it is: a store could fail to open, or open wrong.
            case error
            /// Worth a look: data a step deletes, a stage Molt does not need.
            case warning
        }

        /// How serious it is.
        package var severity: Severity
        /// The file it is about, if one is.
        package var file: String?
        /// What is wrong, and the fix.
        package var message: String

        /// Creates an issue.
        package init(_ severity: Severity, file: String? = nil, _ message: String) {
            self.severity = severity
            self.file = file
            self.message = message
        }
    }

    /// What ``lint(stages:shipped:)`` found.
    package struct Lint: Sendable {
        /// The versions recorded, oldest first, one per version however many files hold it.
        package var versions: [Int]
        /// Every problem, errors and warnings, in the order found.
        package var issues: [LintIssue]
        /// Whether some file could not be read as a schema at all.
        package var hasUnreadableFile: Bool
        /// The recorded schema of each version, with its file's name.
        package var snapshots: [Int: (file: String, schema: Schema)]

        /// The number of errors.
        package var errorCount: Int { issues.filter { $0.severity == .error }.count }
        /// The number of warnings.
        package var warningCount: Int { issues.filter { $0.severity == .warning }.count }
    }

    /// A store created by a shipped version, as evidence of what that version was.
    package struct ShippedStore: Sendable {
        /// The store's file name, for messages.
        package var name: String
        /// The schema recorded in the store.
        package var schema: Schema

        /// Evidence from a store: its name and its recorded schema (``StoreInfo/schema``).
        package init(name: String, schema: Schema) {
            self.name = name
            self.schema = schema
        }
    }

    /// Checks the folder as a chain of shipped versions.
    ///
    /// Errors: a file that does not read as a valid schema, a file whose name is not its version (or not
    /// written as Molt writes it), two files for one version, versions missing between two others, a step
    /// between consecutive versions that Molt cannot infer and that no stage in `stages` covers, a stage that
    /// names a version with no snapshot, and a version whose snapshot no longer matches a store it shipped
    /// (`shipped`). Warnings: steps that delete data, likely renames, declared stages over steps Molt could
    /// infer, and steps whose success depends on the data (``SchemaDiff/dataDependencies(_:)``: an empty store
    /// migrates, a user's store holding the data named is refused; a step that `stages` covers is checked as a
    /// stage). They are warnings, not errors: whether such data exists is the app's to know, and MoltTesting's
    /// `MigrationTester` proves it either way. Huge version numbers are reported, never enumerated.
    ///
    /// ```swift
    /// let lint = SnapshotFolder(folder).lint(stages: [3...4])
    /// for issue in lint.issues { print(issue.severity, issue.file ?? "", issue.message) }
    /// ```
    ///
    /// - Parameters:
    ///   - stages: The steps the app covers with a custom stage, as `from...to`.
    ///   - shipped: Stores created by shipped versions.
    /// - Returns: The versions and the issues.
    package func lint(stages: [ClosedRange<Int>] = [], shipped: [ShippedStore] = []) -> Lint {
        var lint = readForLint()
        // A mapping file `<from>-to-<to>.mapping.json` is the stage of its step, as a `--stage from:to` is.
        var stages = stages
        do {
            for step in try mappingSteps() {
                let name = mappingURL(from: step.from, to: step.to).lastPathComponent
                if lint.snapshots[step.from] == nil || lint.snapshots[step.to] == nil {
                    lint.issues.append(
                        LintIssue(
                            .error, file: name,
                            "it maps step \(step.from) → \(step.to), but the folder has no snapshot of version \(lint.snapshots[step.from] == nil ? step.from : step.to); add it, or rename the file after the step it maps."
                        ))
                    continue
                }
                stages.append(step.from...step.to)
            }
        } catch let error as MoltError {
            lint.issues.append(LintIssue(.error, error.message))
        } catch {
            lint.issues.append(LintIssue(.error, "\(error)"))
        }
        for (from, to) in zip(lint.versions, lint.versions.dropFirst()) {
            lint.issues += Self.lintStep(lint.snapshots[from]!, lint.snapshots[to]!, stages: stages)
        }
        for store in shipped {
            guard let snapshot = lint.snapshots[store.schema.version] else {
                lint.issues.append(
                    LintIssue(
                        .error,
                        "\(store.name) is at version \(store.schema.version), which has no snapshot in the folder; record it as \(Self.fileName(version: store.schema.version))."
                    ))
                continue
            }
            guard snapshot.schema.contentHash != store.schema.contentHash else { continue }
            let changes = SchemaDiff(from: store.schema, to: snapshot.schema).changes.map(\.description).joined(
                separator: " ")
            lint.issues.append(
                LintIssue(
                    .error, file: snapshot.file,
                    "version \(store.schema.version) was edited after it shipped (\(store.name) was created with the original): \(changes) Restore it, and put the change in a new version."
                ))
        }
        for stage in stages where lint.snapshots[stage.lowerBound] == nil || lint.snapshots[stage.upperBound] == nil {
            lint.issues.append(
                LintIssue(
                    .error,
                    "--stage \(stage.lowerBound):\(stage.upperBound) names a version with no snapshot in the folder."))
        }
        return lint
    }

    /// Reads every `.json` file: one snapshot per version, and the issues of names and contents.
    private func readForLint() -> Lint {
        // By version, the name Molt writes (`1.json`) before variants (`01.json`), so that those are the duplicates.
        func key(_ name: String) -> (Int, Int, String) {
            let number = Int(name.dropLast(5))
            return (number ?? .max, name == number.map { "\($0).json" } ? 0 : 1, name)
        }
        var lint = Lint(versions: [], issues: [], hasUnreadableFile: false, snapshots: [:])
        for name in jsonFileNames().sorted(by: { key($0) < key($1) }) {
            guard let number = Int(name.dropLast(5)) else {
                lint.issues.append(
                    LintIssue(.error, file: name, "the name is not a version number; name snapshots `<version>.json`."))
                continue
            }
            let schema: Schema
            do {
                schema = try Schema(snapshotJSON: Data(contentsOf: directory.appendingPathComponent(name)))
            } catch let error as MoltError {
                lint.issues.append(LintIssue(.error, file: name, error.message))
                lint.hasUnreadableFile = true
                continue
            } catch {
                lint.issues.append(LintIssue(.error, file: name, "it cannot be read: \(error.localizedDescription)"))
                lint.hasUnreadableFile = true
                continue
            }
            let canonical = Self.fileName(version: schema.version)
            if schema.version != number {
                lint.issues.append(
                    LintIssue(
                        .error, file: name,
                        "it holds version \(schema.version), but its name says \(number); rename it \(canonical) or fix its version."
                    ))
            }
            if let other = lint.snapshots[schema.version] {
                lint.issues.append(
                    LintIssue(
                        .error, file: name,
                        "version \(schema.version) is also in \(other.file); keep one snapshot per version."))
                continue
            }
            if schema.version == number && name != canonical {
                lint.issues.append(
                    LintIssue(
                        .error, file: name,
                        "the name is not written as Molt writes version \(number); rename it \(canonical)."))
            }
            lint.snapshots[schema.version] = (name, schema)
        }
        lint.versions = lint.snapshots.keys.sorted()
        return lint
    }

    /// The issues of the step between two consecutive recorded versions.
    private static func lintStep(
        _ old: (file: String, schema: Schema), _ new: (file: String, schema: Schema), stages: [ClosedRange<Int>]
    ) -> [LintIssue] {
        let (from, to) = (old.schema.version, new.schema.version)
        var issues: [LintIssue] = []
        if let missing = missingVersions(after: from, before: to) {
            issues.append(
                LintIssue(
                    .error,
                    "\(missing) missing between \(old.file) and \(new.file); keep the snapshot of every version you shipped."
                ))
        }
        let diff = SchemaDiff(from: old.schema, to: new.schema)
        if !stages.contains(where: { $0.lowerBound <= from && $0.upperBound >= to }) {
            for refusal in diff.refusals {
                issues.append(
                    LintIssue(
                        .error, file: new.file,
                        "step \(from) → \(to) cannot be inferred and no --stage covers it: \(refusal)"))
            }
        } else if diff.isInferable && stages.contains(from...to) {
            issues.append(
                LintIssue(
                    .warning, file: new.file,
                    "step \(from) → \(to) has a declared stage, but Molt can infer it; the stage is only needed if it changes values."
                ))
        }
        for change in diff.changes where change.isDestructive {
            issues.append(
                LintIssue(.warning, file: new.file, "step \(from) → \(to) deletes data: \(change.description)"))
        }
        for rename in diff.likelyRenames {
            issues.append(LintIssue(.warning, file: new.file, "step \(from) → \(to): \(rename.fix(inFile: new.file))"))
        }
        for move in diff.likelyMoves {
            issues.append(LintIssue(.warning, file: new.file, "step \(from) → \(to): \(move.fix(from: from, to: to))"))
        }
        let form: SchemaDiff.StepForm =
            stages.contains { $0.lowerBound <= from && $0.upperBound >= to } ? .stage : .inferred
        for dependency in diff.dataDependencies(form) {
            issues.append(LintIssue(.warning, file: new.file, dependency.description))
        }
        return issues
    }

    /// "version 2", "versions 2, 3", or "versions 2 to 99 (98 versions)" for the versions strictly between two
    /// recorded ones; nil when there are none. Never lists more than a few, whatever the gap.
    static func missingVersions(after from: Int, before to: Int) -> String? {
        guard to > from + 1 else { return nil }
        let count = to - from - 1
        if count == 1 { return "version \(from + 1)" }
        if count <= 5 { return "versions " + (from + 1..<to).map(String.init).joined(separator: ", ") }
        return "versions \(from + 1) to \(to - 1) (\(count) versions)"
    }
}
