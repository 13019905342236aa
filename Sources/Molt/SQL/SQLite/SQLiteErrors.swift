import Foundation
import GRDB
import GRDBSQLite

/// The one map from SQLite's result codes to ``MoltError``: every SQLite failure Molt reports goes through it.
///
/// The ``Context`` says what was going on, so that the message names the file or the migration step and the
/// fix; the code says what kind of failure it is, the same whatever was going on.
package enum SQLiteErrors {
    /// What Molt was doing when SQLite failed.
    package enum Context: Sendable {
        /// Reading or writing objects.
        case objects
        /// Opening, creating or inspecting the store at a path.
        case file(String)
        /// Running a migration step.
        case migration(from: Int, to: Int)

        /// What failed ("the store at …") and what that left ("nothing was written").
        var phrases: (subject: String, nothing: String) {
            switch self {
            case .objects: return ("the store", "the transaction was rolled back")
            case .file(let path): return ("the store at \(path)", "nothing was written")
            case .migration(let from, let to):
                return (
                    "the store",
                    "the migration from version \(from) to \(to) was rolled back and the store is still at version \(from)"
                )
            }
        }
    }

    /// The error for a GRDB `DatabaseError`.
    package static func map(_ error: DatabaseError, _ context: Context, connection: OpaquePointer? = nil) -> MoltError {
        map(
            code: error.extendedResultCode.rawValue, message: error.message ?? "\(error.resultCode)", sql: error.sql,
            systemErrno: connection.map { sqlite3_system_errno($0) }, context, cause: error)
    }

    /// The error for a result code returned by the C API on `connection`.
    package static func map(code: Int32, connection: OpaquePointer?, sql: String?, _ context: Context) -> MoltError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "SQLite error \(code)"
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let errno = connection.map { sqlite3_system_errno($0) }
        let cause = DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: sql)
        return map(code: extended, message: message, sql: sql, systemErrno: errno, context, cause: cause)
    }

    /// `error` as a ``MoltError`` when it is an SQLite error; other errors unchanged.
    package static func mapped(_ error: any Error, _ context: Context) -> any Error {
        if let error = error as? DatabaseError { return map(error, context) }
        return error
    }

    /// Whether the process may not write files past a size (`ulimit -f`, RLIMIT_FSIZE).
    static var fileSizeIsLimited: Bool {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
        #else
        let resource = RLIMIT_FSIZE
        #endif
        return getrlimit(resource, &limit) == 0 && limit.rlim_cur != rlim_t.max  // RLIM_INFINITY
    }

    static func map(
        code extended: Int32, message: String, sql: String?, systemErrno: Int32?, _ context: Context,
        cause: (any Error)?
    ) -> MoltError {
        let primary = extended & 0xFF
        let (subject, nothing) = context.phrases
        // SQLite refusing the statement itself (syntax, unknown name, constraint, type), as opposed to a failure of
        // the file, the disk or a lock: callers that ran SQL of the app's (a mapping) name their own part.
        let refused = [SQLITE_ERROR, SQLITE_CONSTRAINT, SQLITE_MISMATCH, SQLITE_RANGE, SQLITE_TOOBIG, SQLITE_AUTH]
            .contains(primary)
        let wrapped: (any Error)? = refused ? SQLStatementRefusal(message: message, cause: cause) : cause
        func error(_ code: MoltError.Code, _ text: String) -> MoltError {
            MoltError(code, text, sql: sql, cause: wrapped)
        }
        // SQLite reports ENOSPC as SQLITE_FULL, but EFBIG only as a failed write, and the errno it keeps may be
        // overwritten by the rollback that follows: a failed write under a finite `ulimit -f` is taken for it.
        let ioErrorWrite = SQLITE_IOERR | (3 << 8)  // SQLITE_IOERR_WRITE
        let tooBig = systemErrno == EFBIG || (extended == ioErrorWrite && fileSizeIsLimited)
        let fullOrTooBig = systemErrno == ENOSPC || tooBig
        switch primary {
        case SQLITE_CONSTRAINT:
            return error(.constraintViolation, "A constraint was violated: \(message).")
        case SQLITE_FULL:
            return error(
                .diskFull, "The disk is full while writing \(subject); \(nothing). Free some space and try again.")
        case SQLITE_IOERR where fullOrTooBig:
            let reason = tooBig ? "the process's file size limit (`ulimit -f`) was reached" : "the disk is full"
            return error(
                .diskFull,
                "Writing \(subject) failed because \(reason); \(nothing). Free some space (or raise the limit) and try again."
            )
        case SQLITE_TOOBIG:
            return error(
                .invalidValue,
                "A value or statement is larger than SQLite accepts (\(message)); \(nothing). Store smaller values.")
        case SQLITE_IOERR:
            return error(
                .ioError,
                "SQLite could not read or write \(subject): \(message); \(nothing). Check the disk and try again.")
        case SQLITE_INTERRUPT:
            return error(.cancelled, "The work was interrupted; \(nothing).")
        default:
            return accessFailure(primary, message: message, context, error)
        }
    }

    /// A failure to reach the store (damaged, locked, read-only, not openable) or one SQLite does not classify:
    /// the message names the file when there is one.
    private static func accessFailure(
        _ primary: Int32, message: String, _ context: Context, _ error: (MoltError.Code, String) -> MoltError
    ) -> MoltError {
        let (subject, nothing) = context.phrases
        switch primary {
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            if case .file(let path) = context {
                return error(
                    .corruptStore,
                    "The file at \(path) is not a readable Molt store: \(message). It is damaged or is not a database; restore it from a backup or choose another path. Nothing was written."
                )
            }
            return error(.corruptStore, "The store is damaged: \(message). Restore it from a backup.")
        case SQLITE_BUSY, SQLITE_LOCKED:
            if case .file(let path) = context {
                return error(
                    .locked,
                    "The store at \(path) stayed locked by another process (one migrating it takes the lock for the whole run); nothing was written. Open it again later, or raise `Store.Options.migrationWaitTimeout`."
                )
            }
            return error(
                .locked,
                "The store is locked by another connection or process (\(message)); \(nothing). Try again once it is done."
            )
        case SQLITE_READONLY:
            return error(
                .readOnly,
                "\(subject.prefix(1).uppercased() + subject.dropFirst()) cannot be written (\(message)); \(nothing). Check the file's permissions, or open it for writing."
            )
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
            if case .file(let path) = context {
                return error(
                    .ioError, "The store at \(path) cannot be opened: \(message). Check the path and its permissions.")
            }
            return error(
                .ioError, "SQLite cannot open a file it needs (\(message)); \(nothing). Check the folder's permissions."
            )
        default:
            if case .file(let path) = context {
                return error(.ioError, "SQLite failed on \(path): \(message).")
            }
            return error(.ioError, "SQLite failed: \(message).")
        }
    }
}
