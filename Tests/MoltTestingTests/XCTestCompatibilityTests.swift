import Foundation
import MoltTesting
import XCTest

/// The kit under XCTest: its checks throw, so a throwing test method fails with the kit's message, and
/// `XCTAssertThrowsError` can look at the error. (The other suites use swift-testing.)
final class XCTestCompatibilityTests: XCTestCase {
    func testSoundPlanPassesUnderXCTest() throws {
        let runs = try MigrationTester(schemas: Memo.all).migrateFromEveryVersion(fixtures: Memo.fixtures(at:)) { old in
            .survives(dropping: Memo.dropped(old))
        }
        XCTAssertEqual(runs.map(\.fromVersion), [0, 1, 2])
    }

    func testBrokenPlanFailsUnderXCTestWithTheKitsMessage() throws {
        let tester = MigrationTester(schemas: Memo.all + [Memo.v4])
        XCTAssertThrowsError(try tester.migrate(from: 3, fixtures: Memo.fixtures(at: 3))) { error in
            let error = error as? MigrationTestError
            XCTAssertEqual(error?.code, .missingStage)
            XCTAssertEqual(error?.version, 3)
            XCTAssertEqual(error?.attribute, "memoDescription")
        }
    }
}
