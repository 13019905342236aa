import Foundation
import Testing
import Molt

/// The names earlier releases had, kept one release as deprecated forwarders (listed in the DocC article
/// "Migrating to this release"): code written against them still compiles, with a warning whose fix-it writes the
/// new name, and does what it did. The warnings this file compiles with are the point of it.
@Suite("Deprecated names of earlier releases")
struct DeprecatedNamesTests {
    static let schema = Schema(version: 1) {
        Entity("Note") {
            Attribute("title", .string)
            Attribute("count", .int, default: 0)
        }
    }

    @Test(
        "asyncWrite and asyncRead, from before they became the async read and write, still write and read",
        arguments: StoreKind.allCases)
    func asyncReadAndWrite(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let inserted = try await store.asyncWrite { objects in
            try objects.insert("Note", ["title": "Milk", "count": 2]).id
        }
        #expect(inserted != nil)
        let titles = try await store.asyncRead { objects in
            try objects.fetch("Note", orderBy: [.ascending("title")]).map { $0["title"].string ?? "" }
        }
        #expect(titles == ["Milk"])
        // The forwarders are the async overloads: what they return is what `read` and `write` return.
        let count = try await store.asyncRead { try $0.count("Note") }
        #expect(try await store.read { try $0.count("Note") } == count)

        // A write that throws rolls back through the old name as through the new.
        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await store.asyncWrite { objects in
                try objects.insert("Note", ["title": "Bread"])
                throw Abort()
            }
        }
        #expect(try await store.read { try $0.count("Note") } == 1)
    }

    @Test("SortDescriptor's `ascending` reads and writes ObjectSort's isAscending")
    func sortAscending() {
        var sort = ObjectSort.descending("title")
        #expect(sort.ascending == false)
        sort.ascending = true
        #expect(sort.isAscending && sort == .ascending("title"))
    }

    @Test("MoltError's `underlying:` text becomes its cause, and `underlying` describes the cause")
    func moltErrorUnderlying() {
        let old = MoltError(.ioError, "Cannot read the backup.", entity: "Note", underlying: "disk I/O error")
        #expect(old.underlying == "disk I/O error")
        #expect(old.cause.map { String(describing: $0) } == "disk I/O error")
        #expect(old.code == .ioError && old.entity == "Note" && old.message == "Cannot read the backup.")

        struct Cause: Error, CustomStringConvertible { var description: String { "permission denied" } }
        let new = MoltError(.ioError, "Cannot read the backup.", cause: Cause())
        #expect(new.underlying == "permission denied")
        #expect(MoltError(.ioError, "No cause.").underlying == nil)
    }

    @Test("MoltError is Hashable again, hashing what == compares")
    func moltErrorHashable() {
        struct Cause: Error {}
        let a = MoltError(.locked, "Busy.", entity: "Note")
        let sameButCause = MoltError(.locked, "Busy.", entity: "Note", cause: Cause())
        let other = MoltError(.locked, "Busy.", entity: "Tag")
        #expect(Set([a, sameButCause, other]).count == 2)
        #expect([a: 1][sameButCause] == 1)
    }
}
