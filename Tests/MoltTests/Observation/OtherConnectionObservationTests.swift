import Foundation
import Molt
import Testing

/// Observations notice commits made elsewhere: another opening of the same store (on PostgreSQL, another
/// server's commit through Molt, announced by NOTIFY), another process, a migration by a newer version of the app.
@Suite("Observed reads and other connections")
struct OtherConnectionObservationTests {
    static let schema = ObservationTests.schema

    @Test("a commit through another opening of the same store is noticed", arguments: StoreKind.durable)
    func anotherOpening(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.open(in: dir, schema: Self.schema)
        defer { try? store.close() }
        let counts = ObservationRecorder<Int>()
        let token = counts.start(store) { try $0.count("Note") }
        try await counts.wait { $0 == [0] }
        let other = try kind.open(in: dir, schema: Self.schema)
        try await other.write { _ = try $0.insert("Note", ["text": "from another connection"]) }
        try await counts.wait { $0 == [0, 1] }
        try other.close()
        withExtendedLifetime(token) {}
    }

    @Test("another opening's rolled-back transaction is not noticed, its commit once", arguments: StoreKind.durable)
    func anotherOpeningRollsBack(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.open(in: dir, schema: Self.schema)
        defer { try? store.close() }
        let counts = ObservationRecorder<Int>()
        let token = counts.start(store, dedupe: false) { try $0.count("Note") }
        try await counts.wait { $0 == [0] }
        let other = try kind.open(in: dir, schema: Self.schema)
        defer { try? other.close() }
        await #expect(throws: ObservationTests.Failure.self) {
            try await other.write { objects in
                _ = try objects.insert("Note", ["text": "rolled back"])
                throw ObservationTests.Failure()
            }
        }
        try await other.write { _ = try $0.insert("Note", ["text": "committed"]) }
        try await counts.wait { $0 == [0, 1] }
        #expect(counts.runs == 2)
        withExtendedLifetime(token) {}
    }

    @Test("a commit of another process (the sqlite3 shell) is noticed", arguments: StoreKind.files)
    func anotherProcess(kind: StoreKind) async throws {
        let shell = URL(fileURLWithPath: "/usr/bin/sqlite3")
        guard FileManager.default.isExecutableFile(atPath: shell.path) else {
            try Test.cancel("no sqlite3 shell at \(shell.path)")
        }
        let dir = TemporaryDirectory()
        let store = try kind.open(in: dir, schema: Self.schema)
        defer { try? store.close() }
        let texts = ObservationRecorder<[String]>()
        let token = texts.start(store) { try $0.fetch("Note").map { $0["text"].string ?? "?" } }
        try await texts.wait { $0 == [[]] }
        let process = Process()
        process.executableURL = shell
        process.arguments = [dir.file().path, #"INSERT INTO "Note" ("text") VALUES ('from the shell')"#]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        try await texts.wait { $0 == [[], ["from the shell"]] }
        withExtendedLifetime(token) {}
    }

    @Test(
        "a migration by another opening ends the observation with an error that names the new version",
        arguments: StoreKind.durable)
    func migratedByAnotherOpening(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.open(in: dir, schema: Self.schema)
        defer { try? store.close() }
        try await store.write { _ = try $0.insert("Note", ["text": "milk"]) }
        let texts = ObservationRecorder<[String]>()
        let token = texts.start(store) { try $0.fetch("Note").map { $0["text"].string ?? "?" } }
        let iteration = Task {
            var seen: [Int] = []
            for try await count in store.observe({ try $0.count("Note") }) { seen.append(count) }
            return seen
        }
        try await texts.wait { $0 == [["milk"]] }
        var v2 = Self.schema
        v2.version = 2
        v2.entities[1].attributes.append(Attribute("pinned", .bool, isOptional: true))
        let newer = try kind.open(in: dir, schema: v2)
        #expect(newer.outcome == .migrated(fromVersion: 1))
        let error = try await texts.waitForError() as? MoltError
        #expect(error?.code == .storeIsNewer)
        #expect(error?.message.contains("migrated to schema version 2") == true)
        #expect(texts.values == [["milk"]])
        await #expect(throws: MoltError.self) { _ = try await iteration.value }
        #expect(store.observationCount == 0)
        try newer.close()
        withExtendedLifetime(token) {}
    }
}
