import Foundation
import Molt
import PostgresNIO

/// The one map from PostgreSQL's errors (SQLSTATE codes, and the client's own connection failures) to
/// ``MoltError``: every PostgreSQL failure Molt reports goes through it.
///
/// When the server refused a statement itself (a syntax error, an unknown name, a violated constraint, a value
/// of the wrong type), the cause is a ``SQLStatementRefusal`` wrapping the server's error, as SQLite's map does,
/// so that the code that ran SQL of the app's (a mapping) names its own part.
package enum PostgresErrors {
    /// What Molt was doing when PostgreSQL failed.
    package enum Context: Sendable {
        /// Reading or writing objects.
        case objects
        /// Connecting to, opening or inspecting the store at a location.
        case location(String)
    }

    /// The error for anything postgres-nio threw; other errors unchanged.
    package static func map(_ error: any Error, _ context: Context, sql: String? = nil) -> any Error {
        if error is MoltError { return error }
        guard let error = error as? PSQLError else { return error }
        return map(error, context, sql: sql)
    }

    /// The error for a `PSQLError`.
    package static func map(_ error: PSQLError, _ context: Context, sql: String?) -> MoltError {
        guard let info = error.serverInfo, let state = info[.sqlState] else {
            return connectionFailure(error, context, sql: sql)
        }
        var message = info[.message] ?? "error \(state)"
        if let detail = info[.detail] { message += " (\(detail))" }
        message =
            constraintMessage(state, table: info[.tableName], column: info[.columnName], detail: info[.detail])
            ?? message
        return map(sqlState: state, message: message, context, sql: sql, cause: error)
    }

    /// A violated constraint in the words SQLite uses (`UNIQUE constraint failed: Book.isbn`), so that a refusal
    /// reads the same on both engines.
    static func constraintMessage(_ state: String, table: String?, column: String?, detail: String?) -> String? {
        switch state {
        case "23505":
            // detail: Key (isbn, title)=(…) already exists.
            guard let table, let detail, let open = detail.firstIndex(of: "("), let close = detail.firstIndex(of: ")")
            else { return nil }
            let columns = detail[detail.index(after: open)..<close].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            return "UNIQUE constraint failed: "
                + columns.map { "\(table).\($0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))" }.joined(
                    separator: ", ")
        case "23502":
            guard let table, let column else { return nil }
            return "NOT NULL constraint failed: \(table).\(column)"
        case "23503":
            return "FOREIGN KEY constraint failed"
        default:
            return nil
        }
    }

    static func map(
        sqlState state: String, message: String, _ context: Context, sql: String?, cause: any Error
    ) -> MoltError {
        let (subject, nothing): (String, String)
        switch context {
        case .objects: (subject, nothing) = ("the store", "the transaction was rolled back")
        case .location(let location): (subject, nothing) = ("the store at \(location)", "nothing was written")
        }
        let refused = ["42", "23", "22", "2B", "44"].contains(String(state.prefix(2)))
        let wrapped: any Error = refused ? SQLStatementRefusal(message: message, cause: cause) : cause
        func error(_ code: MoltError.Code, _ text: String) -> MoltError {
            MoltError(code, text, sql: sql, cause: wrapped)
        }
        switch state {
        case "23505", "23503", "23502", "23514", "23P01", "23000", "23001":
            return error(.constraintViolation, "A constraint was violated: \(message).")
        case "53100":
            return error(
                .diskFull,
                "The server's disk is full while writing \(subject); \(nothing). Free some space on the server and try again."
            )
        case "55P03", "40P01", "40001":
            return error(
                .locked,
                "\(capitalized(subject)) is locked by another session (\(message)); \(nothing). Try again once it is done, or raise the wait with `PostgresStoreOptions.lockTimeout`."
            )
        case "57014":
            return error(.cancelled, "The work was cancelled (\(message)); \(nothing).")
        case "25006":
            return error(
                .readOnly,
                "\(capitalized(subject)) cannot be written in a read-only transaction; \(nothing). Open it for writing."
            )
        case "3D000":
            return error(
                .storeNotFound,
                "The database of \(subject) does not exist (\(message)). Create it (`createdb`) or check the URL.")
        case "42501":
            return error(
                .ioError,
                "PostgreSQL refused access to \(subject): \(message). Grant the user the privileges it needs, or connect as another user."
            )
        default:
            return classFailure(state, message: message, subject: subject, nothing: nothing, error)
        }
    }

    /// A failure known by its class only (the first two characters of its SQLSTATE): a login, the server, its
    /// resources, a value.
    private static func classFailure(
        _ state: String, message: String, subject: String, nothing: String,
        _ error: (MoltError.Code, String) -> MoltError
    ) -> MoltError {
        switch state.prefix(2) {
        case "28":
            return error(
                .ioError,
                "PostgreSQL refused the login to \(subject): \(message). Check the user and password of the URL.")
        case "08", "57", "58", "XX":
            return error(
                .ioError, "PostgreSQL failed on \(subject): \(message); \(nothing). Check the server and try again."
            )
        case "53":
            return error(
                .ioError,
                "The server ran out of resources on \(subject): \(message); \(nothing). Try again later, or raise the server's limits."
            )
        case "22":
            return error(.invalidValue, "PostgreSQL refused a value: \(message); \(nothing).")
        default:
            return error(.ioError, "PostgreSQL failed: \(message).")
        }
    }

    /// A failure of the connection itself: no server answered, the connection dropped, a login mechanism
    /// postgres-nio does not speak.
    static func connectionFailure(_ error: PSQLError, _ context: Context, sql: String?) -> MoltError {
        let subject: String
        switch context {
        case .objects: subject = "the store's server"
        case .location(let location): subject = "the PostgreSQL server of \(location)"
        }
        let what: String
        switch error.code {
        case .authMechanismRequiresPassword:
            what = "it asks for a password the URL does not give. Add the password to the URL"
        case .unsupportedAuthMechanism:
            what = "it asks for a login mechanism postgres-nio does not support. Use scram-sha-256, md5 or trust"
        case .serverClosedConnection, .clientClosedConnection:
            what = "the connection was closed. Check the server and open the store again"
        default:
            what =
                "\(error.underlying.map { "\($0)" } ?? "\(error.code)"). Check the host, the port and that the server runs"
        }
        return MoltError(
            .ioError, "Molt could not use \(subject): \(what); nothing was written.", sql: sql, cause: error)
    }

    private static func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
