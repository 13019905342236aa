import Foundation
import Testing
@testable import Molt

/// An inferred step never deletes data the schema does not declare deleted: it refuses, naming both sides, the
/// count and the fixes, and writes nothing. Plain attribute removals stay inferred and are reported.
@Suite("No silent loss: declared deletions")
struct DeclaredDeletionTests {
    /// v1 without the Tag entity (and Book's relationship to it), optionally declaring the deletion.
    static func withoutTags(declared: Bool) -> Schema {
        Library.v0().next(1) {
            $0.entities.removeAll { $0.name == "Tag" }
            $0.edit("Book") { $0.relationships.removeAll { $0.name == "tags" } }
            if declared { $0.deletions = [.entity("Tag")] }
        }
    }

    @Test(
        "an entity that holds objects is not removed without a declaration; nothing is written",
        arguments: StoreKind.files)
    func undeclaredEntityRemoval(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let before = try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        let bytes = FileState(url)
        let error = moltError {
            _ = try Store.open(at: url, schema: Self.withoutTags(declared: false), options: kind.options)
        }
        #expect(error?.code == .dataLossRefused)
        #expect(error?.entity == "Tag")
        #expect(
            error?.message == """
                Molt will not migrate from version 0 to 1: it would delete stored data that the schema does not declare deleted.
                - Version 1 removes entity 'Tag', which holds 4 objects; they would be deleted. If its objects become other objects, write a custom stage from version 0 to 1 that reads them (`migration.enumerateOldObjects(ofType: "Tag")`). If they are meant to go, declare it: `Schema(version: 1, deleting: [.entity("Tag")])` (in a snapshot: "deletions" : [{"entity" : "Tag"}]).
                Nothing was written.
                """)
        #expect(FileState(url) == bytes)
        #expect(try StoreDump(at: url, schema: Library.v0(), options: kind.options) == before)
    }

    @Test("a declared entity deletion migrates, and the history records what was dropped", arguments: StoreKind.files)
    func declaredEntityRemoval(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let (_, after, history) = try Library.migrate(
            kind, from: Library.v0(), to: Self.withoutTags(declared: true), in: dir)
        #expect(after.entities["Tag"] == nil)
        let record = try #require(history.first?.stepRecords.first)
        #expect(
            record.dropped.filter { $0.count > 0 }.map(\.description) == [
                "4 objects of 'Tag'", "12 links of 'Book.tags'",
            ])
        #expect(record.dropped.first?.isDeclared == true)
    }

    @Test("an empty entity is removed without a declaration", arguments: StoreKind.files)
    func emptyEntityRemoval(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let fill: (Objects) throws -> Void = { objects in
            try Library.fill(objects)
            try objects.deleteAll("Tag")
        }
        let (_, after, _) = try Library.migrate(
            kind, from: Library.v0(), to: Self.withoutTags(declared: false), in: dir, fill: fill)
        #expect(after.entities["Tag"] == nil)
    }

    @Test(
        "an entity renamed without originalName is refused, with the likely rename as a fix", arguments: StoreKind.files
    )
    func entityRenamedWithoutHint(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        let bytes = FileState(url)
        let v1 = Library.v0().next(1) {
            $0.edit("Tag") { $0.name = "Label" }
            $0.edit("Book") { $0.editRelationship("tags") { $0.destination = "Label" } }
        }
        let error = moltError { _ = try Store.open(at: url, schema: v1, options: kind.options) }
        #expect(error?.code == .migrationNotInferable || error?.code == .dataLossRefused)
        #expect(FileState(url) == bytes)
        let v1Kept = Library.v0().next(1) {
            $0.edit("Tag") { $0.name = "Label" }
            $0.edit("Book") { $0.relationships.removeAll { $0.name == "tags" } }
        }
        let refusal = moltError { _ = try Store.open(at: url, schema: v1Kept, options: kind.options) }
        #expect(refusal?.code == .dataLossRefused)
        #expect(
            refusal?.message.contains("If it was renamed to 'Label', declare `originalName: \"Tag\"` on entity 'Label'")
                == true)
        #expect(FileState(url) == bytes)
    }

    @Test(
        "an attribute removed beside a compatible added one is a likely rename: refused unless declared",
        arguments: StoreKind.files)
    func likelyRename(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let before = try Library.makeStore(at: url, schema: Library.v0(), kind: kind)
        let bytes = FileState(url)
        let renamed = Library.v0().next(1) {
            $0.edit("Book") {
                $0.editAttribute("title") {
                    $0.name = "heading"; $0.defaultValue = "untitled"
                }
            }
        }
        let error = moltError { _ = try Store.open(at: url, schema: renamed, options: kind.options) }
        #expect(error?.code == .dataLossRefused)
        #expect(
            error?.message == """
                Molt will not migrate from version 0 to 1: it would delete stored data that the schema does not declare deleted.
                - Version 1 removes attribute 'Book.title', which holds 6 values, and adds 'heading' of the same type: a likely rename, and the values would be deleted. If it was renamed to 'heading', declare `originalName: "title"` on attribute 'heading' (in a snapshot: "originalName" : "title"). If the values are meant to go, declare it: `Schema(version: 1, deleting: [.property("title", of: "Book")])` (in a snapshot: "deletions" : [{"entity" : "Book", "property" : "title"}]).
                Nothing was written.
                """)
        #expect(FileState(url) == bytes)
        var declared = renamed
        declared.deletions = [.property("title", of: "Book")]
        let store = try Store.open(at: url, schema: declared, options: kind.options)
        defer { try? store.close() }
        #expect(
            try StoreDump(store)
                == before.renamingAttribute("Book", "title", to: "heading").setting("Book", "heading", to: "untitled"))
        #expect(
            try store.history().first?.stepRecords.first?.dropped.map(\.description) == ["6 values of 'Book.title'"])
    }

    @Test(
        "a plain attribute removal stays inferred, and the run reports the values it dropped",
        arguments: StoreKind.files)
    func plainRemovalReported(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Library.v0().next(1) { $0.edit("Book") { $0.attributes.removeAll { $0.name == "price" } } }
        let (_, _, history) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        let record = try #require(history.first?.stepRecords.first)
        #expect(record.dropped == [DroppedData(entity: "Book", property: "price", count: 4, isDeclared: false)])
        #expect(record.summary == "0 → 1 inferred: dropped 4 values of 'Book.price'")
    }

    @Test("a custom stage handles a removed entity: it read it, so nothing is refused")
    func stageHandlesRemoval() throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try Library.makeStore(at: url, schema: Library.v0(), kind: .wal)
        let v1 = Self.withoutTags(declared: false)
        let plan = try MigrationPlan(
            schemas: [Library.v0(), v1],
            stages: [
                .custom(from: 0, to: 1) { migration in
                    try migration.enumerateOldObjects(ofType: "Tag") { _ in }
                }
            ])
        let store = try Store.open(at: url, schema: v1, options: .init().migrating(with: plan))
        defer { try? store.close() }
        #expect(try store.history().first?.stepRecords.first?.dropped.first?.description == "4 objects of 'Tag'")
    }

    @Test("a deletion that names nothing of the previous version makes the plan invalid")
    func unmatchedDeletion() throws {
        let v1 = Library.v0().next(1) { $0.deletions = [.entity("Tags")] }
        let error = moltError { _ = try MigrationPlan(schemas: [Library.v0(), v1]) }
        #expect(error?.code == .invalidPlan)
        #expect(
            error?.message
                == "Version 1 declares the deletion of entity 'Tags', which version 0 does not have. A deletion names an entity or property of the previous version; fix the name or remove the declaration."
        )
    }

    @Test("deletions are recorded in snapshots and do not change the content hash")
    func deletionsInSnapshots() throws {
        let v1 = Self.withoutTags(declared: true)
        let json = String(decoding: try v1.snapshotJSON(), as: UTF8.self)
        #expect(json.contains("\"deletions\" : [\n    {\n      \"entity\" : \"Tag\"\n    }\n  ]"))
        let read = try Schema(snapshotJSON: Data(json.utf8))
        #expect(read.deletions == [.entity("Tag")])
        #expect(read.contentHash == Self.withoutTags(declared: false).contentHash)
    }
}
