import Foundation
import Testing
import Molt

/// What `Store.open` does with a missing, current, changed, older, newer, foreign or damaged file.
@Suite("Opening rules")
struct OpeningRulesTests {
    @Test("a missing file is created at the schema's version, with an empty history", arguments: StoreKind.durable)
    func createsNewFile(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let store = try Store.open(at: url, schema: Library.v0().withVersion(4), options: kind.options)
        #expect(try store.history() == [])
        #expect(try StoreDump(store).entities.mapValues(\.count) == ["Author": 0, "Book": 0, "Tag": 0])
        try store.close()
        #expect(try Store.version(at: url) == 4)
        let info = try Store.inspect(at: url)
        #expect(info.schema == Library.v0().withVersion(4))
        #expect(info.schemaHash == Library.v0().contentHash)
        #expect(info.formatVersion == 1)
    }

    @Test(
        "the same version with the same schema opens without a migration, in any declaration order and with rename hints",
        arguments: StoreKind.durable)
    func sameVersionSameSchema(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let before = try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        var reordered = Library.v0()
        reordered.entities.reverse()
        reordered.edit("Book") {
            $0.attributes.reverse()
            // A rename hint left over from an earlier version changes nothing.
            $0.editAttribute("title") { $0.originalName = "name" }
        }
        let store = try Store.open(at: url, schema: reordered, options: kind.options)
        #expect(try store.history() == [])
        #expect(try StoreDump(store) == before)
    }

