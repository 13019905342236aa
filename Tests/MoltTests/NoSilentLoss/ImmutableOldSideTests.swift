import Foundation
import Testing
@testable import Molt

/// The old side of a stage reads version A exactly, for the whole stage, whatever the new side creates,
/// deletes or rewrites: counts, fetches, relationship walks and every enumeration pass.
@Suite("No silent loss: the old side of a stage is version A")
struct ImmutableOldSideTests {
    static let v1 = Schema(version: 1) {
        Entity("Folder") {
            Attribute("name", .string)
            Relationship("notes", toMany: "Note", inverse: "folder")
        }
        Entity("Note") {
            Attribute("title", .string)
            Attribute("rank", .int)
            Relationship("folder", to: "Folder", inverse: "notes")
            Relationship("tags", toMany: "Tag")
        }
        Entity("Tag") { Attribute("label", .string) }
    }
    static let v2 = Schema(version: 2) {
        Entity("Folder") {
            Attribute("name", .string)
            Relationship("notes", toMany: "Note", inverse: "folder")
        }
        Entity("Note") {
            Attribute("title", .string)
            Attribute("rank", .int)
            Attribute("summary", .string, isOptional: true)
            Relationship("folder", to: "Folder", inverse: "notes")
            Relationship("tags", toMany: "Tag")
        }
        Entity("Tag") { Attribute("label", .string) }
    }

    /// Two folders, six notes (three per folder, ranks 0…5), two tags on note 0.
    static func makeStore(_ url: URL, kind: StoreKind) throws {
        try makeStore(.file(url), kind: kind)
    }

    static func makeStore(_ url: StoreLocation, kind: StoreKind) throws {
        let store = try Store.open(at: url, schema: v1, options: kind.options)
        defer { try? store.close() }
        try store.write { objects in
            let folders = try ["Home", "Work"].map { try objects.insert("Folder", ["name": .string($0)]) }
            let tags = try ["a", "b"].map { try objects.insert("Tag", ["label": .string($0)]) }
            for i in 0..<6 {
                let note = try objects.insert("Note", ["title": .string("n\(i)"), "rank": .int(Int64(i))])
                try objects.set("folder", of: note, to: folders[i % 2])
                if i == 0 { try objects.set("tags", of: note, to: tags) }
            }
        }
    }

