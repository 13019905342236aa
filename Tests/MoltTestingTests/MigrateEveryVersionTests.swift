import Foundation
import Testing
@testable import MoltTesting

@Suite("Migrating from every recorded version")
struct MigrateEveryVersionTests {
    @Test("a sound plan migrates every recorded version and keeps every fixture, links included")
    func soundPlan() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(Memo.all)
        let tester = MigrationTester(plan: try MigrationPlan(schemas: Memo.all), snapshots: snapshots)
        let runs = try tester.migrateFromEveryVersion(
            fixtures: Memo.fixtures(at:), expectedCounts: ["Folder": 1, "UserMemo": 2]
        ) { old in .survives(dropping: Memo.dropped(old)) }
        #expect(runs.map(\.path) == [[0, 1, 2, 3], [1, 2, 3], [2, 3]])
        #expect(
            runs.map(\.description) == [
                "from version 0 via 0 → 1 → 2 → 3: 3 fixtures checked; Folder: 1, UserMemo: 2",
                "from version 1 via 1 → 2 → 3: 3 fixtures checked; Folder: 1, UserMemo: 2",
                "from version 2 via 2 → 3: 3 fixtures checked; Folder: 1, UserMemo: 2",
            ])
        #expect(runs[0].fixtures.first { $0.key == "home" }?.links == ["memos": ["groceries", "work"]])
    }

    @Test("a closure maps each old object to its expected new values, and the check closure sees the result")
    func expectationsAndChecks() throws {
        let tester = MigrationTester(schemas: Memo.all)
        var checked: [Int] = []
        try tester.migrateFromEveryVersion(fixtures: Memo.fixtures(at:)) { old in
            old.key == "groceries" ? .values(["title": "Milk", "favorite": true]) : .survives()
        } check: { migrated in
            checked.append(migrated.fromVersion)
            let groceries = try #require(try migrated.object("groceries"))
            #expect(groceries["title"] == "Milk")
            #expect(try migrated.objects.destination("folder", of: groceries)?["name"] == "Home")
        }
        #expect(checked == [0, 1, 2])
    }

    @Test("a missing stage is reported for every version it breaks, with the step, entity and attribute")
    func missingStage() throws {
        let tester = MigrationTester(schemas: Memo.all + [Memo.v4])
        let one = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 3, fixtures: Memo.fixtures(at: 3))
        }
        #expect(one.code == .missingStage)
        #expect(one.version == 3)
        #expect(one.entity == "UserMemo")
        #expect(one.attribute == "memoDescription")
        #expect(
            one.message == """
                From version 3: no stage leads from version 3 to 4, and Molt cannot infer that step:
                - Attribute 'UserMemo.memoDescription' has been added as required with no default value between versions 3 and 4, so existing objects would have no value. Give it a default (`default: …`), make it optional, or set its value in a custom stage from version 3 to 4.
                Add a stage `.custom(from: 3, to: 4) { migration in … }` to the plan.
                """)
        let all = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion(fixtures: Memo.fixtures(at:))
        }
        #expect(all.code == .severalFailures)
        #expect(all.failures.map(\.code) == [.missingStage, .missingStage, .missingStage, .missingStage])
        #expect(all.failures.map(\.version) == [0, 1, 2, 3])
        #expect(
            all.message.hasPrefix(
                "The migration plan fails from 4 of 4 starting versions (passed: none):\nFrom version 0: no stage leads from version 3 to 4"
            ))
    }

    @Test("a value that is not carried over is reported per object and attribute")
    func lostValue() throws {
        let tester = MigrationTester(schemas: [Memo.v0, Memo.v1, Memo.v2, Memo.v3Lossy])
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion(fixtures: Memo.fixtures(at:)) { old in
                old.entity == "UserMemo"
                    ? .survives(["title": old["memoTitle"]], dropping: Memo.dropped(old).union(["memoTitle"]))
                    : .survives()
            }
        }
        #expect(error.code == .severalFailures)
        try #require(error.failures.map(\.code) == [.valueMismatch, .valueMismatch, .valueMismatch])
        let first = error.failures[0]
        #expect(first.entity == "UserMemo")
        #expect(first.attribute == "title")
        #expect(first.object == "groceries")
        #expect(
            first.message == """
                From version 0 (path 0 → 1 → 2 → 3): 2 of 3 fixture objects differ after the migration to version 3:
                'UserMemo' object "groceries" (_id 1, stored at version 0):
                  title: expected "Milk", found null
                'UserMemo' object "work" (_id 2, stored at version 0):
                  title: expected "Report", found null
                Fix the stages on the path 0 → 1 → 2 → 3 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                """)
    }

    @Test("objects that disappear are reported by key, and counts are compared")
    func lostObjects() throws {
        // Version 3 replaces Folder by Category and declares Folder deleted: Molt drops the folders, which the
        // expectation says should have become categories.
        var v3 = Memo.v3
        v3.entities[0] = Entity("Category") { Attribute("name", .string) }
        v3.entities[1].relationships = []
        v3.deletions = [.entity("Folder")]
        let tester = MigrationTester(schemas: [Memo.v0, Memo.v1, Memo.v2, v3])
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 2, fixtures: Memo.fixtures(at: 2), expectedCounts: ["Category": 1, "UserMemo": 2])
            { old in
                old.entity == "Folder"
                    ? .values(["name": old["name"]], in: "Category") : .survives(ignoring: ["folder"])
            }
        }
        #expect(error.code == .severalFailures)
        try #require(error.failures.map(\.code) == [.objectsLost, .countMismatch])
        #expect(
            error.failures[0].message == """
                From version 2 (path 2 → 3): 1 of 3 fixture objects differ after the migration to version 3:
                'Category' object "home" (_id 1, stored at version 2 as 'Folder') is missing.
                Fix the stages on the path 2 → 3 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                """)
        #expect(
            error.failures[1].message == """
                From version 2 (path 2 → 3): the object counts after the migration to version 3 differ:
                - 'Category': expected 1 objects, found 0
                Fix the stage that creates or deletes these objects, or the expected counts.
                """)
    }

    @Test("a plan that fails from one old version but not from another names the one that fails")
    func failsFromOneVersionOnly() throws {
        // Version 1 renames `text` to `body`; version 2 drops the hint, as it should. A shortcut stage 0 → 2,
        // inferred in one go, sees no hint: from 0 the text would be lost, which Molt refuses; from 1 it is kept.
        let s0 = Schema(version: 0) { Entity("Note") { Attribute("text", .string, isOptional: true) } }
        let s1 = Schema(version: 1) {
            Entity("Note") { Attribute("body", .string, isOptional: true, originalName: "text") }
        }
        let s2 = Schema(version: 2) {
            Entity("Note") {
                Attribute("body", .string, isOptional: true)
                Attribute("pinned", .bool, default: false)
            }
        }
        let tester = MigrationTester(
            plan: try MigrationPlan(schemas: [s0, s1, s2], stages: [.lightweight(from: 0, to: 2)]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion { version in
                [Fixture("Note", "milk", [version == 0 ? "text" : "body": "Buy milk"])]
            }
        }
        #expect(error.code == .migrationFailed)
        #expect(error.version == 0)
        #expect(error.failures.count == 1)
        #expect(
            error.message == """
                The migration plan fails from 1 of 2 starting versions (passed: 1):
                From version 0 (path 0 → 2): the migration to version 2 failed: Molt will not migrate from version 0 to 2: it would delete stored data that the schema does not declare deleted.
                - Version 2 removes attribute 'Note.text', which holds 1 value, and adds 'body' of the same type: a likely rename, and the values would be deleted. If it was renamed to 'body', declare `originalName: "text"` on attribute 'body' (in a snapshot: "originalName" : "text"). If the values are meant to go, declare it: `Schema(version: 2, deleting: [.property("text", of: "Note")])` (in a snapshot: "deletions" : [{"entity" : "Note", "property" : "text"}]).
                Nothing was written.
                """)
    }

    @Test("data that breaks a new constraint fails from the version whose fixtures hold it")
    func dataDependentFailure() throws {
        var v3 = Memo.v3
        v3.entities[1].indexes = [Index(["title"], unique: true)]
        let tester = MigrationTester(schemas: [Memo.v0, Memo.v1, Memo.v2, v3])
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion { version in
                var fixtures = Memo.fixtures(at: version)
                if version == 1 { fixtures[2].values["memoTitle"] = "Milk" }
                return fixtures
            }
        }
        #expect(error.code == .migrationFailed)
        #expect(error.version == 1)
        #expect(
            error.message == """
                The migration plan fails from 1 of 3 starting versions (passed: 0, 2):
                From version 1 (path 1 → 2 → 3): the migration to version 3 failed: Cannot add the uniqueness constraint on 'UserMemo'(title) in version 3: the value ("Milk") is held by 2 objects. Make the values unique in a custom stage before this version, or drop the constraint.
                """)
    }

    @Test("a recorded version edited in the code fails the runs that start from it")
    func editedFrozenVersionFailsItsRuns() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(Memo.all)
        var edited = Memo.v1
        edited.entities[1].attributes[5] = Attribute("count", .int, default: 7)
        let tester = MigrationTester(schemas: [Memo.v0, edited, Memo.v2, Memo.v3], snapshots: snapshots)
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion(fixtures: Memo.fixtures(at:))
        }
        #expect(error.code == .frozenVersionEdited)
        #expect(error.version == 1)
        #expect(
            error.message == """
                The migration plan fails from 1 of 3 starting versions (passed: 0, 2):
                From version 1 (path 1 → 2 → 3): the migration to version 3 failed: The plan's schema for version 1 differs from the one recorded in the store:
                - Attribute 'UserMemo.count' has changed its default from 0 to 7.
                A shipped version must not change: restore version 1 as it shipped, and put the change in a new version.
                """)
    }

    @Test("a deleted expectation fails when the object is still there")
    func notDeleted() throws {
        let tester = MigrationTester(schemas: Memo.all)
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 2, fixtures: Memo.fixtures(at: 2)) { old in
                old.key == "work" ? .deleted : .survives()
            }
        }
        #expect(error.code == .valueMismatch)
        #expect(
            error.message == """
                From version 2 (path 2 → 3): 1 of 3 fixture objects differ after the migration to version 3:
                'UserMemo' object "work" (_id 2, stored at version 2) should have been deleted, but is still there.
                Fix the stages on the path 2 → 3 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                """)
    }

    @Test("what a check closure throws fails the run, naming the starting version")
    func checkFailure() throws {
        struct Unexpected: Error, CustomStringConvertible { var description: String { "two folders expected" } }
        let tester = MigrationTester(schemas: Memo.all)
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(
                from: 0, fixtures: Memo.fixtures(at: 0),
                check: { migrated in
                    if try migrated.objects.count("Folder") != 2 { throw Unexpected() }
                })
        }
        #expect(error.code == .checkFailed)
        #expect(
            error.message
                == "From version 0 (path 0 → 1 → 2 → 3): the check of the migrated store threw: two folders expected")
    }

    @Test("the path follows the longest declared stage, as the plan does")
    func paths() throws {
        let tester = MigrationTester(
            schemas: Memo.all, stages: [.lightweight(from: 0, to: 2), .lightweight(from: 1, to: 3)])
        #expect(try tester.path(from: 0) == [0, 2, 3])
        #expect(try tester.path(from: 1) == [1, 3])
        #expect(try tester.path(from: 2) == [2, 3])
        #expect(try tester.startingVersions() == [0, 1, 2])
        let error = try #require(throws: MigrationTestError.self) { try tester.path(from: 7) }
        #expect(error.code == .versionRemoved)
    }

    @Test("an empty snapshots folder fails instead of testing nothing")
    func emptySnapshotsFolder() throws {
        let dir = TemporaryDirectory()
        let tester = MigrationTester(schemas: Memo.all, snapshots: dir.snapshots())
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion(fixtures: Memo.fixtures(at:))
        }
        #expect(error.code == .versionNotRecorded)
        #expect(
            error.message
                == "No schema version is recorded in \(dir.snapshots().directory.path), so no migration was tested. Check the folder, or record the shipped versions with MOLT_RECORD_SNAPSHOTS=1 and commit them."
        )
        try dir.snapshots().record([Memo.v3])
        #expect(try tester.migrateFromEveryVersion(fixtures: Memo.fixtures(at:)).isEmpty)
    }
}
