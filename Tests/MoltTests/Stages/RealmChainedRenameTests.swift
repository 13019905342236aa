import Foundation
import Testing
import Molt

/// A Realm migration block written one release at a time renames `name → title` when `oldSchemaVersion < 1` and
/// `title → heading` when `oldSchemaVersion < 2` (and `count → total → amount`, widened to a double on the way).
/// In Realm each rename renames the old object's property in place, so the block works from any version; so it
/// does here, whether a store jumps from version 0 to 2 or walks 0 → 1 → 2 one app release at a time.
@Suite("Realm-form plans: renames chained across versions")
struct RealmChainedRenameTests {
    static func schema(_ version: Int) -> Schema {
        Schema(version: version) {
            Entity("Note", primaryKey: "uuid") {
                Attribute("uuid", .uuid)
                Attribute(["name", "title", "heading"][version], .string)
                Attribute(["count", "total", "amount"][version], version < 2 ? .int : .double)
                Attribute("body", .string, isOptional: true)
            }
        }
    }

    /// The block as each release shipped it: release 1 has the first `if`, release 2 both.
    static func block(upTo release: Int) -> @Sendable (Migration, Int) throws -> Void {
        { migration, oldSchemaVersion in
            if oldSchemaVersion < 1 {
                try migration.renameProperty(onType: "Note", from: "name", to: "title")
                try migration.renameProperty(onType: "Note", from: "count", to: "total")
            }
            if release >= 2, oldSchemaVersion < 2 {
                try migration.renameProperty(onType: "Note", from: "title", to: "heading")
                try migration.renameProperty(onType: "Note", from: "total", to: "amount")
            }
        }
    }

    struct Note: Equatable {
        var id: UUID, title: String, count: Int64, body: String?
    }

    static let notes: [Note] = (0..<5).map { i in
        Note(id: UUID(), title: "note \(i) ✓", count: Int64(i * 1_000_003) - 2, body: i % 2 == 0 ? nil : "body \(i)")
    }

    /// A store of `version` holding ``notes`` under that version's names.
    static func makeStore(at location: StoreLocation, version: Int, kind: StoreKind) throws {
        let store = try Store.open(at: location, schema: schema(version), options: kind.options)
        try store.write { objects in
            for note in notes {
                try objects.insert(
                    "Note",
                    [
                        "uuid": .uuid(note.id), ["name", "title", "heading"][version]: .string(note.title),
                        ["count", "total", "amount"][version]: version < 2
                            ? .int(note.count) : .double(Double(note.count)),
                        "body": note.body.map(Value.string) ?? .null,
                    ])
            }
        }
        try store.close()
    }

