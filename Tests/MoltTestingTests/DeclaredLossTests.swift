import Foundation
import Testing
import MoltTesting

/// A run fails when the migration drops a fixture's data that its expectation does not declare; objects that
/// move to another entity are found there by its primary key or by their values, never by their old `_id`.
@Suite("Declared loss in expectations")
struct DeclaredLossTests {
    static let v0 = Schema(version: 0) {
        Entity("Folder") { Attribute("name", .string) }
        Entity("Tag") { Attribute("label", .string) }
        Entity("Note") {
            Attribute("text", .string)
            Attribute("pinned", .bool, default: false)
        }
    }
    /// Folders become labels, tags are merged into them by a stage, and notes lose `pinned`.
    static let v1 = Schema(version: 1, deleting: [.entity("Tag")]) {
        Entity("Label", originalName: "Folder") {
            Attribute("name", .string)
            Attribute("isTag", .bool, default: false)
        }
        Entity("Note") { Attribute("text", .string) }
    }
    static let mergeTags = MigrationStage.custom(from: 0, to: 1) { migration in
        try migration.enumerateOldObjects(ofType: "Tag") { tag in
            _ = try migration.create("Label", value: ["name": tag["label"], "isTag": true])
        }
    }
    static let fixtures = [
        Fixture("Folder", "home", ["name": "Home"]),
        Fixture("Tag", "errand", ["label": "Errand"]),
        Fixture("Note", "milk", ["text": "Buy milk", "pinned": true]),
    ]

    static func tester(stage: MigrationStage = mergeTags) throws -> MigrationTester {
        MigrationTester(plan: try MigrationPlan(schemas: [v0, v1], stages: [stage]))
    }

