import Foundation
import Testing
import MoltTesting

/// Links between fixtures are followed through migrations and compared like values.
@Suite("Relationships of fixtures")
struct RelationshipExpectationTests {
    static let v0 = Schema(version: 0) {
        Entity("Folder") { Attribute("name", .string) }
        Entity("Note") {
            Attribute("text", .string)
            Relationship("folder", to: "Folder")
        }
    }
    /// A note may now be in several folders: the to-one relationship becomes to-many, links kept.
    static let v1 = Schema(version: 1) {
        Entity("Folder") { Attribute("name", .string) }
        Entity("Note") {
            Attribute("text", .string)
            Relationship("folders", toMany: "Folder", originalName: "folder")
        }
    }
    static let fixtures = [
        Fixture("Folder", "home", ["name": "Home"]),
        Fixture("Folder", "work", ["name": "Work"]),
        Fixture("Note", "milk", ["text": "Buy milk"], links: ["folder": "home"]),
        Fixture("Note", "report", ["text": "Write report"], links: ["folder": "work"]),
    ]

    @Test("a to-one relationship made to-many keeps its links, checked by fixture key")
    func toOneBecomesToMany() throws {
        let run = try MigrationTester(schemas: [Self.v0, Self.v1]).migrate(
            from: 0, fixtures: Self.fixtures,
            check: { migrated in
                let milk = try #require(try migrated.object("milk"))
                #expect(try migrated.objects.destinations("folders", of: milk).map { $0["name"] } == ["Home"])
            })
        #expect(run.fixtures.first { $0.key == "milk" }?.links == ["folder": ["home"]])
    }

    @Test("a stage that links objects as expected passes; one that unlinks them is caught per relationship")
    func stageLinks() throws {
        let v2 = Schema(version: 2) {
            Entity("Folder") { Attribute("name", .string) }
            Entity("Note") {
                Attribute("text", .string)
                Attribute("shared", .bool, default: false)
                Relationship("folders", toMany: "Folder")
            }
        }
        // Version 2 files every note in every folder as well: a shared note.
        let shareAll = MigrationStage.custom(from: 1, to: 2) { migration in
            let folders = try migration.new.fetch("Folder")
            for note in try migration.new.fetch("Note") {
                try migration.new.set("folders", of: note, to: folders)
                var shared = note
                shared["shared"] = true
                try migration.new.update(shared)
            }
        }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: [Self.v0, Self.v1, v2], stages: [shareAll]))
        try tester.migrate(from: 0, fixtures: Self.fixtures) { old in
            old.entity == "Note" ? .survives(["shared": true], links: ["folders": ["home", "work"]]) : .survives()
        }
        let forgetful = MigrationStage.custom(from: 1, to: 2) { migration in
            for note in try migration.new.fetch("Note") {
                try migration.new.set("folders", of: note, to: [DynamicObject]())
            }
        }
        let broken = MigrationTester(plan: try MigrationPlan(schemas: [Self.v0, Self.v1, v2], stages: [forgetful]))
        let error = try #require(throws: MigrationTestError.self) {
            try broken.migrate(from: 1, fixtures: Self.v1Fixtures)
        }
        #expect(error.code == .valueMismatch)
        #expect(error.attribute == "folders")
        #expect(
            error.message == """
                From version 1 (path 1 → 2): 2 of 4 fixture objects differ after the migration to version 2:
                'Note' object "milk" (_id 1, stored at version 1):
                  folders: expected ["home"], found []
                'Note' object "report" (_id 2, stored at version 1):
                  folders: expected ["work"], found []
                Fix the stages on the path 1 → 2 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                """)
    }

    static let v1Fixtures = [
        Fixture("Folder", "home", ["name": "Home"]),
        Fixture("Folder", "work", ["name": "Work"]),
        Fixture("Note", "milk", ["text": "Buy milk"], links: ["folders": ["home"]]),
        Fixture("Note", "report", ["text": "Write report"], links: ["folders": "work"]),
    ]
}
