/// Why a case failed. A case may fail in several classes at once (it crashed and changed the file); the report
/// counts it in each.
enum FailureClass: String, CaseIterable, Codable, Sendable {
    /// Killed by a signal, or an exit status of 128 or more (a Swift trap is SIGILL, exit 132 in a shell).
    case crash
    /// Still running at the time limit; the harness killed it.
    case hang
    /// A file changed (or appeared, or vanished) although the command only reads, or refused.
    case changed
    /// An exit status other than the one the contract asks for.
    case wrongExit = "wrong-exit"
    /// The message is missing, not one line, or does not say what the contract asks for.
    case wrongMessage = "wrong-message"
    /// The store reads back at a version, but its objects differ from the ones that version must hold.
    case lostData = "lost-data"
    /// The store is at neither the old nor the new version: unreadable, damaged, or a read saw half of a migration.
    case neitherVersion = "neither-version"
    /// The work finished, but past its time budget (a 10k-entity snapshot, a migration starved by readers).
    case slow
}

/// One failure of a case: its class, what was expected and seen, and how to reproduce it.
struct Failure: Codable, Sendable {
    var failureClass: FailureClass
    /// What was expected and what happened instead, in one or two sentences.
    var detail: String
    /// The command that failed, as one shell line.
    var command: String?
    /// How the command ended: `exit 1`, `killed by SIGILL (4)`.
    var outcome: String?
    /// What it printed, shortened.
    var output: String?

    enum CodingKeys: String, CodingKey {
        case failureClass = "class", detail, command, outcome, output
    }
}

/// The result of one case: a command run (or a trial, or a round) and its checks.
struct CaseOutcome: Codable, Sendable {
    /// The report row it belongs to, such as `sigkill rebuild` or `damaged-store metadata`.
    var row: String
    /// What the case was, such as `metadata-schemaVersion-null: info`.
    var name: String
    var failures: [Failure] = []

    var passed: Bool { failures.isEmpty }
    var classes: Set<FailureClass> { Set(failures.map(\.failureClass)) }
}

/// Collects the failures of one case.
///
/// ```swift
/// var verdict = Verdict(row: "rerun", name: "mapping, WAL")
/// verdict.fail(.wrongExit, "a re-run must exit 0", run: run)
/// outcomes.append(verdict.outcome)
/// ```
struct Verdict {
    var outcome: CaseOutcome

    init(row: String, name: String) {
        outcome = CaseOutcome(row: row, name: name)
    }

    var failed: Bool { !outcome.failures.isEmpty }

    /// Records a failure, with the command, how it ended and what it printed when a run is given.
    mutating func fail(_ failureClass: FailureClass, _ detail: String, run: ProcessRun? = nil) {
        outcome.failures.append(
            Failure(
                failureClass: failureClass, detail: detail, command: run?.commandLine, outcome: run?.outcome,
                output: run?.excerpt))
    }
}

/// What a kind hands back: its cases, the rows they belong to (in report order), rows it skipped and why, and
/// notes worth printing under the table (durations, counts).
struct KindResult: Sendable {
    var rows: [String] = []
    var outcomes: [CaseOutcome] = []
    var skipped: [String: String] = [:]
    var notes: [String] = []

    mutating func add(_ outcome: CaseOutcome) {
        if !rows.contains(outcome.row) { rows.append(outcome.row) }
        outcomes.append(outcome)
    }

    mutating func add(_ verdict: Verdict) { add(verdict.outcome) }

    mutating func skip(_ row: String, because reason: String) {
        if !rows.contains(row) { rows.append(row) }
        skipped[row] = reason
    }

    mutating func merge(_ other: KindResult) {
        for row in other.rows where !rows.contains(row) { rows.append(row) }
        outcomes += other.outcomes
        skipped.merge(other.skipped) { $1 }
        notes += other.notes
    }
}

/// An error of the harness itself (a fixture that could not be built, a missing tool), not a finding about molt.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
