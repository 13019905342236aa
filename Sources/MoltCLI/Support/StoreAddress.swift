import Foundation
import Molt

#if PostgreSQL
import MoltPostgres
#endif

/// A store named on the command line: a file path, or a `postgres://` URL (its `schema=` query item names the
/// store's namespace; `molt` by default).
///
/// ```text
/// molt info memos.sqlite
/// molt info 'postgres://app@localhost/app?schema=memos'
/// ```
enum StoreAddress {
    /// Whether `text` is a PostgreSQL URL rather than a path.
    static func isPostgres(_ text: String) -> Bool { StoreLocation.namesPostgres(text) }

    /// The location `text` names.
    ///
    /// - Throws: ``CLIFailure`` (bad input) for a PostgreSQL URL that does not parse.
    static func location(_ text: String) throws -> StoreLocation {
        guard isPostgres(text) else { return .file(Files.url(text)) }
        #if PostgreSQL
        guard let url = URL(string: text) else {
            throw CLIFailure(
                .badInput,
                "'\(text)' is not a valid URL; write postgres://user:password@host:port/database?schema=name.")
        }
        return try .postgres(url)
        #else
        throw CLIFailure(.badInput, Self.withoutPostgres)
        #endif
    }

    /// Why a `molt` built without the `PostgreSQL` trait refuses a `postgres://` store, and how to get one that
    /// opens it.
    static let withoutPostgres =
        "This molt was built for SQLite files only (without the PostgreSQL trait), so it cannot open a postgres:// store. Build it with PostgreSQL support: swift build -c release --static-swift-stdlib --product molt (the default traits)."

    /// Where a store is, for reports: its path, or its URL without the password.
    static func describe(_ location: StoreLocation) -> String { location.url?.path ?? location.description }

    /// `text` for a message: a URL loses its password.
    static func redacted(_ text: String) -> String {
        guard isPostgres(text), let location = try? location(text) else { return text }
        return describe(location)
    }

    /// Whether a Molt store is at `location` already (a PostgreSQL namespace without one is not).
    static func holdsStore(_ location: StoreLocation) throws -> Bool {
        if let url = location.url { return FileManager.default.fileExists(atPath: url.path) }
        do {
            _ = try Store.version(at: location)
            return true
        } catch let error as MoltError where error.code == .storeNotFound || error.code == .notAMoltStore {
            return false
        }
    }

    /// Whether the PostgreSQL namespace of `location` exists already (false for a file).
    static func namespaceExists(_ location: StoreLocation) throws -> Bool {
        #if PostgreSQL
        try PostgresMaintenance.namespaceExists(at: location) ?? false
        #else
        false
        #endif
    }

    /// Removes a store this command created at `location` with `schema`: its file, or on PostgreSQL its tables
    /// (and its namespace when `namespaceExisted` is false; a namespace that was there keeps what else it holds).
    static func remove(createdStore location: StoreLocation, schema: Schema, namespaceExisted: Bool) throws {
        if let url = location.url {
            Files.removeStore(url)
            return
        }
        #if PostgreSQL
        try PostgresMaintenance.removeCreatedStore(at: location, schema: schema, namespaceExisted: namespaceExisted)
        #endif
    }
}
