import Foundation
import Molt
import MoltPostgres

/// The kinds of store every suite runs its bodies on: SQLite files in both journal modes, SQLite in memory,
/// and PostgreSQL (a namespace of its own per test in the database of `MOLT_POSTGRES_URL`).
///
/// `allCases` holds every kind; suites whose feature needs a durable store (opening rules, migrations) run on
/// ``durable``; those that need a file (journal modes, raw SQLite) on ``files``. Without `MOLT_POSTGRES_URL`
/// the PostgreSQL cases are cancelled at their start with the reason (see ``PostgresTestServer``).
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case rollback, wal, memory, postgres

    /// The kinds backed by a file, in both journal modes.
    static let files: [StoreKind] = [.rollback, .wal]
    /// The kinds that outlive their connection: files, and PostgreSQL.
    static let durable: [StoreKind] = [.rollback, .wal, .postgres]
    /// The SQLite kinds: files in both journal modes, and memory.
    static let sqlite: [StoreKind] = [.rollback, .wal, .memory]

    var testDescription: String { rawValue }

    /// Whether the store is an SQLite file.
    var isFile: Bool { self == .rollback || self == .wal }

    var options: Store.Options {
        var options = Store.Options()
        options.journalMode = self == .wal ? .wal : .rollback
        return options
    }

    /// The worker's name for the journal mode (PostgreSQL: the engine).
    var journalArgument: String { self == .postgres ? "postgres" : self == .wal ? "wal" : "rollback" }

    /// Where this kind's store lives in `directory`: its file, or its own namespace of the test database.
    ///
    /// - Throws: Cancels the running test case when the kind is PostgreSQL and no server is configured.
    func location(in directory: TemporaryDirectory, name: String = "store.sqlite") throws -> StoreLocation {
        switch self {
        case .rollback, .wal, .memory: return .file(directory.file(name))
        case .postgres: return try .postgres(try PostgresTestServer.requireURL(), schema: directory.namespace(name))
        }
    }

    /// Opens (creating or migrating) this kind's store in `directory`.
    func open(
        in directory: TemporaryDirectory, schema: Schema, options: Store.Options? = nil, name: String = "store.sqlite"
    ) throws -> Store {
        var options = options ?? self.options
        if options.journalMode == .preserve || self.isFile { options.journalMode = self.options.journalMode }
        return try Store.open(at: try location(in: directory, name: name), schema: schema, options: options)
    }

    /// A new, empty store of this kind at `schema`'s version (in `directory` for the file kinds).
    func makeStore(schema: Schema, in directory: TemporaryDirectory) throws -> Store {
        switch self {
        case .memory: return try Store.inMemory(schema: schema)
        case .rollback, .wal, .postgres: return try open(in: directory, schema: schema)
        }
    }
}

import Testing

/// A temporary folder, removed when the value is released, and the PostgreSQL namespaces of the tests that
/// used it, dropped then too.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL
    private let lock = NSLock()
    private var namespaces: [String: String] = [:]

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("molt-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String = "store.sqlite") -> URL { url.appendingPathComponent(name) }

    /// A PostgreSQL namespace of this directory's own for the store `name`. Its name has capitals and a space,
    /// so that every PostgreSQL case also proves that Molt names a namespace as it is, never folded or unquoted.
    func namespace(_ name: String = "store.sqlite") -> String {
        lock.withLock {
            if let existing = namespaces[name] { return existing }
            let namespace =
                "Molt Test \(UUID().uuidString.prefix(13).lowercased().replacingOccurrences(of: "-", with: ""))"
            namespaces[name] = namespace
            return namespace
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
        for namespace in namespaces.values { PostgresTestServer.drop(namespace) }
    }
}

/// The PostgreSQL server the tests use: `MOLT_POSTGRES_URL` (for example
/// `postgres://postgres@127.0.0.1:54329/postgres`), set by `.ci/run` around a throw-away cluster.
enum PostgresTestServer {
    static let url: URL? = ProcessInfo.processInfo.environment["MOLT_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : URL(string: $0)
    }

    static let skipReason: Comment =
        "PostgreSQL case skipped: MOLT_POSTGRES_URL is not set (bash .ci/run starts a throw-away server and sets it)"

    /// The server's URL, or the running test case cancelled with the reason when there is none.
    static func requireURL() throws -> URL {
        guard let url else { try Test.cancel(skipReason) }
        return url
    }

    /// Drops a test's namespace and everything in it.
    static func drop(_ namespace: String) {
        guard let url else { return }
        try? PostgresMaintenance.dropNamespace(namespace, at: url)
    }
}