    @Test("an object of a removed entity and a value of a removed attribute fail the run unless declared")
    func undeclaredLoss() throws {
        let error = try #require(throws: MigrationTestError.self) {
            try Self.tester().migrate(from: 0, fixtures: Self.fixtures)
        }
        #expect(error.code == .lossNotDeclared)
        #expect(error.entity == "Tag")
        #expect(error.object == "errand")
        #expect(
            error.message == """
                From version 0 (path 0 → 1): 2 of 3 fixture objects lose data after the migration to version 1, and their expectations do not declare it:
                'Tag' object "errand" (_id 1, stored at version 0) is deleted with its entity, which version 1 removes.
                'Note' object "milk" (_id 1, stored at version 0):
                  pinned: expected true, found nothing: version 1 removes it
                If the loss is intended, declare it: `.deleted` for "errand" (or `.values([…], in: "<entity>")` if a stage moves it to another entity); `dropping: ["pinned"]` in the `.survives(…)` of "milk". Otherwise keep the data: give the new entity or attribute its `originalName`, or carry the data over in a stage.
                """)
    }

    @Test("a value the fixture left to its default may go without a declaration")
    func defaultsAreNotFixtureData() throws {
        let fixtures = [Fixture("Note", "milk", ["text": "Buy milk"])]
        try Self.tester().migrate(from: 0, fixtures: fixtures)
    }

    @Test("declared: .deleted for the removed entity, dropping for the removed attribute")
    func declaredDeletion() throws {
        let dropTags = MigrationStage.custom(from: 0, to: 1) { _ in }
        try Self.tester(stage: dropTags).migrate(from: 0, fixtures: Self.fixtures, expectedCounts: ["Label": 1]) {
            old in
            switch old.entity {
            case "Tag": return .deleted
            case "Note": return .survives(dropping: ["pinned"])
            default: return .survives()
            }
        }
    }

    @Test("an object merged into another entity is found by its values, not by the _id of another object")
    func mergedObjectFoundByValues() throws {
        // The tag "errand" has _id 1, as the folder "home" whose label keeps _id 1: matching by _id would compare
        // the tag with the folder's label.
        let run = try Self.tester().migrate(from: 0, fixtures: Self.fixtures, expectedCounts: ["Label": 2]) { old in
            switch old.entity {
            case "Tag": return .values(["name": old["label"], "isTag": true], in: "Label")
            case "Note": return .survives(dropping: ["pinned"])
            default: return .survives()
            }
        }
        #expect(run.fixtures.map(\.id) == [1, 1, 1])
        let forgetful = MigrationStage.custom(from: 0, to: 1) { _ in }
        let error = try #require(throws: MigrationTestError.self) {
            try Self.tester(stage: forgetful).migrate(from: 0, fixtures: Self.fixtures) { old in
                old.entity == "Tag"
                    ? .values(["name": old["label"]], in: "Label")
                    : .survives(dropping: old.entity == "Note" ? ["pinned"] : [])
            }
        }
        #expect(error.code == .objectsLost)
        #expect(
            error.message == """
                From version 0 (path 0 → 1): 1 of 3 fixture objects differ after the migration to version 1:
                'Label' object "errand" (_id 1, stored at version 0 as 'Tag') is missing.
                Fix the stages on the path 0 → 1 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                """)
    }

    @Test("several objects holding the expected values, and no primary key: ambiguous, not a guess")
    func ambiguousMatch() throws {
        let fixtures = Self.fixtures + [Fixture("Tag", "chores", ["label": "Errand"])]
        let error = try #require(throws: MigrationTestError.self) {
            try Self.tester().migrate(from: 0, fixtures: fixtures) { old in
                switch old.entity {
                case "Tag": return .values(["name": old["label"]], in: "Label")
                case "Note": return .survives(dropping: ["pinned"])
                default: return .survives()
                }
            }
        }
        #expect(error.code == .ambiguousMatch)
        #expect(
            error.message == """
                From version 0 (path 0 → 1): 2 of 4 fixture objects differ after the migration to version 1:
                'Label' object "errand" (_id 1, stored at version 0 as 'Tag') cannot be told apart: 2 'Label' objects hold the expected values.
                'Label' object "chores" (_id 2, stored at version 0 as 'Tag') cannot be told apart: 2 'Label' objects hold the expected values.
                An object moved to another entity is found there by that entity's primary key, else as the one object holding the values expected: give the key's value in the expectation (or a primary key to the entity), or values only that object holds.
                """)
    }

    static let w0 = Schema(version: 0) { Entity("Tag") { Attribute("label", .string) } }
    static let w1 = Schema(version: 1, deleting: [.entity("Tag")]) {
        Entity("Keyword", primaryKey: "code") {
            Attribute("code", .string)
            Attribute("name", .string)
        }
    }

    @Test("an object moved to an entity with a primary key is found by that key")
    func movedObjectFoundByPrimaryKey() throws {
        // The stage creates keywords in reverse order, so that no keyword has the _id of its tag.
        let reversed = MigrationStage.custom(from: 0, to: 1) { migration in
            var labels: [String] = []
            try migration.enumerateOldObjects(ofType: "Tag") { labels.append($0["label"].string ?? "") }
            for label in labels.reversed() {
                _ = try migration.create(
                    "Keyword", value: ["code": .string(label.uppercased()), "name": .string(label.lowercased())])
            }
        }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: [Self.w0, Self.w1], stages: [reversed]))
        let fixtures = [Fixture("Tag", "a", ["label": "Alpha"]), Fixture("Tag", "b", ["label": "Beta"])]
        try tester.migrate(from: 0, fixtures: fixtures) { old in
            .values(
                [
                    "code": .string(old["label"].string!.uppercased()),
                    "name": .string(old["label"].string!.lowercased()),
                ], in: "Keyword")
        }
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 0, fixtures: fixtures) { old in
                .values(["code": .string(old["label"].string!.uppercased()), "name": old["label"]], in: "Keyword")
            }
        }
        #expect(error.code == .valueMismatch)
        #expect(
            error.message == """
                From version 0 (path 0 → 1): 2 of 2 fixture objects differ after the migration to version 1:
                'Keyword' object "a" (_id 1, stored at version 0 as 'Tag'):
                  name: expected "Alpha", found "alpha"
                'Keyword' object "b" (_id 2, stored at version 0 as 'Tag'):
                  name: expected "Beta", found "beta"
                Fix the stages on the path 0 → 1 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                """)
    }

    @Test("dropping an attribute the migration keeps, or one the version does not have, is an error")
    func wrongDeclarations() throws {
        let kept = try #require(throws: MigrationTestError.self) {
            try Self.tester().migrate(from: 0, fixtures: Self.fixtures) { old in
                switch old.entity {
                case "Tag": return .deleted
                case "Note": return .survives(dropping: ["pinned", "text"])
                default: return .survives()
                }
            }
        }
        #expect(kept.code == .valueMismatch)
        #expect(
            kept.message.contains(
                """
                'Note' object "milk" (_id 1, stored at version 0):
                  text: expected nothing, found "Buy milk"
                """))
        let unknown = try #require(throws: MigrationTestError.self) {
            try Self.tester().migrate(from: 0, fixtures: Self.fixtures) { old in
                old.entity == "Note" ? .survives(dropping: ["pined"]) : .deleted
            }
        }
        #expect(unknown.code == .invalidFixture)
        #expect(
            unknown.message
                == "From version 0: the expectation of fixture \"milk\" drops 'pined', which 'Note' does not have at version 0. Name in `dropping` the attributes of the fixture's own version."
        )
    }
}
