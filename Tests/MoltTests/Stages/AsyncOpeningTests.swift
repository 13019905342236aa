import Foundation
import Testing
@testable import Molt

@Suite("Opening off the caller's thread")
struct AsyncOpeningTests {
    @Test("an async open migrates, and the progress sequence a UI observes ends at 1")
    func progressSequence() async throws {
        let dir = TemporaryDirectory()
        try StageBehaviorTests.makeStore(.file(dir.file()), kind: .wal, count: 3000)
        let plan = try MigrationPlan(schemas: [StageBehaviorTests.v1, StageBehaviorTests.v2], stages: [StageBehaviorTests.parse])
        let opening = Store.opening(at: dir.file(), schema: StageBehaviorTests.v2, options: .init().migrating(with: plan))
        var fractions: [Double] = []
        for await step in opening.progress { fractions.append(step.fractionCompleted) }
        let store = try await opening.store
        #expect(store.schema.version == 2)
        #expect(fractions.last == 1)
        #expect(fractions == fractions.sorted())
    }

    @Test("cancelling an opening rolls the migration back")
    func cancel() async throws {
        let dir = TemporaryDirectory()
        try StageBehaviorTests.makeStore(.file(dir.file()), kind: .wal, count: 3000)
        let plan = try MigrationPlan(schemas: [StageBehaviorTests.v1, StageBehaviorTests.v2], stages: [StageBehaviorTests.parse])
        let opening = Store.opening(at: dir.file(), schema: StageBehaviorTests.v2, options: .init().migrating(with: plan))
        opening.cancel()
        await #expect(throws: MoltError.self) { try await opening.store }
        #expect(try Store.version(at: dir.file()) == 1)
        let store = try await Store.open(at: dir.file(), schema: StageBehaviorTests.v2, options: .init().migrating(with: plan))
        #expect(try await store.read { try $0.count("Item") } == 3000)
    }
}
