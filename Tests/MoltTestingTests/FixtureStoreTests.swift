import Foundation
import Testing
import MoltTesting

@Suite("Fixture stores")
struct FixtureStoreTests {
    @Test("a store is created at a recorded version and filled with fixtures, links on both sides")
    func createAtRecordedVersion() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(Memo.all)
        let start = try FixtureStore.create(
            at: dir.file(), snapshot: snapshots.url(version: 1), fixtures: Memo.fixtures(at: 1))
        defer { try? start.close() }
        #expect(start.schema == Memo.v1)
        #expect(try Store.version(at: dir.file()) == 1)
        let work = try #require(start.object("work"))
        #expect(work.description == "'UserMemo' object \"work\" (_id 2)")
        #expect(work["favorite"] == false)
        #expect(work["count"] == 0)
        #expect(work["memoContent"] == "Q3")
        #expect(work.links == ["folder": ["home"]])
        #expect(start.object("home")?.links == ["memos": ["groceries", "work"]])
        let counts = try start.store.read { objects in [try objects.count("Folder"), try objects.count("UserMemo")] }
        #expect(counts == [1, 2])
    }

    @Test("the tester creates stores from the snapshot, not from the code")
    func testerUsesSnapshot() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(Memo.all)
        var edited = Memo.v1
        edited.entities[1].attributes.removeLast()
        let tester = MigrationTester(schemas: [Memo.v0, edited, Memo.v2, Memo.v3], snapshots: snapshots)
        let start = try tester.makeStore(version: 1, fixtures: Memo.fixtures(at: 1), at: dir.file())
        defer { try? start.close() }
        #expect(start.schema == Memo.v1)
        #expect(start.object("groceries")?["count"] == 3)
    }

    @Test(
        "a fixture that does not fit its version is reported with the version, entity, attribute and key",
        arguments: [
            (
                Fixture("UserMemo", "groceries", ["title": "Milk"]), "title",
                "Fixture \"groceries\" does not fit schema version 0: Entity 'UserMemo' has no attribute 'title'; it has objectID, memoTitle, memoDate, memoContent, favorite. Fix the fixtures of version 0."
            ),
            (
                Fixture(
                    "UserMemo", "groceries",
                    ["objectID": .uuid(Memo.ids[0]), "memoTitle": 3, "memoDate": .date(Memo.day)]), "memoTitle",
                "Fixture \"groceries\" does not fit schema version 0: Attribute 'UserMemo.memoTitle' holds string values, not 3. Fix the fixtures of version 0."
            ),
            (
                Fixture("Note", "milk"), nil,
                "Fixture \"milk\" does not fit schema version 0: version 0 has no entity 'Note'; it has Folder, UserMemo. Fix the fixtures of version 0."
            ),
            (
                Fixture("Folder", "work", ["name": "Work"], links: ["memos": ["nowhere"]]), "memos",
                "Fixture \"work\" does not fit schema version 0: its link 'memos' names the fixture \"nowhere\", which is not among the fixtures. Fix the fixtures of version 0."
            ),
            (
                Fixture("Folder", "work", ["name": "Work"], links: ["memos": ["home"]]), "memos",
                "Fixture \"work\" does not fit schema version 0: its link 'memos' names \"home\", a 'Folder', but 'Folder.memos' points to 'UserMemo' objects. Fix the fixtures of version 0."
            ),
            (
                Fixture("Folder", "home", ["name": "Again"]), nil,
                "Fixture \"home\" does not fit schema version 0: another fixture already has the key \"home\"; give each fixture its own key. Fix the fixtures of version 0."
            ),
        ] as [(Fixture, String?, String)])
    func invalidFixture(fixture: Fixture, attribute: String?, message: String) throws {
        let dir = TemporaryDirectory()
        let error = try #require(throws: MigrationTestError.self) {
            try FixtureStore.create(
                at: dir.file(), schema: Memo.v0, fixtures: [Fixture("Folder", "home", ["name": "Home"]), fixture])
        }
        #expect(error.code == .invalidFixture)
        #expect(error.version == 0)
        #expect(error.object == fixture.key)
        #expect(error.entity == fixture.entity)
        #expect(error.attribute == attribute)
        #expect(error.message == message)
    }
}
