import Foundation
import Testing
@testable import MoltTesting

/// The test kit over hierarchies: fixtures of sub-entities, links inherited from a parent, counts per entity, and
/// data-dependent steps of a hierarchy, from every recorded version.
@Suite("Test kit: hierarchies")
struct HierarchyKitTests {
    static let v1 = Schema(version: 1) {
        Entity("Message", isAbstract: true) {
            Attribute("sent", .int)
            Attribute("delivered", .bool, default: false)
            Relationship("conversation", to: "Conversation", inverse: "messages")
        }
        Entity("Text", parent: "Message") { Attribute("body", .string) }
        Entity("Image", parent: "Message") { Attribute("bytes", .int) }
        Entity("Conversation") {
            Attribute("title", .string)
            Relationship("messages", toMany: "Message", inverse: "conversation")
        }
    }

    /// `delivered` moves down into both siblings (each with a column), and a sub-entity is added.
    static let v2 = Schema(version: 2) {
        Entity("Message", isAbstract: true) {
            Attribute("sent", .int)
            Relationship("conversation", to: "Conversation", inverse: "messages")
        }
        Entity("Text", parent: "Message") {
            Attribute("body", .string)
            Attribute("delivered", .bool, default: false)
        }
        Entity("Image", parent: "Message") {
            Attribute("bytes", .int)
            Attribute("delivered", .bool, default: false)
        }
        Entity("Knock", parent: "Message") { Attribute("count", .int, default: 1) }
        Entity("Conversation") {
            Attribute("title", .string)
            Relationship("messages", toMany: "Message", inverse: "conversation")
        }
    }

    static func fixtures(at version: Int) -> [Fixture] {
        [
            Fixture("Conversation", "team", ["title": "Team"]),
            Fixture("Text", "hello", ["sent": 1, "delivered": true, "body": "hi"], links: ["conversation": ["team"]]),
            Fixture("Image", "photo", ["sent": 2, "bytes": 512], links: ["conversation": ["team"]]),
        ]
    }

    @Test("fixtures of sub-entities migrate from every version, with their inherited links and counts per entity")
    func everyVersion() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record([Self.v1, Self.v2])
        let tester = MigrationTester(plan: try MigrationPlan(schemas: [Self.v1, Self.v2]), snapshots: snapshots)
        let runs = try tester.migrateFromEveryVersion(
            fixtures: Self.fixtures(at:), expectedCounts: ["Text": 1, "Image": 1, "Message": 2, "Conversation": 1]
        ) { _ in
            .survives()
        } check: { migrated in
            let photo = try #require(try migrated.object("photo"))
            #expect(photo.entity == "Image")
            #expect(photo["delivered"] == false)
            #expect(try migrated.object("hello")?["delivered"] == true)
        }
        #expect(runs.map(\.path) == [[1, 2]])
        #expect(runs[0].fixtures.first { $0.key == "hello" }?.links == ["conversation": ["team"]])
        #expect(runs[0].fixtures.first { $0.key == "team" }?.links == ["messages": ["hello", "photo"]])
    }

    @Test("a step that loses a sub-entity's values is reported per object")
    func lostValues() throws {
        let v2 = Schema(version: 2) {
            Entity("Message", isAbstract: true) {
                Attribute("sent", .int)
                Relationship("conversation", to: "Conversation", inverse: "messages")
            }
            Entity("Text", parent: "Message") {
                Attribute("body", .string)
                Attribute("delivered", .bool, default: false)
            }
            Entity("Image", parent: "Message") { Attribute("bytes", .int) }
            Entity("Conversation") {
                Attribute("title", .string)
                Relationship("messages", toMany: "Message", inverse: "conversation")
            }
        }
        let tester = MigrationTester(schemas: [Self.v1, v2])
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion(fixtures: Self.fixtures(at:))
        }
        #expect(
            error.message.contains(
                "Version 2 no longer gives entity 'Image' the property 'delivered' (it is declared on 'Text'), which holds 1 value on its objects."
            ), "\(error.message)")
    }

    @Test("a sub-entity's attribute made unique is a data-dependent step: the kit migrates a store with duplicates")
    func dataDependentStep() throws {
        let v1 = Schema(version: 1) {
            Entity("Message", isAbstract: true) { Attribute("sent", .int) }
            Entity("Text", parent: "Message") { Attribute("body", .string) }
            Entity("Image", parent: "Message") { Attribute("bytes", .int) }
        }
        let v2 = Schema(version: 2) {
            Entity("Message", isAbstract: true) { Attribute("sent", .int) }
            Entity("Text", parent: "Message") {
                Attribute("body", .string)
                Index(["body"], unique: true)
            }
            Entity("Image", parent: "Message") { Attribute("bytes", .int) }
        }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: [v1, v2]))
        #expect(try tester.dataDependentSteps().map(\.description).contains { $0.contains("'Text.body'") })
        let error = try #require(throws: MigrationTestError.self) { try tester.checkDataDependentSteps() }
        #expect(error.message.hasPrefix("Step 1 → 2 depends on the data: 'Text.body'"), "\(error.message)")
        #expect(error.message.contains("a store at version 1 where two 'Text' objects"), "\(error.message)")
    }
}