    @Test(
        "the same version with another schema is refused with every difference listed, and nothing is written",
        arguments: StoreKind.durable)
    func sameVersionDifferentSchema(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        let bytes = FileState(url)
        let changed = Library.v0().next(0) {
            $0.edit("Book") {
                $0.attributes.append(Attribute("count", .int, default: 0))
                $0.attributes.removeAll { $0.name == "cover" }
                $0.editAttribute("pages") { $0.type = .double }
            }
            $0.entities.removeAll { $0.name == "Tag" }
            $0.edit("Book") { $0.relationships.removeAll { $0.name == "tags" } }
        }
        let error = moltError { _ = try Store.open(at: url, schema: changed, options: kind.options) }
        #expect(error?.code == .schemaChangedWithoutVersionBump)
        #expect(
            error?.message == """
                The schema of version 0 differs from the one this store was created with:
                - Entity 'Tag' has been removed.
                - Attribute 'Book.pages' has changed type from 'int' to 'double'.
                - Attribute 'Book.count' has been added.
                - Attribute 'Book.cover' has been removed.
                - Relationship 'Book.tags' has been removed.
                A shipped version must not change: restore version 0 as it was and declare the change as version 1. During development, open with `options.resettingStoreIfMigrationNeeded()` to start over.
                """)
        #expect(FileState(url) == bytes)
    }

    @Test("an older store is migrated and the run is recorded in its history", arguments: StoreKind.durable)
    func olderIsMigrated(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        let v2 = Library.v0().next(2) {
            $0.edit("Tag") { $0.attributes.append(Attribute("color", .string, isOptional: true)) }
        }
        let started = Date()
        let store = try Store.open(at: url, schema: v2, options: kind.options)
        try store.close()
        let info = try Store.inspect(at: url)
        #expect(info.version == 2)
        #expect(info.objectCounts == ["Author": 3, "Book": 6, "Tag": 4])
        #expect(info.history.count == 1)
        let record = try #require(info.history.first)
        #expect([record.fromVersion, record.toVersion, record.objectsTouched] as [Int] == [0, 2, 0])
        #expect(record.steps == ["0 → 2 inferred: Attribute 'Tag.color' has been added."])
        let lag: Double = record.startedAt.timeIntervalSince(started)
        #expect(lag > -1)
        #expect(record.duration >= 0)
    }

    @Test("a newer store is refused with storeIsNewer and nothing is written", arguments: StoreKind.durable)
    func newerIsRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let before = try Library.makeStore(at: url, schema: Library.v0().withVersion(5), kind: kind)
        let bytes = FileState(url)
        let error = moltError {
            _ = try Store.open(at: url, schema: Library.v0().withVersion(3), options: kind.options)
        }
        #expect(error?.code == .storeIsNewer)
        #expect(
            error?.message
                == "The store is at schema version 5, newer than this app's version 3: a newer version of the app wrote it. Nothing was written. Update the app, or open the store with a schema of version 5 or later."
        )
        #expect(FileState(url) == bytes)
        #expect(try StoreDump(at: url, schema: Library.v0().withVersion(5), options: kind.options) == before)
    }

    @Test("version(at:) and inspect(at:) read an old store without migrating it", arguments: StoreKind.durable)
    func readWithoutMigrating(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        let bytes = FileState(url)
        #expect(try Store.version(at: url) == 0)
        let info = try Store.inspect(at: url)
        #expect(info.version == 0)
        #expect(info.schema == Library.v0())
        #expect(info.objectCounts == ["Author": 3, "Book": 6, "Tag": 4])
        #expect(info.history == [])
        #expect(FileState(url) == bytes)
    }

    @Test(
        "resettingStoreIfMigrationNeeded recreates an older or changed store empty at the new schema",
        arguments: StoreKind.durable)
    func resetting(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        // Even a change that cannot be inferred.
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.editAttribute("price") { $0.type = .int } } }
        let store = try Store.open(at: url, schema: v1, options: kind.options.resettingStoreIfMigrationNeeded())
        #expect(try StoreDump(store).entities.mapValues(\.count) == ["Author": 0, "Book": 0, "Tag": 0])
        try store.write { _ = try $0.insert("Tag", ["label": "fresh"]) }
        try store.close()
        #expect(try Store.version(at: url) == 1)
        #expect(try Store.inspect(at: url).schema == v1)

        let changed = v1.next(1) {
            $0.edit("Tag") { $0.attributes.append(Attribute("color", .string, isOptional: true)) }
        }
        let again = try Store.open(at: url, schema: changed, options: kind.options.resettingStoreIfMigrationNeeded())
        #expect(try again.read { try $0.count("Tag") } == 0)
        #expect(again.schema == changed)
    }

    @Test("a SQLite file that is not a Molt store is refused with notAMoltStore, unchanged", arguments: StoreKind.files)
    func notAMoltStore(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try RawSQL.execute(
            url, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes (body) VALUES ('keep me')"
        )
        let bytes = FileState(url)
        let message =
            "The file at \(url.path) is an SQLite database but not a Molt store (it has no _molt_metadata table). Choose another path; if Core Data, SwiftData, GRDB or another app wrote it, adopt it (`molt adopt`, or `Store.Options.adopting(_:)` with MoltAdoption); nothing was written."
        for attempt in [
            { _ = try Store.open(at: url, schema: Library.v0(), options: kind.options) },
            { _ = try Store.version(at: url) },
            { _ = try Store.inspect(at: url) },
        ] as [() throws -> Void] {
            let error = moltError(attempt)
            #expect(error?.code == .notAMoltStore)
            #expect(error?.message == message)
        }
        #expect(FileState(url) == bytes)
    }

    @Test("a damaged or truncated file is refused with corruptStore, unchanged", arguments: StoreKind.files)
    func corruptStore(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        let whole = try Data(contentsOf: url)
        let damages: [(String, Data)] = [
            ("garbage", Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })),
            ("truncated", whole.prefix(whole.count / 2 + 100)),
            ("header only", whole.prefix(100)),
        ]
        for (name, bytes) in damages {
            try bytes.write(to: url)
            let before = FileState(url)
            for attempt in [
                { _ = try Store.open(at: url, schema: Library.v0(), options: kind.options) },
                { _ = try Store.version(at: url) },
                { _ = try Store.inspect(at: url) },
            ] as [() throws -> Void] {
                let error = moltError(attempt)
                #expect(error?.code == .corruptStore, "\(name)")
                #expect(
                    error?.message.hasPrefix("The file at \(url.path) is not a readable Molt store: ") == true,
                    "\(name): \(error?.message ?? "no error")")
                #expect(
                    error?.message.hasSuffix(
                        "It is damaged or is not a database; restore it from a backup or choose another path. Nothing was written."
                    ) == true, "\(name)")
            }
            #expect(FileState(url) == before, "\(name)")
        }
    }

    @Test(
        "a store written by a newer Molt file format is refused with unsupportedFormat, unchanged",
        arguments: StoreKind.durable)
    func newerFileFormat(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        try RawSQL.execute(url, "UPDATE _molt_metadata SET value = '2' WHERE key = 'formatVersion'")
        let bytes = FileState(url)
        for attempt in [
            { _ = try Store.open(at: url, schema: Library.v0(), options: kind.options) },
            { _ = try Store.version(at: url) },
        ] as [() throws -> Void] {
            let error = moltError(attempt)
            #expect(error?.code == .unsupportedFormat)
            #expect(
                error?.message
                    == "The store uses Molt file format 2, but this Molt reads format 1 at most; it was written by a newer Molt. Update Molt; nothing was written."
            )
        }
        #expect(FileState(url) == bytes)
    }

    @Test("a store whose metadata was damaged is refused with corruptStore, unchanged", arguments: StoreKind.durable)
    func damagedMetadata(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        try RawSQL.execute(url, "DELETE FROM _molt_metadata WHERE key = 'schemaHash'")
        let bytes = FileState(url)
        let error = moltError { _ = try Store.open(at: url, schema: Library.v0(), options: kind.options) }
        #expect(error?.code == .corruptStore)
        #expect(
            error?.message
                == "The store's metadata table is incomplete (it lacks the format version, the schema or its hash); the file was damaged or edited by hand. Restore it from a backup."
        )
        #expect(FileState(url) == bytes)
    }

    @Test("inspecting or reading the version of a missing file throws storeNotFound and creates nothing")
    func storeNotFound() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("missing.sqlite")
        for attempt in [{ _ = try Store.inspect(at: url) }, { _ = try Store.version(at: url) }] as [() throws -> Void] {
            let error = moltError(attempt)
            #expect(error?.code == .storeNotFound)
            #expect(error?.message == "There is no store at \(url.path). Check the path.")
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("an invalid schema is refused before the file is touched", arguments: StoreKind.files)
    func invalidSchemaBeforeTouching(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let bad = Schema(version: 0) { Entity("Note") { Relationship("folder", to: "Folder") } }
        let error = moltError { _ = try Store.open(at: url, schema: bad, options: kind.options) }
        #expect(error?.code == .invalidSchema)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
