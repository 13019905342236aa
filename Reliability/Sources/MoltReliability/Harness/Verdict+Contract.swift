/// The checks every command's run goes through, whatever the kind: it ends by itself, with an expected status,
/// says why when it fails, and leaves files alone when it only reads or refuses.
extension Verdict {
    /// Records a crash or a hang. Returns whether the command ended by itself with a status below 128.
    @discardableResult
    mutating func checkSurvived(_ run: ProcessRun) -> Bool {
        if run.timedOut {
            fail(.hang, String(format: "still running after %.0f s; the harness killed it", run.seconds), run: run)
            return false
        }
        if run.termination.isCrash {
            fail(.crash, "it died (\(run.termination)) instead of exiting with a documented status", run: run)
            return false
        }
        return true
    }

    /// Records a wrong exit status (only for a run that ended by itself).
    mutating func checkExit(_ run: ProcessRun, in allowed: Set<Int32>, expected: String) {
        guard !run.timedOut, !run.termination.isCrash, let code = run.exitCode else { return }
        if !allowed.contains(code) { fail(.wrongExit, "expected \(expected), got exit \(code)", run: run) }
    }

    /// A failing command says why on standard error; with exit 3 (bad input) in exactly one line, `error: …`.
    mutating func checkMessage(_ run: ProcessRun) {
        guard !run.timedOut, let code = run.exitCode, code != 0, code < 128 else { return }
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        if lines.isEmpty {
            fail(.wrongMessage, "exit \(code) without a message on standard error", run: run)
        } else if code == Expectations.badInput, lines.count != 1 || !lines[0].hasPrefix("error: ") {
            fail(
                .wrongMessage, "exit 3 (bad input) must print one line `error: …`; it printed \(lines.count) line(s)",
                run: run)
        }
    }

    /// Records every file that changed, appeared or vanished between the two states.
    mutating func checkUnchanged(before: FileState, after: FileState, because reason: String, run: ProcessRun?) {
        let changes = after.changes(since: before)
        if !changes.isEmpty { fail(.changed, "\(reason), but \(changes.joined(separator: "; "))", run: run) }
    }

    /// The contract of a command run on a damaged or odd file: no crash, no hang, a documented status other than a
    /// usage error (or one of `allowed` when given), a message when it fails, and no file changed when it only
    /// reads or when it refused.
    ///
    /// - Returns: Whether the command succeeded (exit 0).
    @discardableResult
    mutating func checkFileCommand(
        _ run: ProcessRun, before: FileState, after: FileState, readsOnly: Bool, allowed: Set<Int32>? = nil,
        expected: String? = nil
    ) -> Bool {
        let survived = checkSurvived(run)
        if survived {
            let allowed = allowed ?? Expectations.exitsForFileProblems
            checkExit(
                run, in: allowed,
                expected: expected ?? "one of \(allowed.sorted().map(String.init).joined(separator: ", "))")
            checkMessage(run)
        }
        let succeeded = survived && run.exitCode == 0
        if readsOnly {
            checkUnchanged(before: before, after: after, because: "a read command must write nothing", run: run)
        } else if !succeeded {
            checkUnchanged(
                before: before, after: after, because: "a refused or failed command must leave the files as they were",
                run: run)
        }
        return succeeded
    }
}
