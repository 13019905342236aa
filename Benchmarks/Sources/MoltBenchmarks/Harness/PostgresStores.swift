import Foundation
import Molt
import MoltPostgres

/// The PostgreSQL scenarios' stores: one namespace (PostgreSQL schema) per store, in the database of
/// `MOLT_POSTGRES_URL`.
///
/// A template namespace of each size is made once per process (Molt creates it at version 1, one `INSERT …
/// SELECT generate_series` fills it); each repetition gets a fresh namespace that Molt creates at version 1 and
/// that is filled from the template by `INSERT … SELECT`, then vacuumed, analysed and checkpointed, so that
/// neither side pays for hint bits, statistics or a checkpoint the copy caused. None of that is timed. The
/// namespace handed to the previous job is dropped when the next one is made, and every namespace at the end.
///
/// Jobs receive the store as a `postgres://…?schema=NAMESPACE` URL (``namespace(of:)`` reads it back).
final class PostgresStores {
    /// The variable that names the server; the scenarios skip, saying so, when it is unset.
    static let variable = "MOLT_POSTGRES_URL"

    /// The server's URL, without query (as psql takes it), or nil when ``variable`` is unset.
    static var serverURL: URL? {
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty,
            var components = URLComponents(string: text)
        else { return nil }
        components.query = nil
        return components.url
    }

    /// Why the PostgreSQL scenarios did not run, for the log.
    static let skipReason =
        "skipped: \(variable) is not set (start a throwaway server with `source .ci/postgres start`)"

    let runner: Runner
    let server: URL
    /// What the stores hold, for namespace names: "items", "people".
    let name: String
    let psql: URL
    private let schema: Schema
    private let fill: (_ namespace: String, _ count: Int) -> [String]
    private var templates: [Int: String] = [:]
    private var live: String?
    private var copies = 0

    /// Stores at `schema` (version 1) of `count` objects, filled by the statements `fill(namespace, count)`.
    init(_ runner: Runner, server: URL, name: String, schema: Schema, fill: @escaping (String, Int) -> [String]) throws
    {
        self.runner = runner
        self.server = server
        self.name = name
        self.schema = schema
        self.fill = fill
        psql = try ChildProcess.psqlBinary()
    }

    deinit {
        let dropped = ([live].compactMap { $0 } + templates.values).map {
            "DROP SCHEMA IF EXISTS \(Self.quote($0)) CASCADE"
        }
        if !dropped.isEmpty { _ = try? sql(dropped) }
    }

