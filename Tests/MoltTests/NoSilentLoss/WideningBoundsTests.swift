import Foundation
import Testing
@testable import Molt

/// The count before an int → double widening bounds the column (`MIN`, `MAX`): within ±2^53 every value is
/// exact and none is read again; beyond, each value is checked (``ExactDoubles``) before anything is written.
@Suite("No silent loss: a widening's bounds settle its exactness, on every engine")
struct WideningBoundsTests {
    /// The statements the count of Book.pages int → double runs on a store whose books have `pages`, and
    /// whether it found the widening exact.
    static func count(_ kind: StoreKind, pages: [Int64]) throws -> (statements: [String], verified: Bool) {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        let v0 = Library.v0()
        try Library.makeStore(at: location, schema: v0, kind: kind) { objects in
            try Library.fill(objects)
            for (i, value) in pages.enumerated() {
                var book = try #require(try objects.object("Book", primaryKey: .string("isbn-\(i)")))
                book["pages"] = .int(value)
                try objects.update(book)
            }
        }
        let v1 = v0.next(1) { $0.edit("Book") { $0.editAttribute("pages") { $0.type = .double } } }
        let database = try location.engine.open(options: kind.options)
        defer { try? database.close() }
        let recorded = Recorded()
        var verified = false
        try database.exclusive { db in
            db.statementObserver = { sql, _ in recorded.append(sql) }
            defer { db.statementObserver = nil }
            var migration = LightweightMigration(start: v0)
            _ = try migration.count(SchemaDiff(from: v0, to: v1), in: db)
            verified = !migration.verifiedExactDoubles.isEmpty
            return false
        }
        return (recorded.statements, verified)
    }

    @Test(
        "within ±2^53 the bounds alone prove the widening exact; beyond, each value is read",
        arguments: StoreKind.durable)
    func boundsThenValues(kind: StoreKind) throws {
        let readsValues = { (statements: [String]) in statements.contains { $0.contains("LIMIT 1") } }
        let within = try Self.count(kind, pages: [1 << 53, -(1 << 53), 7])
        #expect(within.verified)
        #expect(within.statements.contains { $0.contains(#"MIN("pages")"#) && $0.contains(#"MAX("pages")"#) })
        #expect(!readsValues(within.statements))
        let beyond = try Self.count(kind, pages: [1 << 60, 7])
        #expect(beyond.verified)
        #expect(readsValues(beyond.statements))
        #expect(throws: MoltError.self) { try Self.count(kind, pages: [(1 << 53) + 1]) }
    }

    @Test("only integers within ±2^53, or no value, are bounds that prove exactness")
    func boundsDecision() {
        #expect(LightweightMigration.boundsAreExact([.int(1 << 53), .int(-(1 << 53))]))
        #expect(LightweightMigration.boundsAreExact([.null, .null]))
        #expect(!LightweightMigration.boundsAreExact([.int(0), .int((1 << 53) + 1)]))
        #expect(!LightweightMigration.boundsAreExact([.int(.min), .int(0)]))
        #expect(!LightweightMigration.boundsAreExact([.double(5), .int(5)]))
        let text: ArraySlice<Value> = [.string("9"), .int(5)]
        #expect(!LightweightMigration.boundsAreExact(text))
    }
}

/// Statements recorded from the connection's observer.
private final class Recorded: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    var statements: [String] { lock.withLock { recorded } }
    func append(_ sql: String) { lock.withLock { recorded.append(sql) } }
}
