import Foundation
import Testing
import Molt

/// An index may hold to-one relationships beside attributes (Core Data's compound indexes and uniqueness
/// constraints do): "no two notes of a folder share a title". Declared, enforced on write, added by a migration
/// (refused, naming the values, when the stored data breaks it), carried through a rename, and checked by
/// `verify()` — on every store kind.
@Suite("Indexes over to-one relationships")
struct ToOneIndexTests {
    static func schema(
        version: Int = 1, unique: Bool = true, folderName: String = "folder", original: String? = nil
    ) -> Schema {
        Schema(version: version) {
            Entity("Folder") { Attribute("name", .string) }
            Entity("Note") {
                Attribute("title", .string)
                Relationship(folderName, to: "Folder", originalName: original)
                if unique { Index([folderName, "title"], unique: true) }
            }
        }
    }

    /// Two folders, and in each a note titled "a".
    static func fill(_ store: Store) throws {
        try store.write { objects in
            for name in ["one", "two"] {
                let folder = try objects.insert("Folder", ["name": .string(name)])
                let note = try objects.insert("Note", ["title": "a"])
                try objects.set("folder", of: note, to: folder)
            }
        }
    }

    @Test(
        "a unique index over (folder, title) refuses a second note of the same title in a folder, not in another",
        arguments: StoreKind.allCases)
    func enforcedOnWrite(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(), in: dir)
        try Self.fill(store)
        let error = moltError {
            try store.write { objects in
                let folder = try #require(try objects.fetch("Folder").first)
                let note = try objects.insert("Note", ["title": "a"])
                try objects.set("folder", of: note, to: folder)
            }
        }
        #expect(error?.code == .constraintViolation, "\(error?.message ?? "no error")")
        #expect(try store.read { try $0.count("Note") } == 2)
        try store.write { objects in
            let folder = try #require(try objects.fetch("Folder").first)
            let note = try objects.insert("Note", ["title": "b"])
            try objects.set("folder", of: note, to: folder)
        }
        #expect(try store.read { try $0.count("Note") } == 3)
    }

    @Test(
        "a migration adds the index when the data allows it, and refuses naming the values when it does not",
        arguments: StoreKind.durable)
    func addedByMigration(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        var store = try kind.open(in: dir, schema: Self.schema(unique: false))
        try Self.fill(store)
        try store.close()
        let plan = try MigrationPlan(schemas: [Self.schema(unique: false), Self.schema(version: 2)])
        store = try kind.open(in: dir, schema: Self.schema(version: 2), options: kind.options.migrating(with: plan))
        try store.verify()
        try store.close()

        // A store where one folder holds two notes titled "a".
        let crowded = TemporaryDirectory()
        store = try kind.open(in: crowded, schema: Self.schema(unique: false))
        try Self.fill(store)
        try store.write { objects in
            let folder = try #require(try objects.fetch("Folder").first)
            let note = try objects.insert("Note", ["title": "a"])
            try objects.set("folder", of: note, to: folder)
        }
        try store.close()
        let error = moltError {
            _ = try kind.open(in: crowded, schema: Self.schema(version: 2), options: kind.options.migrating(with: plan))
        }
        #expect(error?.code == .constraintViolation, "\(error?.message ?? "no error")")
        #expect(error?.message.contains("'Note'(folder, title)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("is held by 2 objects") == true, "\(error?.message ?? "")")
        #expect(try Store.version(at: try kind.location(in: crowded)) == 1)
    }

    @Test(
        "renaming the linked relationship keeps the index, and verify() finds the table as the schema says",
        arguments: StoreKind.durable)
    func renamed(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        var store = try kind.open(in: dir, schema: Self.schema())
        try Self.fill(store)
        try store.close()
        let renamed = Self.schema(version: 2, folderName: "group", original: "folder")
        store = try kind.open(
            in: dir, schema: renamed,
            options: kind.options.migrating(with: try MigrationPlan(schemas: [Self.schema(), renamed])))
        try store.verify()
        let error = moltError {
            try store.write { objects in
                let folder = try #require(try objects.fetch("Folder").first)
                let note = try objects.insert("Note", ["title": "a"])
                try objects.set("group", of: note, to: folder)
            }
        }
        #expect(error?.code == .constraintViolation, "\(error?.message ?? "no error")")
    }

    @Test("an index over a to-many relationship is refused, naming it; the snapshot keeps a to-one index")
    func validation() throws {
        let toMany = Schema(version: 1) {
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("notes", toMany: "Note")
                Index(["notes"])
            }
            Entity("Note") { Attribute("title", .string) }
        }
        let error = moltError { try toMany.validate() }
        #expect(error?.code == .invalidSchema)
        #expect(
            error?.message.contains("an index of 'Folder' names the to-many relationship 'notes'") == true,
            "\(error?.message ?? "")")
        let missing = Schema(version: 1) {
            Entity("Note") {
                Attribute("title", .string)
                Index(["folder"])
            }
        }
        #expect(
            moltError { try missing.validate() }?.message.contains("neither an attribute nor a to-one relationship")
                == true)

        let schema = Self.schema()
        try schema.validate()
        #expect(try Schema(snapshotJSON: schema.snapshotJSON()) == schema)
    }
}
