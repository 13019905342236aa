import Foundation
import Logging
import Molt
import MoltPostgres
import NIOPosix
import PostgresNIO

/// A server's reads on PostgreSQL (issue 21): 16 concurrent tasks reading items by `_id` from a store of 100k,
/// through `try await store.read { try $0.object("Item", id: id) }` on a store with a pool of 16 sessions, must
/// reach at least 0.8× the throughput of a postgres-nio `PostgresClient` of 16 connections running the same
/// `SELECT` (Molt's own text, which `readSQL` repeats) and decoding the same columns, in the same run: Molt's
/// time for the same reads at most 1.25× the baseline's.
///
/// Every round reads the same pseudo-random identifiers (a fixed seed), `reads` in all, split over the tasks;
/// both sides open their pool before the clock starts and warm every connection with one read each.
struct PostgresConcurrentReads: Scenario {
    let name = "pg-concurrent-reads"
    let summary = "PostgreSQL: 16 tasks reading items by id, Molt's pool vs a postgres-nio PostgresClient of 16"
    static let tasks = 16

    func run(_ runner: Runner) throws -> [Comparison] {
        guard let server = PostgresStores.serverURL else {
            log("  \(PostgresStores.skipReason)")
            return []
        }
        let stores = try PostgresStores.items(runner, server: server)
        let count = stores.counts.small
        let reads = runner.quick ? 2_000 : 40_000
        var generator = SplitMix(seed: 21)
        let ids = (0..<reads).map { _ in Int64(generator.next() % UInt64(count)) + 1 }
        let m = try stores.measure(
            [
                Self.moltJob(count: count, ids: ids, lookup: true),
                Self.moltJob(count: count, ids: ids, lookup: false),
                Runner.Job(count: count) { url, stopwatch in
                    let namespace = PostgresStores.namespace(of: url)
                    try blocking {
                        try await Self.withClient(server: server) { client in
                            try await Self.baseline(client, namespace: namespace, ids: Array(ids.prefix(Self.tasks)))
                            let start = ContinuousClock.now
                            try await Self.baseline(client, namespace: namespace, ids: ids)
                            return ContinuousClock.now - start
                        }
                    }.record(in: &stopwatch)
                },
            ], repetitions: runner.repetitions)
        let rates = m.map { Int(Double(reads) / $0.median) }
        log("  store.object \(rates[0]), store.read { object } \(rates[1]), postgres-nio \(rates[2]) reads/s (medians)")
        return [
            Comparison(
                scenario: name, label: "\(Self.tasks) tasks, \(reads) store.object(id:)",
                baselineDescription: "PostgresClient of 16, same SELECT",
                molt: m[0], baseline: m[2], target: .atMost(1.25)),
            Comparison(
                scenario: name, label: "\(Self.tasks) tasks, \(reads) store.read { object }",
                baselineDescription: "PostgresClient of 16, same SELECT",
                molt: m[1], baseline: m[2], target: nil),
        ]
    }

    /// Molt's reads on a store with a pool of `tasks` sessions: through `store.object(_:id:)` (one statement,
    /// no transaction) or through `store.read { … }` (a read-only transaction around it).
    static func moltJob(count: Int, ids: [Int64], lookup: Bool) -> Runner.Job {
        Runner.Job(count: count) { url, stopwatch in
            let store = try Store.open(
                at: .postgres(url, options: PostgresStoreOptions().pooling(Self.tasks)), schema: Fixture.v1)
            defer { try? store.close() }
            try blocking { try await Self.molt(store, ids: Array(ids.prefix(Self.tasks)), lookup: lookup) }
            try stopwatch.time { try blocking { try await Self.molt(store, ids: ids, lookup: lookup) } }
        }
    }

    /// Reads every identifier through Molt, `tasks` at a time.
    static func molt(_ store: Store, ids: [Int64], lookup: Bool) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for part in split(ids) {
                group.addTask {
                    for id in part {
                        let object =
                            lookup
                            ? try await store.object("Item", id: id)
                            : try await store.read { try $0.object("Item", id: id) }
                        guard object != nil else {
                            throw BenchmarkError(description: "Molt found no item \(id)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// The statement Molt sends for `object("Item", id:)`.
    static func readSQL(_ table: String) -> String {
        #"SELECT "_id", "title", "body", "count", "score", "created", "legacy" FROM \#(table) WHERE "_id" = $1 ORDER BY "_id" LIMIT 1"#
    }

    /// Reads every identifier through the client, `tasks` at a time, decoding each row's columns.
    static func baseline(_ client: PostgresClient, namespace: String, ids: [Int64]) async throws {
        let sql = readSQL("\(PostgresStores.quote(namespace)).\"Item\"")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for part in split(ids) {
                group.addTask {
                    for id in part {
                        var binds = PostgresBindings(capacity: 1)
                        binds.append(id)
                        var found = false
                        let rows = try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds))
                        for try await row in rows.decode((Int64, String, String, Int64, Double, Double, String?).self) {
                            found = row.0 == id
                        }
                        guard found else { throw BenchmarkError(description: "postgres-nio found no item \(id)") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    static func split(_ ids: [Int64]) -> [ArraySlice<Int64>] {
        let size = (ids.count + tasks - 1) / tasks
        return stride(from: 0, to: ids.count, by: size).map { ids[$0..<min($0 + size, ids.count)] }
    }

    /// Runs `body` with a client of `tasks` connections, running until `body` returns.
    static func withClient<T: Sendable>(
        server: URL, _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        guard let url = URLComponents(url: server, resolvingAgainstBaseURL: false) else {
            throw BenchmarkError(description: "\(PostgresStores.variable) is not a URL: \(server)")
        }
        var configuration = PostgresClient.Configuration(
            host: url.host ?? "localhost", port: url.port ?? 5432, username: url.user ?? "postgres",
            password: url.password, database: url.path.split(separator: "/").first.map(String.init), tls: .disable)
        configuration.options.minimumConnections = tasks
        configuration.options.maximumConnections = tasks
        var logger = Logger(label: "molt-benchmarks.postgres")
        logger.logLevel = .critical
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}

extension Duration {
    /// Adds the duration to the stopwatch, as if it had timed it.
    func record(in stopwatch: inout Stopwatch) {
        stopwatch.record(seconds: seconds, peakMiB: nil)
    }
}

/// A small deterministic generator, so that every round reads the same identifiers.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
