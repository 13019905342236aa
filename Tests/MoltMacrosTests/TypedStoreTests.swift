import Foundation
import MoltMacros
import Testing

@Suite("Typed store API")
struct TypedStoreTests {
    typealias Note = NotesV1.Note
    typealias Folder = NotesV1.Folder

    static let day = Date(timeIntervalSince1970: 1_700_000_000)

    func note(_ title: String, count: Int = 0, subtitle: String? = nil) -> Note {
        Note(uuid: UUID(), title: title, count: count, subtitle: subtitle, created: Self.day)
    }

    @Test("@Model derives the entity: attributes, optionality, literal defaults, primary key, relationships")
    func derivedEntity() {
        let entity = Note.entity
        #expect(entity.name == "Note")
        #expect(entity.primaryKey == "uuid")
        #expect(
            entity.attributes == [
                Attribute("uuid", .uuid), Attribute("title", .string), Attribute("count", .int, default: 0),
                Attribute("rating", .double, default: 2.5), Attribute("pinned", .bool, default: false),
                Attribute("subtitle", .string, isOptional: true), Attribute("created", .date),
                Attribute("attachment", .data, isOptional: true), Attribute("big", .int, default: -1),
            ])
        #expect(entity.relationships == [Relationship("folder", to: "Folder", inverse: "notes")])
        #expect(
            Folder.entity.relationships == [
                Relationship("notes", toMany: "Note", inverse: "folder", deleteRule: .cascade)
            ])
        #expect(Folder.entity.indexes == [Index(["name"], unique: true)])
        #expect(NotesV2.Note.entity.attribute(named: "heading")?.originalName == "title")
        #expect(Tag.entity.attributes == [Attribute("label", .string)])
    }

    @Test("Insert, fetch, save and delete round-trip every supported type", arguments: TypedStoreKind.allCases)
    func roundTrip(kind: TypedStoreKind) throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(NotesV1.schema, in: folder.url)
        let uuid = UUID()
        let bytes = Data([1, 2, 3])
        let original = Note(
            uuid: uuid, title: "Milk", count: 3, rating: 4.5, pinned: true, subtitle: "2 litres", created: Self.day,
            attachment: bytes, big: 1 << 40)
        let inserted = try store.write { try $0.insert(original) }
        #expect(inserted.persistentID == 1)
        var fetched = try store.read { try $0.fetch(Note.self) }
        #expect(fetched.count == 1)
        var expected = original
        expected.persistentID = 1
        #expect(
            fetched[0].uuid == uuid && fetched[0].title == "Milk" && fetched[0].count == 3 && fetched[0].rating == 4.5)
        #expect(fetched[0].pinned && fetched[0].subtitle == "2 litres" && fetched[0].created == Self.day)
        #expect(fetched[0].attachment == bytes && fetched[0].big == 1 << 40 && fetched[0].persistentID == 1)

        fetched[0].subtitle = nil
        fetched[0].count = 7
        try store.write { try $0.save(fetched[0]) }
        let saved = try store.read { try $0.model(Note.self, primaryKey: uuid) }
        #expect(saved?.subtitle == nil)
        #expect(saved?.count == 7)
        let dynamic = try store.read { try $0.object("Note", id: 1) }
        #expect(dynamic?["count"] == 7)
        #expect(dynamic?["subtitle"] == .null)

        try store.write { try $0.delete(saved!) }
        #expect(try store.read { try $0.count(Note.self) } == 0)
    }

    @Test(
        "Predicates on key paths: equality, comparison, contains, and, or, not, null",
        arguments: TypedStoreKind.allCases)
    func predicates(kind: TypedStoreKind) throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(NotesV1.schema, in: folder.url)
        try store.write { objects in
            try objects.insert(contentsOf: [
                note("Milk", count: 1), note("Bread", count: 5, subtitle: "rye"), note("Butter", count: 3),
                note("Jam", count: 8, subtitle: "apricot"),
            ])
        }
        func titles(_ predicate: ModelPredicate<Note>) throws -> [String] {
            try store.read { try $0.fetch(Note.self, where: predicate, orderBy: [.ascending(\.title)]).map(\.title) }
        }
        #expect(try titles(\.title == "Milk") == ["Milk"])
        #expect(try titles(\.title != "Milk") == ["Bread", "Butter", "Jam"])
        #expect(try titles(\.count > 3) == ["Bread", "Jam"])
        #expect(try titles(\.count <= 3) == ["Butter", "Milk"])
        #expect(try titles(.contains(\.title, "utt")) == ["Butter"])
        #expect(try titles(.hasPrefix(\.title, "B") && \.count < 5) == ["Butter"])
        #expect(try titles(\.title == "Milk" || \.count >= 8) == ["Jam", "Milk"])
        #expect(try titles(!(\.count > 1)) == ["Milk"])
        #expect(try titles(\.subtitle == nil) == ["Butter", "Milk"])
        #expect(try titles(.contains(\.subtitle, "ric")) == ["Jam"])
        #expect(try titles(.isIn(\.count, [1, 8])) == ["Jam", "Milk"])

        let sorted = try store.read {
            try $0.fetch(Note.self, orderBy: [.descending(\.count)], limit: 2, offset: 1).map(\.title)
        }
        #expect(sorted == ["Bread", "Butter"])
        #expect(try store.read { try $0.count(Note.self, where: \.count > 2) } == 3)
        #expect(try store.write { try $0.deleteAll(Note.self, where: \.count > 4) } == 2)
        #expect(try store.read { try $0.count(Note.self) } == 2)
    }

    @Test("A key path that is not stored makes the fetch throw, naming the entity")
    func unstoredKeyPath() throws {
        let store = try Store.inMemory(schema: NotesV1.schema)
        let error = #expect(throws: MoltError.self) {
            try store.read { try $0.fetch(Note.self, where: \.shout == "X") }
        }
        #expect(
            error?.message
                == "A key path to a 'String' value is not a stored property of 'Note': use an attribute or a relationship, not a computed or @Transient property."
        )
    }

    @Test(
        "Relationships: to-one links keep their to-many inverse in step; cascade deletes",
        arguments: TypedStoreKind.allCases)
    func relationships(kind: TypedStoreKind) throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(NotesV1.schema, in: folder.url)
        try store.write { objects in
            let home = try objects.insert(Folder(name: "Home"))
            let work = try objects.insert(Folder(name: "Work"))
            var milk = note("Milk")
            milk.folder = ToOne(home)
            milk = try objects.insert(milk)
            let bread = try objects.insert(note("Bread"))
            try objects.add(bread, to: \.notes, of: home)
            #expect(try objects.destinations(\.notes, of: home).map(\.title) == ["Milk", "Bread"])
            #expect(try objects.destination(\.folder, of: milk)?.name == "Home")
            #expect(try objects.model(Note.self, id: bread.persistentID!)?.folder == ToOne(home))

            milk.folder = ToOne(work)
            try objects.save(milk)
            #expect(try objects.destinations(\.notes, of: home).map(\.title) == ["Bread"])
            #expect(try objects.destinations(\.notes, of: work).map(\.title) == ["Milk"])
            #expect(try objects.fetch(Note.self, where: .linked(\.folder, to: work)).map(\.title) == ["Milk"])

            try objects.delete(work)
            #expect(try objects.fetch(Note.self).map(\.title) == ["Bread"])
        }
    }

    @Test("A model that does not match the store's schema is refused with the differences")
    func mismatch() throws {
        let store = try Store.inMemory(schema: NotesV1.schema)
        let error = #expect(throws: MoltError.self) { try store.read { try $0.fetch(NotesV2.Note.self) } }
        #expect(
            error?.message == """
                The model 'Note' does not match entity 'Note' of the store's schema version 1:
                - Attribute 'Note.title' has been renamed to 'heading'.
                - Attribute 'Note.words' has been added.
                Open the store with the schema that 'Note' belongs to.
                """)
    }

    @Test(
        "The async API runs transactions off the caller and returns Sendable models", arguments: TypedStoreKind.allCases
    )
    func asyncAPI(kind: TypedStoreKind) async throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(NotesV1.schema, in: folder.url)
        let milk = note("Milk", count: 2)
        let inserted = try await store.write { objects in try objects.insert(milk) }
        let fetched = try await store.read { objects in try objects.fetch(Note.self, where: \.count == 2) }
        #expect(fetched.map(\.persistentID) == [inserted.persistentID])
        await #expect(throws: MoltError.self) {
            try await store.write { objects in
                try objects.insert(note("Bread"))
                throw MoltError(.cancelled, "stop")
            }
        }
        #expect(try await store.read { try $0.count(Note.self) } == 1)
    }

    @Test("Opening with a migration plan of versioned schemas migrates the renamed attribute")
    func versionedPlan() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("molt-macros-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("notes.sqlite")
        let uuid = UUID()
        let v1 = try Store.open(at: url, schema: NotesV1.schema)
        try v1.write { try $0.insert(Note(uuid: uuid, title: "Milk", count: 2, created: Self.day)) }
        try v1.close()

        let v2 = try Store.open(at: url, plan: NotesPlan.self)
        let notes = try v2.read { try $0.fetch(NotesV2.Note.self) }
        #expect(notes.map(\.heading) == ["Milk"])
        #expect(notes.map(\.uuid) == [uuid])
        #expect(notes.map(\.words) == [0])
        #expect(notes.map(\.count) == [2])
        #expect(v2.schema.version == 2)
    }

    @Test("Opening asynchronously with a plan migrates off the caller, with progress")
    func asyncPlan() async throws {
        let folder = ScratchFolder()
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let url = folder.url.appendingPathComponent("notes.sqlite")
        let v1 = try await Store.open(at: url, schema: NotesV1.schema)
        try await v1.write { try $0.insert(Note(uuid: UUID(), title: "Milk", created: Self.day)) }
        try v1.close()
        let opening = try Store.opening(at: url, plan: NotesPlan.self)
        let store = try await opening.store
        #expect(try await store.read { try $0.fetch(NotesV2.Note.self).map(\.heading) } == ["Milk"])
        try store.close()
        let again = try await Store.open(at: url, plan: NotesPlan.self)
        #expect(again.schema.version == 2)
    }

    @Test("forEach lets its body fetch and save the same model without disturbing the iteration")
    func reentrantForEach() throws {
        let store = try Store.inMemory(schema: NotesV1.schema)
        try store.write { objects in
            try objects.insert(contentsOf: [note("Milk", count: 1), note("Bread", count: 2), note("Jam", count: 3)])
            var seen: [String] = []
            try objects.forEach(Note.self, orderBy: [.ascending(\.count)]) { note in
                seen.append(note.title)
                // The very query the iteration runs: it must not reset the iteration's statement.
                var copy = try objects.fetch(Note.self, orderBy: [.ascending(\.count)]).first {
                    $0.title == note.title
                }!
                copy.count *= 10
                try objects.save(copy)
            }
            #expect(seen == ["Milk", "Bread", "Jam"])
            #expect(try objects.fetch(Note.self).map(\.count) == [10, 20, 30])
        }
    }

    @Test("A NaN is refused with the dynamic API's message rather than stored as null")
    func nanRefused() throws {
        let store = try Store.inMemory(schema: NotesV1.schema)
        var milk = note("Milk")
        milk.rating = .nan
        let error = #expect(throws: MoltError.self) { try store.write { try $0.insert(milk) } }
        #expect(error?.message == "Attribute 'Note.rating' holds double values, not nan.")
        #expect(error?.property == "rating")
        let saved = try store.write { try $0.insert(note("Bread")) }
        var changed = saved
        changed.rating = .nan
        #expect(throws: MoltError.self) { try store.write { try $0.save(changed) } }
        #expect(try store.read { try $0.fetch(Note.self).map(\.rating) } == [2.5])
    }
}
