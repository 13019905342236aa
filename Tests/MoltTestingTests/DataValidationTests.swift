import Foundation
import Testing
import MoltTesting

@Suite("Data checks of the migrated store")
struct DataValidationTests {
    @Test(
        "a mapping that stores text in a double attribute is refused, naming the starting version, the object and the value"
    )
    func mappingStoresWrongType() throws {
        var v4 = Memo.v3.withVersion(4)
        v4.entities[1].attributes.append(Attribute("score", .double, default: 0))
        let careless = MigrationStage.mapping(
            from: 3, to: 4,
            [
                EntityMapping(
                    destination: "UserMemo", attributes: ["score": "CASE WHEN favorite THEN 'high' ELSE 0.5 END"])
            ])
        let tester = MigrationTester(plan: try MigrationPlan(schemas: Memo.all + [v4], stages: [careless]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 3, fixtures: Memo.fixtures(at: 3)) { _ in .survives(ignoring: ["score"]) }
        }
        // Molt itself refuses the mapping before commit; the kit reports which starting version hit it.
        #expect(error.code == .migrationFailed)
        #expect(error.version == 3)
        #expect(
            error.message == """
                From version 3 (path 3 → 4): the migration to version 4 failed: The mapping of 'UserMemo' into 'UserMemo' gives 'UserMemo.score' a text value ('high' for _id 1), but the attribute holds double values. Fix its expression `CASE WHEN favorite THEN 'high' ELSE 0.5 END` (for example with CAST); the store was left at version 3.
                """)
    }
}
