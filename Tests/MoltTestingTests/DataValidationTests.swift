import Foundation
import Testing
import MoltTesting

@Suite("Data checks of the migrated store")
struct DataValidationTests {
    @Test("a mapping that stores text in a double attribute is caught, naming the object and the value")
    func mappingStoresWrongType() throws {
        var v4 = Memo.v3.withVersion(4)
        v4.entities[1].attributes.append(Attribute("score", .double, default: 0))
        let careless = MigrationStage.mapping(from: 3, to: 4, [
            EntityMapping(destination: "UserMemo", attributes: ["score": "CASE WHEN favorite THEN 'high' ELSE 0.5 END"]),
        ])
        let tester = MigrationTester(plan: try MigrationPlan(schemas: Memo.all + [v4], stages: [careless]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrate(from: 3, fixtures: Memo.fixtures(at: 3)) { _ in .survives(ignoring: ["score"]) }
        }
        #expect(error.code == .invalidData)
        #expect(error.entity == "UserMemo")
        #expect(error.attribute == "score")
        #expect(error.message == """
            From version 3 (path 3 → 4): the migrated store holds values that do not fit version 4:
            - 'UserMemo' _id 1 (fixture "groceries"): score holds "high", not a double value
            Fix the stage or mapping that computes them.
            """)
    }
}
