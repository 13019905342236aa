import Foundation
import Testing
@testable import Molt

/// The history and the CLI record, per step, the objects inserted, updated and deleted, and the data dropped,
/// exactly; a link to an object that is not in the store throws instead of vanishing.
@Suite("No silent loss: counts you can trust, links that cannot vanish")
struct ExactCountTests {
    @Test(
        "a stage's inserts, updates (once per object over several passes) and deletes are counted exactly",
        arguments: StoreKind.files)
    func stageCounts(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try ImmutableOldSideTests.makeStore(url, kind: kind)
        let v1 = ImmutableOldSideTests.v1
        let v2 = ImmutableOldSideTests.v2
        let plan = try MigrationPlan(
            schemas: [v1, v2],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    try migration.enumerateObjects(ofType: "Note") { old, new in new["summary"] = old["title"] }
                    try migration.enumerateObjects(ofType: "Note") { old, new in
                        if old["rank"].int! < 2 { new["summary"] = "first" }
                    }
                    _ = try migration.create("Tag", value: ["label": "c"])
                    _ = try migration.create("Tag", value: ["label": "d"])
                    try migration.delete(try migration.new.object("Note", id: 6)!)
                }
            ])
        let store = try Store.open(at: url, schema: v2, options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        let record = try #require(try store.history().first)
        #expect(
            record.stepRecords == [
                MigrationStepRecord(
                    fromVersion: 1, toVersion: 2, kind: .custom, objectsInserted: 2, objectsUpdated: 6,
                    objectsDeleted: 1)
            ])
        #expect(record.objectsTouched == 9)
        #expect(
            record.stepRecords[0].summary == "1 → 2 custom: 2 objects inserted; 6 objects updated; 1 object deleted")
    }

    @Test("a relationship set to a model that was never inserted throws instead of storing nothing")
    func uninsertedDestination() throws {
        let store = try Store.inMemory(schema: ImmutableOldSideTests.v1)
        try store.write { objects in
            let ghost = DynamicObject(entity: "Folder", values: ["name": "ghost"])
            let note = try objects.insert("Note", ["title": "t", "rank": 1])
            let error = moltError { try objects.set("folder", of: note, to: ghost) }
            #expect(error?.code == .objectNotFound)
            #expect(error?.message == "This 'Folder' object was never inserted; insert it before linking it.")
            let missing = DynamicObject(entity: "Folder", id: 42, values: [:])
            let dangling = moltError { try objects.set("folder", of: note, to: missing) }
            #expect(
                dangling?.message
                    == "Relationship 'folder' cannot point to 'Folder' _id 42: no such object is in the store (it was never inserted, or was deleted). Insert it first, and link the inserted object."
            )
        }
    }

    @Test(
        "in a stage, a link to an object that is not in the store throws instead of being swept to nil",
        arguments: StoreKind.files)
    func danglingLinkInStage(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try ImmutableOldSideTests.makeStore(url, kind: kind)
        let bytes = FileState(url)
        let plan = try MigrationPlan(
            schemas: [ImmutableOldSideTests.v1, ImmutableOldSideTests.v2],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    let note = try migration.new.object("Note", id: 1)!
                    try migration.new.set("folder", of: note, to: DynamicObject(entity: "Folder", id: 99, values: [:]))
                }
            ])
        let error = moltError {
            _ = try Store.open(at: url, schema: ImmutableOldSideTests.v2, options: kind.options.migrating(with: plan))
        }
        #expect(error?.code == .objectNotFound)
        #expect(FileState(url) == bytes)
    }
}