    /// The store URL of a namespace.
    func url(_ namespace: String) -> URL {
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "schema", value: namespace)]
        return components.url!
    }

    /// The namespace a store URL names.
    static func namespace(of url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value
            ?? "molt"
    }

    static func quote(_ identifier: String) -> String {
        "\"\(identifier.replacingOccurrences(of: "\"", with: "\"\""))\""
    }

    /// `"namespace"."table"`.
    static func table(_ table: String, in url: URL) -> String { "\(quote(namespace(of: url))).\(quote(table))" }

    private func create(_ namespace: String) throws {
        _ = try sql(["DROP SCHEMA IF EXISTS \(Self.quote(namespace)) CASCADE"])
        try Store.open(at: .postgres(server, schema: namespace), schema: schema).close()
    }

    /// The template of `count` objects, made on first use.
    func template(count: Int) throws -> String {
        if let existing = templates[count] { return existing }
        let namespace = "molt_bench_\(name)_\(count)"
        let start = ContinuousClock.now
        try create(namespace)
        templates[count] = namespace
        _ = try sql(["SET session_replication_role = replica"] + fill(Self.quote(namespace), count))
        log(
            "  made PostgreSQL template of \(Runner.label(count)) \(name) in \(format(seconds: (ContinuousClock.now - start).seconds))"
        )
        return namespace
    }

    /// A fresh store of `count` objects at version 1, a copy of the template; the previous one is dropped.
    func freshStore(count: Int) throws -> URL {
        let template = try template(count: count)
        if let live { _ = try sql(["DROP SCHEMA IF EXISTS \(Self.quote(live)) CASCADE"]) }
        copies += 1
        let namespace = "molt_bench_\(name)_\(ProcessInfo.processInfo.processIdentifier)_\(copies)"
        try create(namespace)
        live = namespace
        let (t, n) = (Self.quote(template), Self.quote(namespace))
        let tables = schema.entities.map { Self.quote($0.name) }
        // Session replication role "replica" skips the reference triggers: the template's links are valid.
        var statements = ["SET session_replication_role = replica"]
        statements += tables.map { "INSERT INTO \(n).\($0) SELECT * FROM \(t).\($0)" }
        statements += tables.map {
            "SELECT setval(pg_get_serial_sequence('\(n).\($0)', '_id'), max(\"_id\")) FROM \(n).\($0) HAVING max(\"_id\") IS NOT NULL"
        }
        statements += tables.map { "VACUUM (FREEZE, ANALYZE) \(n).\($0)" }
        statements.append("CHECKPOINT")
        _ = try sql(statements)
        return url(namespace)
    }

    func measure(_ jobs: [Runner.Job], repetitions: Int) throws -> [Measurement] {
        try runner.measure(jobs, repetitions: repetitions, freshStore: freshStore(count:))
    }

    // MARK: - psql

    /// The psql arguments that run `statements` (each its own `-c`, so `VACUUM` may be one), stopping at the
    /// first error; with `transaction`, all in one transaction (`--single-transaction`).
    func psqlArguments(_ statements: [String], transaction: Bool = false) -> [String] {
        ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"] + (transaction ? ["--single-transaction"] : [])
            + ["-d", server.absoluteString] + statements.flatMap { ["-c", $0] }
    }

    /// Runs statements through psql, untimed, and returns what they printed (unaligned, tuples only).
    @discardableResult
    func sql(_ statements: [String]) throws -> String {
        let output = runner.folder.appendingPathComponent("psql-output-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        let outcome = try ChildProcess.run(
            psql, psqlArguments(["SET client_min_messages = warning"] + statements), stdout: output)
        guard outcome.status == 0 else {
            throw BenchmarkError(description: "psql failed (exit \(outcome.status)) on \(statements)")
        }
        return try String(contentsOf: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A job that times psql running `statements` in one transaction on the store (`{table}` in a statement
    /// stands for `"namespace"."table"` of the store's `table`), from spawn to exit.
    func psqlJob(count: Int, table: String, _ statements: [String], check: SameResult?) -> Runner.Job {
        Runner.Job(count: count) { [self] url, stopwatch in
            let qualified = Self.table(table, in: url)
            try stopwatch.timeProcess(
                psql,
                psqlArguments(
                    statements.map { $0.replacingOccurrences(of: "{table}", with: qualified) }, transaction: true))
            try check?.compare(try shape(of: table, at: url))
        }
    }

    /// `Store.open` migrating the store to `schema` (with `options`); closing it is not timed.
    func molt(
        count: Int, to schema: Schema, options: Store.Options = Store.Options(), table: String, check: SameResult?
    ) -> Runner.Job {
        Runner.Job(count: count) { [self] url, stopwatch in
            let store = try stopwatch.time { try Store.open(at: .postgres(url), schema: schema, options: options) }
            try store.close()
            try check?.compare(try shape(of: table, at: url))
        }
    }

    /// A table's columns (name, type, nullability, in order), row count and the object with `_id` 7, to check
    /// that Molt and the baseline produced the same thing.
    func shape(of table: String, at url: URL) throws -> String {
        let namespace = Self.namespace(of: url).replacingOccurrences(of: "'", with: "''")
        let qualified = Self.table(table, in: url)
        return try sql([
            """
            SELECT string_agg(column_name || ' ' || data_type || CASE WHEN is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END, ', '
                              ORDER BY ordinal_position)
            FROM information_schema.columns WHERE table_schema = '\(namespace)' AND table_name = '\(table)'
            """,
            "SELECT count(*) || ' rows' FROM \(qualified)",
            "SELECT row_to_json(t)::text FROM \(qualified) t WHERE \"_id\" = 7",
        ]).replacingOccurrences(of: "\n", with: " | ")
    }
}

extension ChildProcess {
    /// The `psql` client itself: the server's own (`MOLT_PG_BIN`, set by `.ci/postgres`), or the newest under
    /// `/usr/lib/postgresql`, before the one on the `PATH`. Debian's `psql` on the `PATH` is a Perl wrapper that
    /// costs ~25 ms per start: timing it would slow the baseline down and flatter Molt.
    static func psqlBinary() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let bin = environment["MOLT_PG_BIN"] { candidates.append("\(bin)/psql") }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.compactMap(Int.init).sorted(by: >) {
            candidates.append("/usr/lib/postgresql/\(version)/bin/psql")
        }
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            candidates.append("\(folder)/psql")
        }
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            return URL(fileURLWithPath: candidate)
        }
        throw BenchmarkError(description: "no psql on the PATH: install it (Debian: apt-get install postgresql-client)")
    }
}

extension PostgresStores {
    /// The memo store of ``Fixture`` (100 folders, N items), filled as the SQLite templates are.
    static func items(_ runner: Runner, server: URL) throws -> PostgresStores {
        try PostgresStores(runner, server: server, name: "items", schema: Fixture.v1) { n, count in
            [
                """
                INSERT INTO \(n)."Folder" ("_id", "name") SELECT x, 'Folder ' || lpad(x::text, 3, '0') FROM generate_series(1, 100) AS x
                """,
                """
                INSERT INTO \(n)."Item" ("_id", "title", "body", "count", "score", "created", "legacy", "folder")
                SELECT x, 'Memo number ' || lpad(x::text, 8, '0'), 'Body of memo ' || lpad(x::text, 8, '0') || ', some words',
                       x % 1000, x * 0.5, 1700000000.0 + x, 'L' || lpad((x % 1000000)::text, 6, '0'), x % 100 + 1
                FROM generate_series(1, \(count)) AS x
                """,
            ]
        }
    }

    /// The people of ``People`` (first names of 3 to 7 letters, last names of 15).
    static func people(_ runner: Runner, server: URL) throws -> PostgresStores {
        try PostgresStores(runner, server: server, name: "people", schema: People.v1) { n, count in
            [
                """
                INSERT INTO \(n)."Person" ("_id", "firstName", "lastName")
                SELECT x, CASE x % 5 WHEN 0 THEN 'Ada' WHEN 1 THEN 'Grace' WHEN 2 THEN 'Alan' WHEN 3 THEN 'Barbara' ELSE 'Edsger' END,
                       'Lastname' || lpad(x::text, 7, '0')
                FROM generate_series(1, \(count)) AS x
                """
            ]
        }
    }

    /// The sizes of the PostgreSQL scenarios: a tenth of the large count (100,000 by default), and the large
    /// count (1,000,000).
    var counts: (small: Int, large: Int) { (max(runner.largeCount / 10, 1), runner.largeCount) }
}
