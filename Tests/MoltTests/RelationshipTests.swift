import Foundation
import Testing
import Molt

/// Relationships through the Objects API: inverses kept in step, order, delete rules, bad links.
@Suite("Relationships")
struct RelationshipTests {
    /// Folders own notes (cascade); notes have tags (many-to-many, ordered on the note's side); a project
    /// denies its deletion while it has folders.
    static func schema() -> Schema {
        Schema(version: 0) {
            Entity("Project") {
                Attribute("name", .string)
                Relationship("folders", toMany: "Folder", inverse: "project", deleteRule: .deny)
            }
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("project", to: "Project", inverse: "folders")
                Relationship("notes", toMany: "Note", inverse: "folder", deleteRule: .cascade)
            }
            Entity("Note") {
                Attribute("text", .string)
                Relationship("folder", to: "Folder", inverse: "notes")
                Relationship("tags", toMany: "Tag", ordered: true, inverse: "notes")
            }
            Entity("Tag") {
                Attribute("label", .string)
                Relationship("notes", toMany: "Note", inverse: "tags")
            }
        }
    }

    static func names(_ objects: [DynamicObject], _ attribute: String) -> [String] {
        objects.map { $0[attribute].string ?? "?" }
    }

    @Test(
        "setting a to-one relationship updates the inverse to-many, and moving it leaves the old one",
        arguments: StoreKind.allCases)
    func toOneKeepsInverse(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(), in: dir)
        try store.write { objects in
            let home = try objects.insert("Folder", ["name": "home"])
            let work = try objects.insert("Folder", ["name": "work"])
            let milk = try objects.insert("Note", ["text": "milk"])
            let eggs = try objects.insert("Note", ["text": "eggs"])
            try objects.set("folder", of: milk, to: home)
            try objects.set("folder", of: eggs, to: home)
            #expect(Self.names(try objects.destinations("notes", of: home), "text") == ["milk", "eggs"])
            try objects.set("folder", of: milk, to: work)
            #expect(Self.names(try objects.destinations("notes", of: home), "text") == ["eggs"])
            #expect(Self.names(try objects.destinations("notes", of: work), "text") == ["milk"])
            #expect(try objects.destination("folder", of: milk)?["name"] == "work")
            try objects.set("folder", of: eggs, to: nil)
            #expect(try objects.destinations("notes", of: home) == [])
            #expect(try objects.destination("folder", of: eggs) == nil)
        }
    }

    @Test(
        "adding to a to-many relationship updates the inverse to-one, taking the object from its old owner",
        arguments: StoreKind.allCases)
    func toManyKeepsInverse(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(), in: dir)
        try store.write { objects in
            let home = try objects.insert("Folder", ["name": "home"])
            let work = try objects.insert("Folder", ["name": "work"])
            let milk = try objects.insert("Note", ["text": "milk"])
            try objects.add(milk, to: "notes", of: home)
            #expect(try objects.destination("folder", of: milk)?["name"] == "home")
            try objects.add(milk, to: "notes", of: work)
            #expect(try objects.destination("folder", of: milk)?["name"] == "work")
            #expect(try objects.destinations("notes", of: home) == [])
            try objects.remove(milk, from: "notes", of: work)
            #expect(try objects.destination("folder", of: milk) == nil)
            #expect(try objects.destinations("notes", of: work) == [])
        }
    }

    @Test("a many-to-many pair stays in step, and an ordered side keeps its order", arguments: StoreKind.allCases)
    func manyToManyOrdered(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(), in: dir)
        try store.write { objects in
            let note = try objects.insert("Note", ["text": "n"])
            let other = try objects.insert("Note", ["text": "o"])
            let tags = try ["c", "a", "b"].map { try objects.insert("Tag", ["label": .string($0)]) }
            try objects.set("tags", of: note, to: [tags[2], tags[0], tags[1]])
            #expect(Self.names(try objects.destinations("tags", of: note), "label") == ["b", "c", "a"])
            try objects.add(tags[0], to: "tags", of: other)
            #expect(Self.names(try objects.destinations("notes", of: tags[0]), "text") == ["n", "o"])
            try objects.remove(tags[0], from: "tags", of: note)
            #expect(Self.names(try objects.destinations("tags", of: note), "label") == ["b", "a"])
            #expect(Self.names(try objects.destinations("notes", of: tags[0]), "text") == ["o"])
            try objects.add(tags[0], to: "tags", of: note)
            #expect(Self.names(try objects.destinations("tags", of: note), "label") == ["b", "a", "c"])
            try objects.set("tags", of: note, to: [tags[1]])
            #expect(Self.names(try objects.destinations("tags", of: note), "label") == ["a"])
            #expect(Self.names(try objects.destinations("notes", of: tags[2]), "text") == [])
        }
    }

    @Test(
        "delete rules: cascade deletes the notes, nullify unlinks, deny refuses with its exact message",
        arguments: StoreKind.allCases)
    func deleteRules(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(), in: dir)
        let (project, folder) = try store.write { objects -> (DynamicObject, DynamicObject) in
            let project = try objects.insert("Project", ["name": "p"])
            let folder = try objects.insert("Folder", ["name": "f"])
            try objects.set("project", of: folder, to: project)
            let tag = try objects.insert("Tag", ["label": "t"])
            for text in ["a", "b"] {
                let note = try objects.insert("Note", ["text": .string(text)])
                try objects.set("folder", of: note, to: folder)
                try objects.add(tag, to: "tags", of: note)
            }
            return (project, folder)
        }
        // deny: the project still has a folder.
        let denied = moltError { try store.write { try $0.delete(project) } }
        #expect(denied?.code == .constraintViolation)
        #expect(
            denied?.message
                == "Cannot delete 'Project' _id 1: its relationship 'folders' has the delete rule deny and still points to 1 object(s). Remove them first."
        )
        #expect(try store.read { try $0.count("Project") } == 1)
        // cascade: deleting the folder deletes its notes; nullify: the tag stays, unlinked from them.
        try store.write { try $0.delete(folder) }
        try store.read { objects in
            #expect(try objects.count("Folder") == 0)
            #expect(try objects.count("Note") == 0)
            let tag = try objects.fetch("Tag").first!
            #expect(try objects.destinations("notes", of: tag) == [])
            let project = try objects.fetch("Project").first!
            #expect(try objects.destinations("folders", of: project) == [])
        }
        // Nothing points to the project now: deny lets it go.
        try store.write { try $0.delete(project) }
        #expect(try store.read { try $0.count("Project") } == 0)
    }

    @Test("deleting a linked object without a rule nullifies the links to it", arguments: StoreKind.allCases)
    func nullifyOnDelete(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(), in: dir)
        try store.write { objects in
            let folder = try objects.insert("Folder", ["name": "f"])
            let note = try objects.insert("Note", ["text": "n"])
            try objects.set("folder", of: note, to: folder)
            let tag = try objects.insert("Tag", ["label": "t"])
            try objects.add(tag, to: "tags", of: note)
            try objects.delete(note)
            #expect(try objects.destinations("notes", of: folder) == [])
            #expect(try objects.destinations("notes", of: tag) == [])
            #expect(try objects.count("Tag") == 1)
        }
    }

    @Test("bad links are refused with exact messages", arguments: StoreKind.allCases)
    func badLinks(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(), in: dir)
        try store.write { objects in
            let folder = try objects.insert("Folder", ["name": "f"])
            let tags = try [objects.insert("Tag", ["label": "a"]), objects.insert("Tag", ["label": "b"])]
            let note = try objects.insert("Note", ["text": "n"])
            let cases: [(String, () throws -> Void)] = [
                (
                    "Relationship 'folder' points to 'Folder' objects, not 'Tag'.",
                    { try objects.set("folder", of: note, to: tags[0]) }
                ),
                (
                    "Relationship 'Note.folder' is to-one; give it one object at most.",
                    { try objects.set("folder", of: note, to: [folder, folder]) }
                ),
                (
                    "Entity 'Note' has no relationship 'owner'; it has folder, tags.",
                    { try objects.set("owner", of: note, to: folder) }
                ),
                (
                    "This 'Note' object was never inserted; insert it before linking it.",
                    {
                        try objects.set("folder", of: DynamicObject(entity: "Note"), to: folder)
                    }
                ),
            ]
            for (message, body) in cases {
                let error = moltError(body)
                #expect(error?.message == message)
            }
            #expect(try objects.destinations("notes", of: folder) == [])
        }
    }

    @Test(
        "deleteAll of nullify-only objects unlinks them from every side, in one statement",
        arguments: StoreKind.allCases)
    func deleteAllUnlinks(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(), in: dir)
        try store.write { (objects: Objects) throws in
            let note = try objects.insert("Note", ["text": "milk"])
            let tags = try ["a", "b", "c"].map { try objects.insert("Tag", ["label": .string($0)]) }
            try objects.set("tags", of: note, to: tags)
            #expect(try objects.deleteAll("Tag", where: .notEqual("label", "b")) == 2)
            #expect(Self.names(try objects.destinations("tags", of: note), "label") == ["b"])
            #expect(try objects.destinations("notes", of: tags[1]).map(\.id) == [note.id])
        }
    }
}
