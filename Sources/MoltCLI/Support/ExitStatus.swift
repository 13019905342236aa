import ArgumentParser
import Molt

/// The exit codes of `molt`, the same for every command so that scripts can rely on them. What each means is
/// said once, in ``meaning``; `molt --help` prints the table made of them (``helpText``).
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 2
    case badInput = 3
    case versionConflict = 4
    case notInferable = 5

    /// The exit status for an error thrown by the Molt library.
    init(for error: MoltError) {
        switch error.code {
        case .invalidSchema, .notAMoltStore, .corruptStore, .storeNotFound, .unsupportedFormat, .invalidValue,
            .needsRecovery:
            self = .badInput
        case .storeIsNewer, .schemaChangedWithoutVersionBump:
            self = .versionConflict
        case .migrationNotInferable, .invalidPlan, .dataLossRefused:
            self = .notInferable
        default:
            self = .failure
        }
    }

    var exitCode: ExitCode { ExitCode(rawValue) }

    /// What the status tells a script, as `molt --help` lists it.
    var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "the work failed (a migration step, its validation, the disk), or `check` found errors"
        case .usage: "usage error (unknown option, missing argument, value out of range)"
        case .badInput:
            "bad input file: no such file, not a Molt store, damaged file, a journal left by a dead writer (for a read command), invalid JSON, invalid schema"
        case .versionConflict:
            "version conflict: the store is newer than the schema, or a version changed without a bump"
        case .notInferable:
            "the migration cannot be inferred: a step needs a custom stage, a mapping or a declared deletion"
        }
    }

    /// The table printed in `molt --help`: every status and its ``meaning``.
    static var helpText: String {
        (["Exit codes:"] + allCases.map { "  \($0.rawValue)  \($0.meaning)" }).joined(separator: "\n")
    }
}

/// An error of the command line itself (a missing input file, a bad data file), with its exit status.
///
/// Like ``MoltError``, its message is one line that names the problem and what to do.
struct CLIFailure: Error, CustomStringConvertible {
    var message: String
    var status: ExitStatus

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { message }
}
