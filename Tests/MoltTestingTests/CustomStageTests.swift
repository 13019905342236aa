import Foundation
import Testing
import MoltTesting

/// Plans with custom stages, sound and broken, checked from every recorded version.
@Suite("Custom stages under the kit")
struct CustomStageTests {
    /// The stage seed 000 needs from version 3 to 4: fill the new required `memoDescription`.
    static let describe = MigrationStage.custom(from: 3, to: 4) { migration in
        try migration.enumerateObjects(ofType: "UserMemo") { old, new in
            new["memoDescription"] = .string("\(old["title"].string ?? "") memo")
        }
    }

    static let schemas = Memo.all + [Memo.v4]

    @Test("a sound custom stage passes from every version, with the values it computes expected")
    func soundStage() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(Self.schemas)
        let tester = MigrationTester(
            plan: try MigrationPlan(schemas: Self.schemas, stages: [Self.describe]), snapshots: snapshots)
        let runs = try tester.migrateFromEveryVersion(
            fixtures: Memo.fixtures(at:), expectedCounts: ["Folder": 1, "UserMemo": 2]
        ) { old in
            guard old.entity == "UserMemo" else { return .survives() }
            let title = old[old.version < 3 ? "memoTitle" : "title"].string ?? ""
            return .survives(["memoDescription": .string("\(title) memo")], dropping: Memo.dropped(old))
        }
        #expect(runs.map(\.fromVersion) == [0, 1, 2, 3])
    }

    @Test("a stage that deletes objects is caught: the objects are named, the counts differ")
    func stageDeletesObjects() throws {
        let careless = MigrationStage.custom(from: 3, to: 4) { migration in
            try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                new["memoDescription"] = .string("\(old["title"].string ?? "") memo")
            }
            for memo in try migration.new.fetch("UserMemo", where: .equal("favorite", false)) {
                try migration.delete(memo)
            }
        }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: Self.schemas, stages: [careless]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 3, fixtures: Memo.fixtures(at: 3), expectedCounts: ["UserMemo": 2]) { old in
                .survives(ignoring: ["memoDescription"])
            }
        }
        #expect(error.code == .severalFailures)
        #expect(error.failures.map(\.code) == [.objectsLost, .countMismatch])
        #expect(
            error.message == """
                From version 3 (path 3 → 4): several checks failed:
                From version 3 (path 3 → 4): 2 of 3 fixture objects differ after the migration to version 4:
                'Folder' object "home" (_id 1, stored at version 3):
                  memos: expected ["groceries", "work"], found ["groceries"]
                'UserMemo' object "work" (_id 2, stored at version 3) is missing.
                Fix the stages on the path 3 → 4 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                From version 3 (path 3 → 4): the object counts after the migration to version 4 differ:
                - 'UserMemo': expected 2 objects, found 1
                Fix the stage that creates or deletes these objects, or the expected counts.
                """)
    }

    @Test("a stage that overwrites a value it should carry over is caught per attribute")
    func stageChangesValue() throws {
        let careless = MigrationStage.custom(from: 3, to: 4) { migration in
            try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                let title = old["title"].string ?? ""
                new["memoDescription"] = .string("\(title) memo")
                new["title"] = .string(title.uppercased())
            }
        }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: Self.schemas, stages: [careless]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion(fixtures: Memo.fixtures(at:)) { old in
                .survives(ignoring: ["memoDescription"], dropping: Memo.dropped(old))
            }
        }
        #expect(error.failures.map(\.version) == [0, 1, 2, 3])
        #expect(error.failures.map(\.attribute) == ["title", "title", "title", "title"])
        #expect(
            error.failures[0].message.hasSuffix(
                """
                The data first differs after the step 3 → 4. Fix that step (its stage, or the `originalName` hints of version 4) to carry the data over, or state the intended change in the expectation.
                """))
        #expect(
            error.failures[3].message == """
                From version 3 (path 3 → 4): 2 of 3 fixture objects differ after the migration to version 4:
                'UserMemo' object "groceries" (_id 1, stored at version 3):
                  title: expected "Milk", found "MILK"
                'UserMemo' object "work" (_id 2, stored at version 3):
                  title: expected "Report", found "REPORT"
                Fix the stages on the path 3 → 4 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                """)
    }

    @Test("a shortcut stage written for old stores fails from version 0 while the others pass")
    func shortcutFailsFromOneVersion() throws {
        // The 0 → 4 shortcut fills memoDescription but forgets that `memoTitle` became `title`: from 0 the
        // title is lost, from 1, 2 and 3 the stepwise path keeps it.
        let shortcut = MigrationStage.custom(from: 0, to: 4) { migration in
            try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                new["memoDescription"] = .string("\(old["memoTitle"].string ?? "") memo")
                new["title"] = ""
            }
        }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: Self.schemas, stages: [shortcut, Self.describe]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion(fixtures: Memo.fixtures(at:)) { old in
                .survives(ignoring: ["memoDescription"], dropping: Memo.dropped(old))
            }
        }
        #expect(error.code == .valueMismatch)
        #expect(error.version == 0)
        #expect(
            error.message == """
                The migration plan fails from 1 of 4 starting versions (passed: 1, 2, 3):
                From version 0 (path 0 → 4): 2 of 3 fixture objects differ after the migration to version 4:
                'UserMemo' object "groceries" (_id 1, stored at version 0):
                  title: expected "Milk", found ""
                'UserMemo' object "work" (_id 2, stored at version 0):
                  title: expected "Report", found ""
                Fix the stages on the path 0 → 4 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                """)
    }

    @Test("a stage that throws is reported with the starting version and Molt's message")
    func stageThrows() throws {
        let strict = MigrationStage.custom(from: 3, to: 4) { migration in
            try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                guard let content = old["memoContent"].string else {
                    throw MoltError(
                        .migrationFailed, "Memo '\(old["title"].string ?? "")' has no content to describe.",
                        entity: "UserMemo", property: "memoContent")
                }
                new["memoDescription"] = .string(content)
            }
        }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: Self.schemas, stages: [strict]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 2, fixtures: Memo.fixtures(at: 2))
        }
        #expect(error.code == .migrationFailed)
        #expect(error.entity == "UserMemo")
        #expect(error.attribute == "memoContent")
        #expect(error.underlying?.code == .migrationFailed)
        #expect(
            error.message
                == "From version 2 (path 2 → 3 → 4): the migration to version 4 failed: Memo 'Milk' has no content to describe."
        )
    }

    @Test("any error a stage throws fails only the runs that reach it, with the starting version")
    func stageThrowsSwiftError() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "stage 1 → 2 refused the data" } }
        let refuse = MigrationStage.custom(from: 1, to: 2) { _ in throw Refused() }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: Memo.all, stages: [refuse]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion(fixtures: Memo.fixtures(at:))
        }
        #expect(error.code == .severalFailures)
        #expect(error.failures.map(\.version) == [0, 1])
        #expect(
            error.failures.map(\.message) == [
                "From version 0 (path 0 → 1 → 2 → 3): the migration to version 3 failed: stage 1 → 2 refused the data",
                "From version 1 (path 1 → 2 → 3): the migration to version 3 failed: stage 1 → 2 refused the data",
            ])
        #expect(error.message.hasPrefix("The migration plan fails from 2 of 3 starting versions (passed: 2):"))
    }

    @Test("a value lost in the middle of a long path is traced to the step that lost it")
    func lossTracedToItsStep() throws {
        let blank = MigrationStage.custom(from: 1, to: 2) { migration in
            try migration.enumerateObjects(ofType: "UserMemo") { _, new in new["memoContent"] = .null }
        }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: Memo.all, stages: [blank]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 0, fixtures: Memo.fixtures(at: 0))
        }
        #expect(error.code == .valueMismatch)
        #expect(
            error.message == """
                From version 0 (path 0 → 1 → 2 → 3): 1 of 3 fixture objects differ after the migration to version 3:
                'UserMemo' object "work" (_id 2, stored at version 0):
                  memoContent: expected "Q3", found null
                The data first differs after the step 1 → 2. Fix that step (its stage, or the `originalName` hints of version 2) to carry the data over, or state the intended change in the expectation.
                """)
    }
}
