import Foundation
import Testing
import Molt
import MoltPostgres

/// The PostgreSQL server the suites' `.postgres` cases use: skipped, with the reason in the test output, when
/// `MOLT_POSTGRES_URL` is not set (every `.postgres` case is then cancelled at its start).
@Suite("PostgreSQL server")
struct PostgresServerTests {
    @Test("the PostgreSQL cases run against MOLT_POSTGRES_URL", .enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipReason))
    func serverAnswers() throws {
        let dir = TemporaryDirectory()
        let store = try StoreKind.postgres.makeStore(schema: Library.v0(), in: dir)
        defer { try? store.close() }
        #expect(try store.read { try $0.count("Book") } == 0)
    }

    @Test("a postgres:// URL names its namespace, and its description hides the password")
    func urlDescription() throws {
        let location = try StoreLocation.postgres(URL(string: "postgres://app:secret@db.example:5433/notes?schema=memos")!)
        #expect(location.description == "postgres://app@db.example:5433/notes?schema=memos")
        #expect(location.url == nil)
        let plain = try StoreLocation.postgres(URL(string: "postgres://app@localhost/app")!, schema: "other")
        #expect(plain.description == "postgres://app@localhost/app?schema=other")
        #expect(throws: MoltError.self) { try StoreLocation.postgres(URL(string: "mysql://x/y")!) }
    }
}
