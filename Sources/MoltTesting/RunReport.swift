/// The errors of one run of ``MigrationTester/migrate(from:fixtures:expectedCounts:expect:check:)``, each
/// starting with the run's starting version and path.
struct RunReport {
    /// "From version 0 (path 0 → 1 → 2)".
    let prefix: String
    let version: Int
    /// The newest version, the run's target.
    let newest: Int
    let fixtureCount: Int

    /// Values that do not fit the newest schema.
    func invalidData(_ invalid: [(entity: String, attribute: String, text: String)]) -> MigrationTestError? {
        guard let first = invalid.first else { return nil }
        return MigrationTestError(
            .invalidData,
            "\(prefix): the migrated store holds values that do not fit version \(newest):\n"
                + invalid.map { "- " + $0.text }.joined(separator: "\n")
                + "\nFix the stage or mapping that computes them.",
            version: version, entity: first.entity, attribute: first.attribute)
    }

    /// Objects that differ from their expectation: missing, still there, changed, or ambiguous.
    func differences(
        _ diffs: [ObjectDiff], divergingStep step: (from: Int, to: Int)?, route: String
    ) -> MigrationTestError {
        let ambiguity =
            "An object moved to another entity is found there by that entity's primary key, else as the one object holding the values expected: give the key's value in the expectation (or a primary key to the entity), or values only that object holds."
        let isAmbiguous: (ObjectDiff) -> Bool = { if case .ambiguous = $0.kind { true } else { false } }
        let ambiguous = diffs.contains(where: isAmbiguous)
        var fixes: [String] = []
        if !diffs.allSatisfy(isAmbiguous) {
            if let step {
                fixes.append(
                    "The data first differs after the step \(step.from) → \(step.to). Fix that step (its stage, or the `originalName` hints of version \(step.to)) to carry the data over, or state the intended change in the expectation."
                )
            } else {
                fixes.append(
                    "Fix the stages on the path \(route) (or the `originalName` hints) to carry the data over, or state the intended change in the expectation."
                )
            }
        }
        if ambiguous { fixes.append(ambiguity) }
        let fix = fixes.joined(separator: " ")
        let code: MigrationTestError.Code =
            diffs.contains { $0.kind == .missing } ? .objectsLost : ambiguous ? .ambiguousMatch : .valueMismatch
        let first = diffs[0]
        return MigrationTestError(
            code,
            "\(prefix): \(diffs.count) of \(fixtureCount) fixture objects differ after the migration to version \(newest):\n"
                + diffs.map(\.description).joined(separator: "\n") + "\n" + fix,
            version: version, entity: first.entity, attribute: first.differences.first?.property,
            object: first.object.key)
    }

    /// Data the migration drops that the expectations do not declare, with the declaration for each object.
    func undeclaredLosses(_ diffs: [ObjectDiff]) -> MigrationTestError? {
        guard let first = diffs.first else { return nil }
        let objects = Set(diffs.map(\.object.key)).count
        var declarations: [String] = []
        for diff in diffs {
            switch diff.kind {
            case .entityRemoved:
                declarations.append(
                    "`.deleted` for \"\(diff.object.key)\" (or `.values([…], in: \"<entity>\")` if a stage moves it to another entity)"
                )
            default:
                let names = diff.differences.map { "\"\($0.property)\"" }.joined(separator: ", ")
                declarations.append("`dropping: [\(names)]` in the `.survives(…)` of \"\(diff.object.key)\"")
            }
        }
        return MigrationTestError(
            .lossNotDeclared,
            "\(prefix): \(objects) of \(fixtureCount) fixture objects lose data after the migration to version \(newest), and their expectations do not declare it:\n"
                + diffs.map(\.description).joined(separator: "\n")
                + "\nIf the loss is intended, declare it: " + declarations.joined(separator: "; ")
                + ". Otherwise keep the data: give the new entity or attribute its `originalName`, or carry the data over in a stage.",
            version: version, entity: first.entity, attribute: first.differences.first?.property,
            object: first.object.key)
    }

    /// Object counts that differ from the expected ones.
    func counts(_ counts: [String: Int], expected: [String: Int]) -> MigrationTestError? {
        let wrong = expected.keys.sorted().filter { counts[$0] != expected[$0] }
        guard !wrong.isEmpty else { return nil }
        let lines = wrong.map { entity in
            counts[entity] == nil
                ? "- '\(entity)': expected \(expected[entity]!) objects, but version \(newest) has no such entity"
                : "- '\(entity)': expected \(expected[entity]!) objects, found \(counts[entity]!)"
        }
        return MigrationTestError(
            .countMismatch,
            "\(prefix): the object counts after the migration to version \(newest) differ:\n"
                + lines.joined(separator: "\n")
                + "\nFix the stage that creates or deletes these objects, or the expected counts.",
            version: version, entity: wrong.first)
    }

    /// What a check closure threw.
    func checkFailure(_ error: any Error) -> MigrationTestError {
        let detail = (error as? MigrationTestError)?.message ?? (error as? MoltError)?.message ?? "\(error)"
        return MigrationTestError(
            .checkFailed, "\(prefix): the check of the migrated store threw: \(detail)", version: version,
            underlying: error as? MoltError)
    }
}

extension ObjectDiff {
    /// Whether it reports data the migration drops that the expectation does not declare.
    var isUndeclaredLoss: Bool {
        switch kind {
        case .entityRemoved, .valuesDropped: return true
        default: return false
        }
    }
}
