import Foundation
import Logging
import NIOPosix
import PostgresNIO

/// The hand-written custom stage on PostgreSQL that `pg-enumerate-objects` compares Molt with, written the
/// fastest way postgres-nio allows: one connection, one transaction; `ALTER TABLE … ADD COLUMN "fullName"`;
/// a server-side cursor (`DECLARE … NO SCROLL CURSOR FOR SELECT "_id", "firstName", "lastName"`) read with
/// `FETCH 1024` (the batch size of Molt's reader), rows decoded by postgres-nio's typed `decode`, the full name
/// built in Swift as Molt's stage builds it; then per batch **one** statement,
/// `UPDATE … SET "fullName" = v.f FROM unnest($1::bigint[], $2::text[]) AS v(id, f) WHERE "_id" = v.id`, with
/// the batch's identifiers and names bound as two arrays (one round trip per 1,024 rows, one statement text
/// rather than a `VALUES` list of 2,048 placeholders to parse); `COMMIT`.
///
/// The cursor sees the table as it was when it was declared: the updates of the same transaction come later,
/// so it never meets a row it updated.
enum PostgresCursorLoop {
    static let batch = 1024

    /// Runs the loop on the store `namespace` of the database at `server` and returns when it committed.
    static func run(server: URL, namespace: String) async throws {
        var logger = Logger(label: "molt-benchmarks.postgres")
        logger.logLevel = .critical
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: try configuration(server), id: 1,
            logger: logger)
        do {
            let table = "\(PostgresStores.quote(namespace)).\"Person\""
            try await connection.query("BEGIN", logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: #"ALTER TABLE \#(table) ADD COLUMN "fullName" text COLLATE "C""#),
                logger: logger)
            try await connection.query(
                PostgresQuery(
                    unsafeSQL:
                        #"DECLARE people NO SCROLL CURSOR FOR SELECT "_id", "firstName", "lastName" FROM \#(table)"#),
                logger: logger)
            let update =
                #"UPDATE \#(table) AS p SET "fullName" = v.f FROM unnest($1::bigint[], $2::text[]) AS v(id, f) WHERE p."_id" = v.id"#
            let fetch = PostgresQuery(unsafeSQL: "FETCH \(batch) FROM people")
            var ids: [Int64] = []
            var names: [String] = []
            ids.reserveCapacity(batch)
            names.reserveCapacity(batch)
            while true {
                ids.removeAll(keepingCapacity: true)
                names.removeAll(keepingCapacity: true)
                let rows = try await connection.query(fetch, logger: logger)
                for try await (id, first, last) in rows.decode((Int64, String, String).self) {
                    ids.append(id)
                    names.append(first + " " + last)
                }
                if ids.isEmpty { break }
                var binds = PostgresBindings(capacity: 2)
                binds.append(ids)
                binds.append(names)
                try await connection.query(PostgresQuery(unsafeSQL: update, binds: binds), logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// postgres-nio's configuration for a `postgres://user:password@host:port/database` URL (no TLS: the server
    /// is local).
    static func configuration(_ url: URL) throws -> PostgresConnection.Configuration {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw BenchmarkError(description: "\(PostgresStores.variable) is not a URL: \(url)")
        }
        return PostgresConnection.Configuration(
            host: components.host ?? "localhost", port: components.port ?? 5432,
            username: components.user ?? "postgres",
            password: components.password, database: components.path.split(separator: "/").first.map(String.init),
            tls: .disable)
    }
}

/// Runs async work to its end from synchronous code (the harness's jobs), on Swift's cooperative pool.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// Where ``blocking(_:)``'s task leaves its result for the waiting thread (the semaphore orders the accesses).
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
