import Foundation
import Molt
import Testing
@testable import MoltTesting

/// What the kit expects of a store that a declared lightweight shortcut takes over several versions: the engine
/// infers the shortcut from its two ends, so the hints of the versions it skips (an entity's `originalName`) play
/// no part, and the kit's prediction follows the same two ends.
@Suite("The kit's prediction over a lightweight shortcut")
struct ShortcutPredictionTests {
    /// Version 1 renames `Note` to `Memo`; version 2 keeps `Memo` (its hint dropped, as it should be) and adds a new
    /// `Note`. The shortcut 0 → 2 sees `Note` at both ends, with no hint: the notes of a version-0 store stay
    /// `Note` objects. Step by step, version 1's hint would have carried them into `Memo`.
    static let schemas = [
        Schema(version: 0) { Entity("Note") { Attribute("text", .string) } },
        Schema(version: 1) { Entity("Memo", originalName: "Note") { Attribute("text", .string) } },
        Schema(version: 2) {
            Entity("Memo") { Attribute("text", .string) }
            Entity("Note") { Attribute("text", .string) }
        },
    ]

    @Test("objects a shortcut keeps under their name are found there, not reported missing under a skipped rename")
    func skippedRename() throws {
        let tester = MigrationTester(
            plan: try MigrationPlan(schemas: Self.schemas, stages: [.lightweight(from: 0, to: 2)]))
        let runs = try tester.migrateFromEveryVersion { version in
            [Fixture(version == 0 ? "Note" : "Memo", "milk", ["text": "Buy milk"])]
        } check: { migrated in
            let milk = try #require(try migrated.object("milk"))
            #expect(milk.entity == (migrated.fromVersion == 0 ? "Note" : "Memo"))
            #expect(milk["text"] == "Buy milk")
        }
        #expect(runs.map(\.path) == [[0, 2], [1, 2]])
        #expect(runs.map { $0.objectCounts["Note"] } == [1, 0])
        #expect(runs.map { $0.objectCounts["Memo"] } == [0, 1])
    }

    @Test("a custom stage over the same versions is still held to every version's hints")
    func customShortcut() throws {
        // The stage does nothing: version 1's rename says the notes become memos, so the kit reports them.
        let stage = MigrationStage.custom(from: 0, to: 2) { _ in }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: Self.schemas, stages: [stage]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 0, fixtures: [Fixture("Note", "milk", ["text": "Buy milk"])])
        }
        #expect(error.code == .objectsLost, "\(error.message)")
        #expect(error.message.contains("'Memo' object \"milk\""), "\(error.message)")
    }
}
