import Foundation
import Molt
import MoltAdoption
import Testing

/// Objects that an adoption found under a to-many relationship's minimum count (the original's engine never held
/// them to it: Core Data checks minimum counts only at save): kept and listed in the adoption record, then held to
/// the minimum only by the writes and the migration stages that change them, as Core Data validates only the
/// objects a save changes; ``Store/verify()`` lists them.
@Suite("Objects an adoption found under a minimum count")
struct AdoptedShortOwnersTests {
    /// FMDB's notes (``SQLiteAdoptionTests/fmdbDatabase(at:)``) with `Folder.notes` held to 2 at `version`: folder 7
    /// ("Inbox") holds note 1 only, folder 9 ("Archive") none.
    static func schema(_ version: Int = 1, minimum: Int = 2) -> Schema {
        var schema = SQLiteAdoptionTests.fmdbV1
        schema.version = version
        schema.edit("Folder") { $0.editRelationship("notes") { $0.minimumCount = minimum } }
        return schema
    }

    static let recorded =
        "2 'Folder' objects (_id 7: 1, _id 9: 0) hold fewer than 2 'notes' (SQLite does not check minimum counts); Molt keeps them and checks them when they are written"

    /// Adopts the FMDB database at version 1 and returns where the store is.
    static func adopted(_ kind: StoreKind, in directory: TemporaryDirectory) throws -> (StoreLocation, AdoptionReport) {
        let url = directory.file("notes.db")
        try SQLiteAdoptionTests.fmdbDatabase(at: url)
        let location = kind == .postgres ? try kind.location(in: directory) : .file(url)
        let adoption = SQLiteAdoption(Self.schema(), from: kind == .postgres ? url : nil)
        let report = try #require(try adoption.adopt(at: location, schema: Self.schema(), options: Store.Options()))
        return (location, report)
    }

    @Test("the adoption keeps them, lists them in its record, and verify() reports them", arguments: StoreKind.durable)
    func recorded(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (location, report) = try Self.adopted(kind, in: directory)
        #expect(report.comparison.agrees)
        #expect(report.record.underMinimumCount == [Self.recorded])
        #expect(try Store.inspect(at: location).adoption?.underMinimumCount == [Self.recorded])
        let store = try Store.open(at: location, schema: Self.schema())
        defer { try? store.close() }
        #expect(try store.read { try $0.count("Folder") } == 2)
        #expect(
            try store.verify().underMinimumCount == [
                "the relationship 'Folder.notes' is under its minimum count of 2: 2 'Folder' objects hold fewer than 2 'notes' (_id 7: 1, _id 9: 0)"
            ])
    }

    @Test(
        "a write may update them or add links, but removing one of their links is refused, as is a new short object",
        arguments: StoreKind.durable)
    func writes(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (location, _) = try Self.adopted(kind, in: directory)
        let store = try Store.open(at: location, schema: Self.schema())
        defer { try? store.close() }
        // Untouched links: an attribute updated, a link added that still leaves the folder short.
        try store.write { objects in
            for id: Int64 in [7, 9] {
                var folder = try #require(try objects.object("Folder", id: id))
                folder["displayName"] = .string("Renamed \(id)")
                try objects.update(folder)
            }
            try objects.add(
                try #require(try objects.object("Note", id: 5)), to: "notes",
                of: try #require(try objects.object("Folder", id: 9)))
        }
        let before = try StoreDump(store)
        let removed = moltError {
            try store.write { objects in
                try objects.remove(
                    try #require(try objects.object("Note", id: 1)), from: "notes",
                    of: try #require(try objects.object("Folder", id: 7)))
            }
        }
        #expect(
            removed?.message
                == "Relationship 'Folder.notes' must hold at least 2 objects, so nothing was written: 1 'Folder' object holds fewer than 2 'notes' (_id 7: 0) when the write ends. Link enough 'Note' to each in the same write (`objects.add(destination, to: \"notes\", of: object)`), or delete them."
        )
        let deleted = moltError {
            try store.write { objects in try objects.delete(try #require(try objects.object("Note", id: 5))) }
        }
        #expect(deleted?.message.contains("(_id 9: 0) when the write ends") == true, "\(String(describing: deleted))")
        let inserted = moltError { try store.write { _ = try $0.insert("Folder", ["displayName": "New"]) } }
        #expect(inserted?.message.contains("1 'Folder' object holds fewer than 2 'notes'") == true)
        #expect(try StoreDump(store) == before)
    }

    @Test(
        "a migration that keeps the minimum commits though a stage writes them; one that removes a link is refused; a raise keeps them",
        arguments: StoreKind.durable)
    func migrations(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (location, _) = try Self.adopted(kind, in: directory)
        let v1 = Self.schema(1)
        var v2 = Self.schema(2)
        v2.edit("Folder") { $0.attributes.append(Attribute("archived", .bool, default: false)) }
        let before = try Store.open(at: location, schema: v1)
        let dump = try StoreDump(before)
        try before.close()
        // Removing the one note of folder 7 leaves it with fewer than it had: the stage's doing, refused.
        let careless = MigrationStage.custom(from: 1, to: 2) { migration in
            let folder = try #require(try migration.new.object("Folder", id: 7))
            try migration.new.remove(
                try #require(try migration.new.object("Note", id: 1)), from: "notes", of: folder)
        }
        let refused = moltError {
            _ = try Store.open(
                at: location, schema: v2,
                options: Store.Options().migrating(with: try MigrationPlan(schemas: [v1, v2], stages: [careless])))
        }
        #expect(
            refused?.message
                == "The migration to version 2 left the relationship 'Folder.notes' under its minimum count of 2, so nothing was committed: 1 'Folder' object holds fewer than 2 'notes' (_id 7: 0). Link them (or delete them) in a custom stage, or lower the minimum count of 'Folder.notes'."
        )
        let unchanged = try Store.open(at: location, schema: v1)
        #expect(try StoreDump(unchanged) == dump)
        try unchanged.close()
        // A stage that writes every folder (and a note), adding none of their links, commits.
        let archiving = MigrationStage.custom(from: 1, to: 2) { migration in
            try migration.enumerateObjects(ofType: "Folder") { old, new in
                new["archived"] = .bool(old["displayName"] == "Archive")
            }
            try migration.new.insert("Note", ["title": "Added", "pinned": false])
        }
        let store = try Store.open(
            at: location, schema: v2,
            options: Store.Options().migrating(with: try MigrationPlan(schemas: [v1, v2], stages: [archiving])))
        defer { try? store.close() }
        #expect(try store.read { try $0.fetch("Folder").map { $0["archived"] } } == [false, true])
        #expect(
            try store.verify().underMinimumCount.map {
                $0.contains("2 'Folder' objects hold fewer than 2 'notes' (_id 7: 1, _id 9: 0)")
            }
                == [true])
        // Raising the minimum keeps them too, listed in the step's history entry; a strict version refuses them.
        var v3 = Self.schema(3, minimum: 3)
        v3.edit("Folder") { $0.attributes.append(Attribute("archived", .bool, default: false)) }
        try store.close()
        let raised = moltError { _ = try Store.open(at: location, schema: v3.refusingShortOwners()) }
        #expect(raised?.message.contains("2 'Folder' objects hold fewer than 3 'notes'") == true)
        let kept = try Store.open(at: location, schema: v3)
        defer { try? kept.close() }
        #expect(
            try kept.history().last?.stepRecords.map(\.underMinimumCount) == [
                ["2 'Folder' objects (_id 7: 1, _id 9: 0) hold fewer than 3 'notes'"]
            ])
    }
}
