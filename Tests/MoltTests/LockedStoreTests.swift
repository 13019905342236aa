import Foundation
import GRDB
import Testing
@testable import Molt

@Suite("A store locked by another process")
struct LockedStoreTests {
    @Test("an opener that waited longer than migrationWaitTimeout says so, and what to do")
    func waitTimesOut() throws {
        let dir = TemporaryDirectory()
        let v1 = Schema(version: 1) { Entity("Item") { Attribute("name", .string) } }
        try Store.open(at: dir.file(), schema: v1, options: StoreKind.rollback.options).close()
        // Another connection holds the write lock, as a migrating process would.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: dir.file().path, configuration: configuration)
        try holder.writeWithoutTransaction { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        defer { try? holder.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") } }
        var options = StoreKind.rollback.options
        options.migrationWaitTimeout = 0.2
        #expect {
            try Store.open(at: dir.file(), schema: v1.withVersion(2), options: options)
        } throws: { error in
            (error as? MoltError)?.message
                == "The store at \(dir.file().path) stayed locked by another process (one migrating it takes the lock for the whole run); nothing was written. Open it again later, or raise `Store.Options.migrationWaitTimeout`."
        }
    }
}
