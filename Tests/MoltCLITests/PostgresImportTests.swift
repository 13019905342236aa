import Foundation
import Molt
import MoltPostgres
import Testing

/// `molt export` and `molt import` with a `postgres://` store (the server of `MOLT_POSTGRES_URL`; skipped without).
@Suite("molt import and export on PostgreSQL")
struct PostgresImportTests {
    static func server() throws -> URL {
        guard let text = ProcessInfo.processInfo.environment["MOLT_POSTGRES_URL"], !text.isEmpty,
            let url = URL(string: text)
        else {
            try Test.cancel(
                "PostgreSQL case skipped: MOLT_POSTGRES_URL is not set (bash .ci/run starts a throw-away server and sets it)"
            )
        }
        return url
    }

    static func store(_ server: URL, _ namespace: String) -> String { server.absoluteString + "?schema=" + namespace }

    static func namespace() -> String { "molt_cli_\(UUID().uuidString.prefix(8).lowercased())" }

    @Test("an SQLite store exported and imported into PostgreSQL exports the same file again")
    func roundTripThroughPostgres() throws {
        let server = try Self.server()
        let namespace = Self.namespace()
        defer { try? PostgresMaintenance.dropNamespace(namespace, at: server) }
        let dir = TemporaryDirectory()
        try Fixtures.fillEverything(at: dir.file("original.sqlite"))
        try Fixtures.write(Fixtures.everything, to: dir.file("schema.json"))
        let export = try Molt.run(["export", "original.sqlite"], in: dir.url)
        #expect(export.status == 0, "\(export)")
        try Data(export.stdout.utf8).write(to: dir.file("data.json"))

        let imported = try Molt.run(
            ["import", Self.store(server, namespace), "--schema", "schema.json", "data.json"], in: dir.url)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.hasPrefix("Imported 9 objects into postgres://"))
        let again = try Molt.run(["export", Self.store(server, namespace)], in: dir.url)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout == export.stdout)
    }

    @Test("a failed import into a namespace that was there removes the store's tables only, and keeps the rest")
    func failedImportKeepsTheNamespace() throws {
        let server = try Self.server()
        let namespace = Self.namespace()
        defer { try? PostgresMaintenance.dropNamespace(namespace, at: server) }
        try PostgresMaintenance.execute(
            ["CREATE SCHEMA \"\(namespace)\"", "CREATE TABLE \"\(namespace)\".keep (x integer)"], namespace: namespace,
            at: server)
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.everything, to: dir.file("schema.json"))
        // An object that points to one the file does not hold: refused after the store was created.
        let data =
            #"{"format": "molt-data", "formatVersion": 1, "entities": {"Folder": [{"_id": 1, "name": "a", "notes": [9]}]}}"#
        try Data(data.utf8).write(to: dir.file("data.json"))
        let imported = try Molt.run(
            ["import", Self.store(server, namespace), "--schema", "schema.json", "data.json"], in: dir.url)
        #expect(imported.status == 3, "\(imported)")
        let tables = try PostgresMaintenance.strings(
            "SELECT tablename FROM pg_tables WHERE schemaname = '\(namespace)' ORDER BY tablename",
            namespace: namespace, at: server)
        #expect(tables == ["keep"])
    }
}
