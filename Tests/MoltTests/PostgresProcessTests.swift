import Foundation
import Testing
import Molt

/// PostgreSQL with several processes: app servers starting together migrate once (an advisory lock), and a
/// client killed with SIGKILL mid-migration leaves the store at its old version with every row (the server
/// rolls the transaction back). SQLite's counterparts are `ConcurrentOpeningTests` and `CrashRecoveryTests`.
@Suite("PostgreSQL: concurrent and killed migrators")
struct PostgresProcessTests {
    static let itemCount = 100_000

    /// A version-0 store in the directory's namespace with `count` items, filled in bulk with SQL.
    static func makeBulk(in dir: TemporaryDirectory, count: Int) throws -> StoreLocation {
        let location = try StoreKind.postgres.location(in: dir)
        try BulkStore.make(at: location, count: count)
        return location
    }

    /// Every item as a line, read through Molt at `schema`.
    static func items(_ location: StoreLocation, schema: Schema) throws -> [String] {
        let store = try Store.open(at: location, schema: schema)
        defer { try? store.close() }
        return try store.read { objects in
            try objects.fetch("Item").map { item in
                schema.entity(named: "Item")!.attributes.map { "\(item[$0.name])" }.joined(separator: "|")
            }
        }
    }

    @Test("four processes opening one old store at once migrate it once and all see the new version")
    func concurrentMigrators() throws {
        let dir = TemporaryDirectory()
        let location = try Self.makeBulk(in: dir, count: 20_000)
        let workers = try (0..<4).map { _ in try Worker(in: dir, schema: BulkStore.v1(), kind: .postgres) }
        for result in workers.map({ $0.finish() }) {
            #expect(result.status == 0, "\(result.lines)")
            #expect(result.lines.last == "opened 1", "\(result.lines)")
        }
        let info = try Store.inspect(at: location)
        #expect(info.version == 1)
        #expect(info.history.map { [$0.fromVersion, $0.toVersion, $0.objectsTouched] } == [[0, 1, 20_000]])
    }

    @Test(
        "a client killed with SIGKILL mid-migration leaves the store at its old version with every row",
        arguments: CrashRecoveryTests.Moment.allCases)
    func killedClient(moment: CrashRecoveryTests.Moment) throws {
        let dir = TemporaryDirectory()
        let location = try Self.makeBulk(in: dir, count: Self.itemCount)
        let before = try Self.items(location, schema: BulkStore.v0())
        let worker = try Worker(in: dir, schema: BulkStore.v1(), kind: .postgres, hold: true)
        #expect(try worker.waitForLine(moment.line) == moment.line)
        worker.kill()
        #expect(worker.process.terminationStatus == SIGKILL)
        // The server notices the closed connection and rolls back; the next opener waits for its lock if needed.
        #expect(try Store.version(at: location) == 0)
        #expect(try Self.items(location, schema: BulkStore.v0()) == before)
        let migrated = try Store.open(at: location, schema: BulkStore.v1())
        #expect(try migrated.history().map(\.objectsTouched) == [Self.itemCount])
        #expect(try migrated.read { try $0.count("Item", where: .equal("note", "new")) } == Self.itemCount)
        try migrated.close()
    }
}
