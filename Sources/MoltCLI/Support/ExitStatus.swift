import ArgumentParser
import Molt

/// The exit codes of `molt`, the same for every command so that scripts can rely on them.
///
/// | Code | Meaning |
/// |------|---------|
/// | 0 | Success. |
/// | 1 | The work failed: a migration step, the validation of its result, the disk; or `molt check` found errors. |
/// | 2 | Usage error: an unknown option, a missing argument, a value out of range. |
/// | 3 | Bad input file: no such file, not a Molt store, a damaged file, a journal left by a dead writer (for a read command), invalid JSON, a schema that does not validate. |
/// | 4 | Version conflict: the store is newer than the schema, or its version's schema was changed without a bump. |
/// | 5 | The migration cannot be inferred: a step needs a custom stage, a mapping or a declared deletion. |
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
        case .invalidSchema, .notAMoltStore, .corruptStore, .storeNotFound, .unsupportedFormat, .invalidValue, .needsRecovery:
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

    /// The table printed in `molt --help`.
    static let helpText = """
        Exit codes:
          0  success
          1  the work failed (a migration step, its validation, the disk), or `check` found errors
          2  usage error (unknown option, missing argument, value out of range)
          3  bad input file: no such file, not a Molt store, damaged file, invalid JSON, invalid schema
          4  version conflict: the store is newer than the schema, or a version changed without a bump
          5  the migration cannot be inferred: a step needs a custom stage, a mapping or a declared deletion
        """
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
