import Foundation
import Molt
import Testing

/// Random schema evolutions over random data (``Evolution``), migrated two ways: in one run from version 0 to
/// the last, and one version at a time.
///
/// The cases are bounded and drawn from a fixed seed; `MOLT_PROPERTY_ITERATIONS` and `MOLT_PROPERTY_SEED` widen
/// the run (``PropertyRuns``).
@Suite("Properties: random schema evolutions over random data")
struct MigrationPropertyTests {
    @Test(
        "every value is kept as the declared changes say, or the migration is refused with not a byte written; one run equals step by step"
    )
    func evolutions() async {
        var migrated = 0, refused = 0
        await PropertyRuns.check(defaultCount: 30, Evolution.generator) { evolution in
            switch try Self.check(evolution) {
            case .migrated: migrated += 1
            case .refused: refused += 1
            }
        }
        // A property that only ever saw one outcome would prove half of what it says.
        if PropertyRuns.iterations(default: 30) >= 30 {
            #expect(migrated > 0 && refused > 0, "migrated \(migrated), refused \(refused)")
        }
    }

    /// Migrates two copies of the evolution's store, one in one run and one version by version, and checks
    /// both against what the declared changes say.
    ///
    /// - Returns: What happened, for the run's tally.
    /// - Throws: ``PropertyViolation`` naming the broken invariant.
    static func check(_ evolution: Evolution) throws -> Evolution.Outcome {
        let dir = TemporaryDirectory()
        let kind: StoreKind = evolution.wal ? .wal : .rollback
        let oneRun = dir.file("one-run.sqlite"), stepwise = dir.file("stepwise.sqlite")
        let v0 = evolution.initialSchema
        let before = try Library.makeStore(at: oneRun, schema: v0, kind: kind, fill: evolution.fill)
        guard try Library.makeStore(at: stepwise, schema: v0, kind: kind, fill: evolution.fill) == before else {
            throw PropertyViolation("the same inserts gave two different stores")
        }
        let (schemas, expected) = evolution.expectation(from: before)

        // (a) and (b): in one run, every value kept, or refused without a byte written.
        let bytes = FileState(oneRun)
        let oneRunResult = try migrate(oneRun, kind: kind, through: schemas)
        switch (expected, oneRunResult) {
        case (.migrated(let dump), .success(let after)) where after != dump:
            throw PropertyViolation(
                "the migration in one run did not keep the values.\nExpected:\n\(dump)\nFound:\n\(after)")
        case (.migrated, .failure(let error)):
            throw PropertyViolation("a migration that keeps every value was refused: \(error)")
        case (.refused(let version), .success):
            throw PropertyViolation("the migration to version \(version) loses a value but was not refused")
        case (.refused(let version), .failure(let error)):
            guard Self.isInexactWidening(error, version: version) else {
                throw PropertyViolation(
                    "the migration was refused, but not for the int → double widening of version \(version): \(error)")
            }
            guard FileState(oneRun) == bytes else {
                throw PropertyViolation("the refused migration in one run wrote to the store")
            }
        default:
            break
        }

        // (c): version by version gives the same store, or the same refusal at the same version.
        var stepResult: Result<StoreDump, MoltError> = .success(before)
        for last in 1..<schemas.count {
            let bytes = FileState(stepwise)
            stepResult = try migrate(stepwise, kind: kind, through: Array(schemas[0...last]))
            if case .failure(let error) = stepResult {
                guard FileState(stepwise) == bytes else {
                    throw PropertyViolation("the refused migration to version \(last) wrote to the store")
                }
                guard expected == .refused(version: last), Self.isInexactWidening(error, version: last) else {
                    throw PropertyViolation(
                        "version by version, the migration to version \(last) was refused: \(error)")
                }
                break
            }
        }
        switch (oneRunResult, stepResult) {
        case (.success(let one), .success(let steps)) where one != steps:
            throw PropertyViolation(
                "one run and version by version differ.\nOne run:\n\(one)\nVersion by version:\n\(steps)")
        case (.failure(let one), .failure(let steps)) where one.code != steps.code || one.message != steps.message:
            throw PropertyViolation("one run and version by version were refused differently: \(one) / \(steps)")
        case (.success, .failure), (.failure, .success):
            throw PropertyViolation("one run gave \(oneRunResult), version by version \(stepResult)")
        default:
            return expected
        }
    }

    /// Opens the store at `url` at the last of `schemas`, through a plan of them, and reads it; a ``MoltError``
    /// is the migration's refusal (any other error is not).
    static func migrate(_ url: URL, kind: StoreKind, through schemas: [Schema]) throws -> Result<StoreDump, MoltError> {
        let plan = try MigrationPlan(schemas: schemas)
        do {
            let store = try Store.open(at: url, schema: schemas.last!, options: kind.options.migrating(with: plan))
            defer { try? store.close() }
            return .success(try StoreDump(store))
        } catch let error as MoltError {
            return .failure(error)
        }
    }

    /// Whether `error` is the one refusal an evolution expects: an int → double widening in `version` that meets
    /// an integer with no exact double.
    static func isInexactWidening(_ error: MoltError, version: Int) -> Bool {
        error.code == .migrationNotInferable && error.message.contains("in version \(version): the value")
            && error.message.contains("has no exact double")
    }
}
