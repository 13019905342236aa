import Foundation
import Molt
import PostgresNIO

/// Maintenance of PostgreSQL stores that `Store` does not offer, for tools and tests.
package enum PostgresMaintenance {
    /// Drops a store's namespace and everything in it (`DROP SCHEMA … CASCADE`); nothing happens when there is
    /// none.
    ///
    /// ```swift
    /// try PostgresMaintenance.dropNamespace("notes_test", at: url)
    /// ```
    package static func dropNamespace(_ namespace: String, at url: URL) throws {
        let parsed = try PostgresURL(url)
        let link = try PostgresLink.connect(
            parsed.configuration, namespace: namespace, context: .location(parsed.description))
        defer { link.close() }
        try link.run("DROP SCHEMA IF EXISTS \(PostgresDialect.shared.quote(namespace)) CASCADE", [], kind: .alter)
    }

    /// Runs statements on a store's namespace in one transaction, outside Molt's checks: for tests that damage
    /// a store on purpose, and for tools.
    package static func execute(_ statements: [String], namespace: String, at url: URL) throws {
        let parsed = try PostgresURL(url)
        let link = try PostgresLink.connect(
            parsed.configuration, namespace: namespace, context: .location(parsed.description))
        defer { link.close() }
        try link.begin()
        do {
            // Any statement at all: taken as one that may change the catalog (none of Molt's bookkeeping
            // around a migration's writes applies outside one).
            for statement in statements { try link.run(statement, [], kind: .alter) }
            try link.commit()
        } catch {
            _ = try? link.rollback()
            throw error
        }
    }
}

extension PostgresMaintenance {
    /// The first column of every row of a query on a store's namespace, as text (null as `NULL`).
    package static func strings(_ sql: String, namespace: String, at url: URL) throws -> [String] {
        let parsed = try PostgresURL(url)
        let link = try PostgresLink.connect(
            parsed.configuration, namespace: namespace, context: .location(parsed.description))
        defer { link.close() }
        return try link.run(sql, [], kind: .read).rows.map { row in
            switch PostgresValueCodec.rawValue(row.makeRandomAccess()[0]) {
            case .null: return "NULL"
            case .int(let v): return String(v)
            case .double(let v): return String(v)
            case .string(let v): return v
            case .data(let v): return v.base64EncodedString()
            default: return "?"
            }
        }
    }
}

extension PostgresMaintenance {
    /// A connection to the namespace of a PostgreSQL location, and the namespace; nil for another engine.
    private static func connect(_ location: StoreLocation) throws -> (link: PostgresLink, namespace: String)? {
        guard let engine = location.engine as? PostgresEngine else { return nil }
        let link = try PostgresLink.connect(
            engine.configuration, namespace: engine.namespace, context: .location(engine.description))
        return (link, engine.namespace)
    }

    /// Whether the namespace of a PostgreSQL location exists (with a store in it or not); nil for another engine.
    package static func namespaceExists(at location: StoreLocation) throws -> Bool? {
        guard let (link, namespace) = try connect(location) else { return nil }
        defer { link.close() }
        return try !link.run("SELECT 1 FROM pg_namespace WHERE nspname = ?", [.string(namespace)], kind: .read).rows
            .isEmpty
    }

    /// Removes a store a command created at `location` with `schema`: its whole namespace when the command created
    /// that too, else only the store's tables, so that whatever else the namespace holds stays.
    package static func removeCreatedStore(at location: StoreLocation, schema: Schema, namespaceExisted: Bool) throws {
        guard let (link, namespace) = try connect(location) else { return }
        defer { link.close() }
        let q = PostgresDialect.shared.quote
        guard namespaceExisted else {
            try link.run("DROP SCHEMA IF EXISTS \(q(namespace)) CASCADE", [], kind: .alter)
            return
        }
        let tables = (StoreLayout.tableNames(schema) + Store.ownTables).map { "\(q(namespace)).\(q($0))" }
        try link.run("DROP TABLE IF EXISTS \(tables.joined(separator: ", ")) CASCADE", [], kind: .alter)
    }
}

extension PostgresMaintenance {
    /// The shapes validation expects of `schema`'s tables, as Molt works them out, and as the catalog shows them
    /// once the tables are created (in a transaction rolled back, in a throw-away namespace): the two must be
    /// equal, and tests hold them to it.
    package static func expectedShapes(
        of schema: Schema, at url: URL
    ) throws -> (worked: [String: SQLTableShape], catalog: [String: SQLTableShape]) {
        let parsed = try PostgresURL(url)
        let namespace = "_molt_shapes_\(UUID().uuidString.prefix(8).lowercased())"
        let link = try PostgresLink.connect(
            parsed.configuration, namespace: namespace, context: .location(parsed.description))
        defer { link.close() }
        try link.begin()
        defer { _ = try? link.rollback() }
        let connection = PostgresStoreConnection(link: link, namespace: namespace)
        return (PostgresExpectedShapes.shapes(of: schema), try connection.catalogShapes(creating: schema))
    }
}