    /// Runs `body` as the stage 1 → 2 on a fresh store of `kind`, then returns the migrated store's notes.
    @discardableResult
    static func runStage(
        _ kind: StoreKind, _ body: @escaping @Sendable (Migration) throws -> Void
    ) throws -> [DynamicObject] {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        try makeStore(url, kind: kind)
        let plan = try MigrationPlan(schemas: [v1, v2], stages: [.custom(from: 1, to: 2, body)])
        let store = try Store.open(at: url, schema: v2, options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        return try store.read { try $0.fetch("Note") }
    }

    @Test("objects created on the new side never show on the old side", arguments: StoreKind.durable)
    func createdObjects(kind: StoreKind) throws {
        let notes = try Self.runStage(kind) { migration in
            _ = try migration.create("Note", value: ["title": "fresh", "rank": 9])
            _ = try migration.new.insert("Tag", ["label": "c"])
            #expect(try migration.old.count("Note") == 6)
            #expect(try migration.old.fetch("Tag").map { $0["label"] } == ["a", "b"])
            #expect(try migration.new.count("Note") == 7)
            var seen = 0
            try migration.enumerateOldObjects(ofType: "Note") { _ in seen += 1 }
            #expect(seen == 6)
        }
        #expect(notes.map { $0["title"] } == ["n0", "n1", "n2", "n3", "n4", "n5", "fresh"])
    }

    @Test("objects deleted on the new side are still there on the old side", arguments: StoreKind.durable)
    func deletedObjects(kind: StoreKind) throws {
        let notes = try Self.runStage(kind) { migration in
            for note in try migration.new.fetch("Note", where: .less("rank", 3)) { try migration.delete(note) }
            try migration.new.deleteAll("Tag")
            #expect(try migration.new.count("Note") == 3)
            #expect(try migration.old.count("Note") == 6)
            #expect(try migration.old.count("Tag") == 2)
            let first = try #require(try migration.old.object("Note", id: 1))
            #expect(try migration.old.destinations("tags", of: first).count == 2)
            var pairs = 0
            try migration.enumerateObjects(ofType: "Note") { _, _ in pairs += 1 }
            #expect(pairs == 3)  // only objects both versions have
        }
        #expect(notes.map { $0["rank"] } == [3, 4, 5])
    }

    @Test(
        "values rewritten on the new side: the old side, and a second pass, still read version A",
        arguments: StoreKind.durable)
    func rewrittenValues(kind: StoreKind) throws {
        let notes = try Self.runStage(kind) { migration in
            try migration.enumerateObjects(ofType: "Note") { old, new in
                new["title"] = .string(old["title"].string!.uppercased())
                new["rank"] = .int(old["rank"].int! * 10)
            }
            #expect(try migration.old.fetch("Note").map { $0["title"] } == ["n0", "n1", "n2", "n3", "n4", "n5"])
            #expect(try migration.old.count("Note", where: .greater("rank", 5)) == 0)
            try migration.enumerateObjects(ofType: "Note") { old, new in
                #expect(old["title"] == .string("n\(old["rank"].int!)"))
                new["summary"] = .string("\(old["title"].string!) was \(old["rank"].int!)")
            }
        }
        #expect(notes.map { $0["title"] } == ["N0", "N1", "N2", "N3", "N4", "N5"])
        #expect(notes.map { $0["summary"] } == (0..<6).map { .string("n\($0) was \($0)") })
    }

    @Test("an object rewritten before the walk reaches it still reads as version A", arguments: StoreKind.durable)
    func rewrittenAhead(kind: StoreKind) throws {
        let notes = try Self.runStage(kind) { migration in
            try migration.enumerateObjects(ofType: "Note") { old, new in
                if old["rank"] == 0 {
                    // Rewrite the last note through the new side's API while the walk is at the first.
                    var last = try migration.new.object("Note", id: 6)!
                    last["title"] = "changed"
                    try migration.new.update(last)
                }
                if old["rank"] == 5 { #expect(old["title"] == "n5") }
                new["summary"] = old["title"]
            }
        }
        // The walk wrote after the rewrite: the last note keeps its rewritten title and got version A's as summary.
        #expect(notes.map { $0["summary"] } == (0..<6).map { .string("n\($0)") })
        #expect(notes.last?["title"] == "changed")
    }

    @Test(
        "relationships relinked on the new side are walked as version A on the old side", arguments: StoreKind.durable)
    func relinked(kind: StoreKind) throws {
        let notes = try Self.runStage(kind) { migration in
            let home = try migration.new.fetch("Folder", where: .equal("name", "Home"))[0]
            for note in try migration.new.fetch("Note") { try migration.new.set("folder", of: note, to: home) }
            let first = try migration.new.object("Note", id: 1)!
            try migration.new.set("tags", of: first, to: [])
            let work = try migration.old.fetch("Folder", where: .equal("name", "Work"))[0]
            #expect(try migration.old.destinations("notes", of: work).map { $0["rank"] } == [1, 3, 5])
            #expect(try migration.old.destinations("tags", of: try migration.old.object("Note", id: 1)!).count == 2)
        }
        #expect(notes.count == 6)
    }

    @Test("a stage that writes only new columns copies nothing for the old side", arguments: StoreKind.durable)
    func noSnapshotForNewColumns(kind: StoreKind) throws {
        let notes = try Self.runStage(kind) { migration in
            try migration.enumerateObjects(ofType: "Note") { old, new in new["summary"] = old["title"] }
            #expect(!migration.workspace.isSnapshotted("Note"))
        }
        #expect(notes.map { $0["summary"] } == (0..<6).map { .string("n\($0)") })
    }
}
