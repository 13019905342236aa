// MoltTesting re-exports Molt, so a test file needs one import. It imports no test framework: every check
// throws a `MigrationTestError`, which swift-testing (`#expect(throws:)`, or a throwing `@Test`) and XCTest
// (`XCTAssertNoThrow`, or a throwing test method) both report.
@_exported import Molt
