import Foundation
import Molt
import NIOSSL
import PostgresNIO

extension StoreLocation {
    /// The default namespace (PostgreSQL schema) of a store: `molt`.
    public static let defaultPostgresNamespace = "molt"

    /// A store in a namespace (a PostgreSQL schema) of the database at `url`.
    ///
    /// The URL is `postgres://user:password@host:port/database`, with optional query items `schema=` (the
    /// namespace, when `namespace` is nil), `sslmode=disable|prefer|require` (default: `disable`) and
    /// `host=/path/to/socket-directory` for a Unix socket. Several stores share a database in namespaces of
    /// their own; Molt's metadata lives in the namespace's `_molt_metadata` and `_molt_history` tables.
    ///
    /// ```swift
    /// let url = URL(string: "postgres://app@localhost:5432/app")!
    /// let store = try Store.open(at: .postgres(url, schema: "notes"), schema: v6, options: .init().migrating(with: plan))
    /// ```
    ///
    /// - Parameters:
    ///   - url: The database.
    ///   - namespace: The store's namespace; nil reads `schema=` from the URL, else ``defaultPostgresNamespace``.
    ///   - options: Lock waits.
    /// - Throws: ``MoltError/Code/invalidValue`` when the URL is not a PostgreSQL URL.
    public static func postgres(
        _ url: URL, schema namespace: String? = nil, options: PostgresStoreOptions = .init()
    ) throws -> StoreLocation {
        let parsed = try PostgresURL(url)
        let namespace = namespace ?? parsed.namespace ?? defaultPostgresNamespace
        return postgres(
            parsed.configuration, schema: namespace, options: options,
            description: parsed.describe(namespace: namespace))
    }

    /// A store in a namespace of the database a postgres-nio configuration reaches (TLS, sockets, credentials
    /// as the app sets them).
    ///
    /// ```swift
    /// let configuration = PostgresConnection.Configuration(host: "db", username: "app", password: secret, database: "app", tls: .disable)
    /// let store = try Store.open(at: .postgres(configuration, schema: "notes"), schema: v6)
    /// ```
    public static func postgres(
        _ configuration: PostgresConnection.Configuration, schema namespace: String = defaultPostgresNamespace,
        options: PostgresStoreOptions = .init()
    ) -> StoreLocation {
        let host =
            configuration.host.map { "\($0):\(configuration.port ?? 5432)" } ?? configuration.unixSocketPath ?? "?"
        let description =
            "postgres://\(configuration.username)@\(host)/\(configuration.database ?? configuration.username)?schema=\(namespace)"
        return postgres(configuration, schema: namespace, options: options, description: description)
    }

    private static func postgres(
        _ configuration: PostgresConnection.Configuration, schema namespace: String, options: PostgresStoreOptions,
        description: String
    ) -> StoreLocation {
        StoreLocation(
            url: nil, description: description,
            engine: PostgresEngine(
                configuration: configuration, namespace: namespace, description: description, settings: options))
    }
}

/// Opens PostgreSQL stores for ``Store``'s opening rules.
struct PostgresEngine: StoreEngine {
    let configuration: PostgresConnection.Configuration
    let namespace: String
    let description: String
    let settings: PostgresStoreOptions

    func open(options: Store.Options) throws -> any SQLDatabase {
        var settings = self.settings
        settings.migrationWaitTimeout = options.migrationWaitTimeout
        return try PostgresStoreDatabase.open(
            configuration, namespace: namespace, location: description, options: settings)
    }

    func openForReading() throws -> any SQLDatabase {
        let database = try PostgresStoreDatabase.open(
            configuration, namespace: namespace, location: description, options: settings)
        let exists = try database.inspect { db in
            try db.fetchInt("SELECT COUNT(*) FROM pg_namespace WHERE nspname = ?", [.string(namespace)])
        }
        guard exists == 1 else {
            try? database.close()
            throw MoltError(
                .storeNotFound,
                "There is no store at \(description): the database has no schema '\(namespace)'. Check the URL and the schema name."
            )
        }
        return database
    }
}

/// A `postgres://` URL, read into a postgres-nio configuration.
struct PostgresURL {
    var configuration: PostgresConnection.Configuration
    var namespace: String?
    /// The URL without its password and its query.
    private var base: String

    init(_ url: URL) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            StoreLocation.postgresSchemes.contains(components.scheme?.lowercased() ?? "")
        else {
            throw MoltError(
                .invalidValue,
                "'\(url.absoluteString)' is not a PostgreSQL URL; write postgres://user:password@host:port/database.")
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let user = components.user ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        let database = components.path.split(separator: "/").first.map(String.init)
        let tls: PostgresConnection.Configuration.TLS
        switch query["sslmode"] ?? "disable" {
        case "disable", "allow": tls = .disable
        case "prefer": tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case "require", "verify-ca", "verify-full":
            tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case let other:
            throw MoltError(.invalidValue, "The URL's sslmode '\(other)' is not one of disable, prefer, require.")
        }
        if let socket = query["host"], socket.hasPrefix("/") {
            let port = components.port ?? 5432
            configuration = .init(
                unixSocketPath: "\(socket)/.s.PGSQL.\(port)", username: user, password: components.password,
                database: database)
        } else {
            configuration = .init(
                host: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost", port: components.port ?? 5432,
                username: user,
                password: components.password, database: database, tls: tls)
        }
        namespace = query["schema"]
        var shown = components
        shown.password = nil
        shown.query = nil
        base = shown.string ?? "postgres://?"
    }

    /// The URL without its password, naming `namespace`: where the store is, for messages.
    func describe(namespace: String) -> String {
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "schema", value: namespace)]
        return base + "?" + (components.percentEncodedQuery ?? "")
    }

    /// The URL without its password, naming the URL's own namespace or the default one.
    var description: String { describe(namespace: namespace ?? StoreLocation.defaultPostgresNamespace) }
}
