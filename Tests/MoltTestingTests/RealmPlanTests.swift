import Foundation
import Testing
import MoltTesting

/// A plan in Realm's form declares only its newest schema: the kit routes each recorded version through the
/// engine's own path, the block included.
@Suite("Realm-form plans under the kit")
struct RealmPlanTests {
    /// Version 4 of the memo app with the rename hint kept, so that only `memoDescription` needs the block.
    static let v4: Schema = {
        var schema = Memo.v4
        schema.entities[1].attributes[1] = Attribute("title", .string, originalName: "memoTitle")
        return schema
    }()

    /// The block fills the new required `memoDescription` from whatever version the store is at.
    static let plan = MigrationPlan.realm(schema: v4) { migration, oldSchemaVersion in
        try migration.enumerateObjects(ofType: "UserMemo") { old, new in
            let title = old[oldSchemaVersion < 3 ? "memoTitle" : "title"].string ?? ""
            new["memoDescription"] = .string("\(title) memo")
        }
    }

    /// A note whose `name` became `title` in version 1 and `heading` in version 2 (and `count` became `total`, then
    /// the double `amount`): the Realm block of release 2 renames one step per `if`, as it was written.
    static func chained(_ version: Int) -> Schema {
        Schema(version: version) {
            Entity("Note", primaryKey: "uuid") {
                Attribute("uuid", .uuid)
                Attribute(["name", "title", "heading"][version], .string)
                Attribute(["count", "total", "amount"][version], version < 2 ? .int : .double)
            }
        }
    }

    static let chainedPlan = MigrationPlan.realm(schema: chained(2)) { migration, oldSchemaVersion in
        if oldSchemaVersion < 1 {
            try migration.renameProperty(onType: "Note", from: "name", to: "title")
            try migration.renameProperty(onType: "Note", from: "count", to: "total")
        }
        if oldSchemaVersion < 2 {
            try migration.renameProperty(onType: "Note", from: "title", to: "heading")
            try migration.renameProperty(onType: "Note", from: "total", to: "amount")
        }
    }

    @Test("a .realm block whose renames chain across versions passes the kit from every version, every value kept")
    func chainedRenamesPass() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record((0...2).map(Self.chained))
        let tester = MigrationTester(plan: Self.chainedPlan, snapshots: snapshots)
        let ids = [UUID(), UUID()]
        let runs = try tester.migrateFromEveryVersion(
            fixtures: { version in
                [("milk", "Milk", 3), ("bread", "Bread ✓", -9_007_199)].enumerated().map { index, note in
                    Fixture(
                        "Note", note.0,
                        [
                            "uuid": .uuid(ids[index]), ["name", "title", "heading"][version]: .string(note.1),
                            ["count", "total", "amount"][version]: version < 2
                                ? .int(Int64(note.2)) : .double(Double(note.2)),
                        ])
                }
            }, expectedCounts: ["Note": 2]
        ) { old in
            let title = old[["name", "title", "heading"][old.version]]
            let count = old[["count", "total", "amount"][old.version]]
            return .values(["uuid": old["uuid"], "heading": title, "amount": .double(count.double ?? .nan)])
        }
        #expect(runs.map(\.path) == [[0, 2], [1, 2]])
    }

    @Test("a .realm plan migrates every recorded version in one step through its block")
    func realmPlanPasses() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(Memo.all + [Self.v4])
        let tester = MigrationTester(plan: Self.plan, snapshots: snapshots)
        #expect(try tester.path(from: 0) == [0, 4])
        let runs = try tester.migrateFromEveryVersion(
            fixtures: Memo.fixtures(at:), expectedCounts: ["Folder": 1, "UserMemo": 2]
        ) { old in
            guard old.entity == "UserMemo" else { return .survives() }
            let title = old[old.version < 3 ? "memoTitle" : "title"].string ?? ""
            return .survives(["memoDescription": .string("\(title) memo")], dropping: Memo.dropped(old))
        }
        #expect(runs.map(\.path) == [[0, 4], [1, 4], [2, 4], [3, 4]])
    }

    @Test("a .realm plan whose block forgets a value fails from the versions it breaks")
    func realmPlanFails() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(Memo.all + [Self.v4])
        let forgetful = MigrationPlan.realm(schema: Self.v4) { migration, oldSchemaVersion in
            try migration.enumerateObjects(ofType: "UserMemo") { _, new in new["memoDescription"] = "" }
        }
        let tester = MigrationTester(plan: forgetful, snapshots: snapshots)
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 3, fixtures: Memo.fixtures(at: 3)) { old in
                old.entity == "UserMemo"
                    ? .survives(["memoDescription": .string("\(old["title"].string ?? "") memo")]) : .survives()
            }
        }
        #expect(error.code == .valueMismatch)
        #expect(
            error.message == """
                From version 3 (path 3 → 4): 2 of 3 fixture objects differ after the migration to version 4:
                'UserMemo' object "groceries" (_id 1, stored at version 3):
                  memoDescription: expected "Milk memo", found ""
                'UserMemo' object "work" (_id 2, stored at version 3):
                  memoDescription: expected "Report memo", found ""
                Fix the stages on the path 3 → 4 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                """)
    }
}