    /// Every note, read at `version`'s names, equals what was written at version 0.
    static func expectNotes(in store: Store, at version: Int, sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        let titleName = ["name", "title", "heading"][version]
        let countName = ["count", "total", "amount"][version]
        let stored = try store.read { objects in try objects.fetch("Note") }
        #expect(stored.count == notes.count, sourceLocation: sourceLocation)
        for note in notes {
            let object = try #require(
                try store.read { try $0.object("Note", primaryKey: .uuid(note.id)) }, sourceLocation: sourceLocation)
            #expect(object[titleName] == .string(note.title), sourceLocation: sourceLocation)
            #expect(
                object[countName] == (version < 2 ? .int(note.count) : .double(Double(note.count))),
                sourceLocation: sourceLocation)
            #expect(object["body"] == (note.body.map(Value.string) ?? .null), sourceLocation: sourceLocation)
        }
    }

    @Test(
        "a version-0 store jumps to version 2 through both chained renames, every value kept",
        arguments: StoreKind.durable)
    func jumpOverTheIntermediateName(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        try Self.makeStore(at: location, version: 0, kind: kind)
        let plan = MigrationPlan.realm(schema: Self.schema(2), migrationBlock: Self.block(upTo: 2))
        let store = try Store.open(at: location, schema: Self.schema(2), options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        #expect(store.outcome == .migrated(fromVersion: 0))
        try Self.expectNotes(in: store, at: 2)
        #expect(try store.history().map { "\($0.fromVersion) → \($0.toVersion)" } == ["0 → 2"])
        // The renamed values were carried: the history never calls them dropped.
        let removed = try #require(try store.history().last).dropped.filter { $0.count > 0 }
        #expect(Set(removed.compactMap(\.property)) == ["name", "count"] && removed.allSatisfy(\.wasReadByStage))
    }

    @Test("a store walks 0 → 1 → 2, one release's block at a time, every value kept", arguments: StoreKind.durable)
    func walkOneReleaseAtATime(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        try Self.makeStore(at: location, version: 0, kind: kind)

        let release1 = MigrationPlan.realm(schema: Self.schema(1), migrationBlock: Self.block(upTo: 1))
        let atVersion1 = try Store.open(
            at: location, schema: Self.schema(1), options: kind.options.migrating(with: release1))
        #expect(atVersion1.outcome == .migrated(fromVersion: 0))
        try Self.expectNotes(in: atVersion1, at: 1)
        try atVersion1.close()

        let release2 = MigrationPlan.realm(schema: Self.schema(2), migrationBlock: Self.block(upTo: 2))
        let atVersion2 = try Store.open(
            at: location, schema: Self.schema(2), options: kind.options.migrating(with: release2))
        defer { try? atVersion2.close() }
        #expect(atVersion2.outcome == .migrated(fromVersion: 1))
        try Self.expectNotes(in: atVersion2, at: 2)
        #expect(try atVersion2.history().map { "\($0.fromVersion) → \($0.toVersion)" } == ["0 → 1", "1 → 2"])
    }

    @Test(
        "after chained renames the old side reads the attribute by every name it was given",
        arguments: StoreKind.durable)
    func oldSideReadsEveryName(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        try Self.makeStore(at: location, version: 0, kind: kind)
        var target = Self.schema(2)
        target.entities[0].attributes.append(Attribute("summary", .string))
        let plan = MigrationPlan.realm(schema: target) { migration, oldSchemaVersion in
            try Self.block(upTo: 2)(migration, oldSchemaVersion)
            // Code written against version 2's names, as the block of release 3 would be: `old["heading"]` reads
            // the stored `name`, as do `old["title"]` and `old["name"]`.
            try migration.enumerateObjects(ofType: "Note") { old, new in
                #expect(old["heading"] == old["name"] && old["title"] == old["name"])
                #expect(old["amount"] == old["count"] && old["total"] == old["count"])
                new["summary"] = .string(
                    "\(old["heading"].string ?? "?") × \(old["amount"].int.map(String.init) ?? "?")")
            }
        }
        let store = try Store.open(at: location, schema: target, options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        for note in Self.notes {
            let object = try #require(try store.read { try $0.object("Note", primaryKey: .uuid(note.id)) })
            #expect(object["summary"] == .string("\(note.title) × \(note.count)"))
            #expect(object["heading"] == .string(note.title))
        }
    }

    @Test(
        "a rename to a name the new version lacks, never renamed on, is refused by name and leaves the store unchanged",
        arguments: StoreKind.durable)
    func danglingIntermediateNameIsRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        try Self.makeStore(at: location, version: 0, kind: kind)
        let before = FileState(location)
        // Release 2's block, with the second rename of `name` forgotten.
        let plan = MigrationPlan.realm(schema: Self.schema(2)) { migration, oldSchemaVersion in
            if oldSchemaVersion < 1 {
                try migration.renameProperty(onType: "Note", from: "name", to: "title")
                try migration.renameProperty(onType: "Note", from: "count", to: "total")
            }
            if oldSchemaVersion < 2 {
                try migration.renameProperty(onType: "Note", from: "total", to: "amount")
            }
        }
        let error = try #require(
            moltError {
                _ = try Store.open(at: location, schema: Self.schema(2), options: kind.options.migrating(with: plan))
            })
        #expect(error.code == .invalidValue && error.entity == "Note" && error.property == "title")
        #expect(
            error.message == """
                renameProperty(onType: "Note", from: "name", to: "title") gave 'Note.name' the name 'title', which version 2 does not have, and no later renameProperty renamed 'title' on to an attribute it has (uuid, heading, amount, body). Rename it on (for example `renameProperty(onType: "Note", from: "title", to: …)` in the block of the version that renamed it again), or rename 'name' straight to an attribute of version 2. The store was left at version 0.
                """)
        #expect(FileState(location) == before)
        let untouched = try Store.open(at: location, schema: Self.schema(0), options: kind.options)
        defer { try? untouched.close() }
        try Self.expectNotes(in: untouched, at: 0)
    }

    @Test("renaming to a name that is another attribute of the old version is refused at once")
    func intermediateNameTakenByAnotherAttribute() throws {
        let dir = TemporaryDirectory()
        let location = try StoreKind.rollback.location(in: dir)
        try Self.makeStore(at: location, version: 0, kind: .rollback)
        let plan = MigrationPlan.realm(schema: Self.schema(2)) { migration, _ in
            try migration.renameProperty(onType: "Note", from: "name", to: "count")
        }
        let error = try #require(
            moltError {
                _ = try Store.open(
                    at: location, schema: Self.schema(2), options: StoreKind.rollback.options.migrating(with: plan))
            })
        #expect(
            error.message
                == "Cannot rename 'Note.name' to 'count': version 2 has no attribute 'count', and in version 0 'count' is another attribute. Rename 'name' to an attribute of version 2."
        )
    }
}
