import Foundation
import Molt
import Testing
@testable import MoltTesting

/// The kit and a minimum count a step raises: the owners under it are kept and listed (as Core Data's lightweight
/// migration keeps them), so fixtures holding them migrate and the run reports them; the kit probes every such
/// step with a generated short owner; a version that refuses short owners is probed as a step that depends on the
/// data.
@Suite("The kit over a raised minimum count")
struct KeptShortOwnersTests {
    /// `Question.options` with no minimum at version 1, with `minimum` at version 2.
    static func plan(minimum: Int = 2, strict: Bool = false, stages: [MigrationStage] = []) throws -> MigrationPlan {
        func schema(_ version: Int, _ minimum: Int) -> Schema {
            Schema(version: version) {
                Entity("Question") {
                    Attribute("title", .string)
                    Relationship("options", toMany: "Option", inverse: "question", minimumCount: minimum)
                }
                Entity("Option") {
                    Attribute("label", .string)
                    Relationship("question", to: "Question", inverse: "options")
                }
            }
        }
        let v2 = schema(2, minimum)
        return try MigrationPlan(schemas: [schema(1, 0), strict ? v2.refusingShortOwners() : v2], stages: stages)
    }

    /// Question "empty" with no option, "pick" with one, "color" with two.
    static let fixtures = [
        Fixture("Question", "empty", ["title": "Empty?"]),
        Fixture("Question", "pick", ["title": "Pick?"], links: ["options": ["green"]]),
        Fixture("Question", "color", ["title": "Color?"], links: ["options": ["red", "blue"]]),
        Fixture("Option", "green", ["label": "Green"]),
        Fixture("Option", "red", ["label": "Red"]),
        Fixture("Option", "blue", ["label": "Blue"]),
    ]

    @Test("fixtures with owners under the raised minimum migrate, kept as they were, and the run lists them")
    func fixturesKept() throws {
        let tester = MigrationTester(plan: try Self.plan())
        let run = try tester.migrate(from: 1, fixtures: Self.fixtures, expectedCounts: ["Question": 3, "Option": 3])
        #expect(
            run.underMinimumCount == ["1 → 2: 2 'Question' objects (_id 1: 0, _id 2: 1) hold fewer than 2 'options'"])
        #expect(run.description.hasSuffix("; kept under a minimum count: \(run.underMinimumCount[0])"))
    }

    @Test("the probe of a raise passes when the engine keeps its short owners, and names a stage that refuses them")
    func probe() throws {
        try MigrationTester(plan: try Self.plan()).checkDataDependentSteps()
        // A stage that inserts a question with no option: the minimum holds for it, whatever the version keeps.
        let careless = MigrationStage.custom(from: 1, to: 2) { migration in
            try migration.new.insert("Question", ["title": "New?"])
        }
        let error = try #require(throws: MigrationTestError.self) {
            try MigrationTester(plan: try Self.plan(stages: [careless])).checkDataDependentSteps()
        }
        #expect(error.code == .dataDependentStepFails)
        #expect(
            error.message.hasPrefix(
                "Step 1 → 2 adds or raises the minimum count of 'Question.options', and version 2 keeps the objects under it (as Core Data's lightweight migration does): a store at version 1 with such objects must migrate, listing them in the step's history entry. The kit generated such a store, and the migration to version 2 failed: The migration to version 2 left the relationship 'Question.options' under its minimum count of 2"
            ), "\(error.message)")
    }

    @Test("a version that refuses short owners fails the kit for fixtures under its minimum, naming them")
    func strict() throws {
        let tester = MigrationTester(plan: try Self.plan(strict: true))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 1, fixtures: Self.fixtures)
        }
        #expect(error.code == .migrationFailed)
        #expect(
            error.message.contains("2 'Question' objects hold fewer than 2 'options' (_id 1: 0, _id 2: 1)"),
            "\(error.message)")
    }
}
