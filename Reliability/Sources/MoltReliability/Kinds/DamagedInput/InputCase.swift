import Foundation

/// A damaged or odd input file (a snapshot, a mapping, a data file) and the commands run on it.
///
/// Each command runs in a folder of its own holding a copy of the valid store (`store.sqlite`) and the case's
/// files, and must keep the contract of ``Verdict/checkFileCommand(_:before:after:readsOnly:allowed:expected:)``
/// with the case's expected statuses: every file in the folder (the store, the inputs) is compared before and
/// after, so an `ATTACH`ed or `VACUUM INTO` file appearing beside them is a change too.
struct InputCase: Sendable {
    /// The report row: `damaged-input <family>`.
    var family: String
    var name: String
    /// The files to write into the run folder (name → bytes), given that folder's path.
    var files: @Sendable (_ folder: URL) -> [String: Data]
    var runs: [InputRun]
}

/// One command of an ``InputCase``.
struct InputRun: Sendable {
    var command: String
    /// The arguments, given the run folder (the store is `store.sqlite` in it).
    var arguments: @Sendable (_ folder: URL) -> [String]
    var readsOnly: Bool
    var allowed: Set<Int32>
    var expected: String
    /// `molt check` prints its findings as a report on standard output, not as an error message.
    var reportsOnStandardOutput = false
    /// Seconds within which it must finish (a large snapshot), or nil.
    var budget: Double?
}

extension InputRun {
    /// The statuses of a refusal of bad input.
    static let refused: Set<Int32> = [Expectations.badInput]
    static let refusedText = "exit 3: a refusal of the bad input, in one line that names the problem"
}

extension InputCase {
    /// Runs one command of the case in a fresh folder and judges it.
    func check(_ run: InputRun, store: URL, runsFolder: URL, campaign: Campaign) -> CaseOutcome {
        var verdict = Verdict(row: "damaged-input \(family)", name: "\(name): \(run.command)")
        do {
            let folder = try StoreFiles.freshFolder(
                runsFolder.appendingPathComponent(StoreFiles.safeName("\(family)-\(name)-\(run.command)")))
            try StoreFiles.copy(store, to: folder.appendingPathComponent("store.sqlite"))
            for (file, data) in files(folder) {
                let url = folder.appendingPathComponent(file)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: url)
            }
            let before = FileState(of: folder)
            let result = try campaign.molt.run(run.arguments(folder))
            let after = FileState(of: folder)
            if run.reportsOnStandardOutput {
                if verdict.checkSurvived(result) {
                    verdict.checkExit(result, in: run.allowed, expected: run.expected)
                    if result.exitCode != 0, !result.stdoutText.contains("error:"), result.stderr.isEmpty {
                        verdict.fail(.wrongMessage, "a failing check must report its error", run: result)
                    }
                }
                verdict.checkUnchanged(before: before, after: after, because: "check only reads", run: result)
            } else {
                verdict.checkFileCommand(
                    result, before: before, after: after, readsOnly: run.readsOnly, allowed: run.allowed,
                    expected: run.expected)
            }
            if let budget = run.budget, !result.timedOut, result.seconds > budget {
                verdict.fail(
                    .slow, String(format: "it took %.2f s; the budget is %.1f s", result.seconds, budget), run: result)
            }
            if !verdict.failed { try? FileManager.default.removeItem(at: folder) }
        } catch {
            verdict.fail(.wrongExit, "the harness could not run this case: \(error)")
        }
        return verdict.outcome
    }
}
