import Foundation
import Logging
import Molt
import NIOCore
import NIOPosix
import PostgresNIO

/// One postgres-nio connection used synchronously: each statement is sent on the connection's event loop and
/// the calling thread waits for its result.
///
/// Only threads that are neither NIO event loops nor Swift's cooperative pool call it: the store's own serial
/// queue (``PostgresStoreDatabase``'s async reads and writes), the thread `Store.open` runs on, or the app's
/// thread that called a synchronous API, as with SQLite.
final class PostgresLink: @unchecked Sendable {
    let connection: PostgresConnection
    let logger: Logger
    /// Called with the SQL of every statement, for dry runs.
    var observer: (@Sendable (String) -> Void)?
    private var rewritten: [String: String] = [:]

    private init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Connects and prepares the session: `search_path` to the store's namespace only, shortest exact
    /// doubles, UTC.
    static func connect(_ configuration: PostgresConnection.Configuration, namespace: String, context: PostgresErrors.Context) throws -> PostgresLink {
        var logger = Logger(label: "molt.postgres")
        logger.logLevel = .critical
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1, logger: logger
            ).wait()
        } catch {
            throw PostgresErrors.map(error, context)
        }
        let link = PostgresLink(connection: connection, logger: logger)
        do {
            let path = PostgresDialect.shared.quote(namespace)
            _ = try link.run("SET search_path TO \(path)", [], context: context)
            _ = try link.run("SET extra_float_digits = 1", [], context: context)
            _ = try link.run("SET TIME ZONE 'UTC'", [], context: context)
        } catch {
            link.close()
            throw error
        }
        return link
    }

    /// The statement with `$n` placeholders, rewritten once per SQL text.
    func numbered(_ sql: String) -> String {
        if let done = rewritten[sql] { return done }
        let result = PostgresPlaceholders.rewrite(sql).sql
        if rewritten.count > 512 { rewritten.removeAll() }
        rewritten[sql] = result
        return result
    }

    /// Runs one statement and returns its rows and the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [Value], context: PostgresErrors.Context = .objects) throws -> (rows: [PostgresRow], count: Int) {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments { try PostgresValueCodec.append(argument, to: &bindings) }
        observer?(sql)
        if Self.traces { FileHandle.standardError.write(Data("molt.postgres: \(sql)\n".utf8)) }
        let query = PostgresQuery(unsafeSQL: numbered(sql), binds: bindings)
        do {
            let result = try connection.query(query, logger: logger).wait()
            return (result.rows, result.metadata.rows ?? 0)
        } catch {
            throw PostgresErrors.map(error, context, sql: sql)
        }
    }

    /// Runs a statement (or several, separated by semicolons) without arguments and without results, through
    /// the simple query protocol.
    func script(_ sql: String, context: PostgresErrors.Context = .objects) throws {
        observer?(sql)
        do {
            _ = try connection.simpleQuery(sql).wait()
        } catch {
            throw PostgresErrors.map(error, context, sql: sql)
        }
    }

    /// `MOLT_POSTGRES_TRACE=1` prints every statement to the standard error, for debugging.
    static let traces = ProcessInfo.processInfo.environment["MOLT_POSTGRES_TRACE"] == "1"

    func close() {
        try? connection.close().wait()
    }

    var isClosed: Bool { connection.isClosed }
}
