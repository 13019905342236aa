import Foundation
import Molt

extension MigrationTester {
    /// Proves the rule of a minimum count that a step adds or raises into a version that keeps short owners
    /// (`Schema.ShortOwners.kept`, the default): a store at the step's older version holding an owner under the new
    /// minimum (no destination for a relationship the step adds, the older minimum for one it raises) migrates to
    /// the newest version, and the history entry of the step lists the owner under each such relationship.
    ///
    /// ``checkDataDependentSteps()`` runs it beside the probes of the steps that depend on the data; a version
    /// that refuses short owners (`refusingShortOwners()`) is probed there instead, as a step that depends on it.
    ///
    /// - Returns: A failure per step that refused its short owners or did not list them.
    func checkKeptShortOwners(_ steps: [MigrationStep]) throws -> [MigrationTestError] {
        var failures: [MigrationTestError] = []
        for step in steps where step.to.shortOwners == .kept {
            let raised = step.diff.raisedMinimums()
            guard !raised.isEmpty, let failure = try probeKeptShortOwners(step, owners: raised.map(\.oldEntity))
            else { continue }
            failures.append(failure)
        }
        return failures
    }

    /// Migrates a store of the step's older version holding one object of each of `owners`; the failure, or nil
    /// when the migration keeps them and the step's history entry lists them.
    private func probeKeptShortOwners(_ step: MigrationStep, owners: [String]) throws -> MigrationTestError? {
        let (from, to) = (step.from.version, step.to.version)
        let schema = (try? startSchema(version: from)) ?? step.from
        let witnesses = Set(owners).sorted().enumerated().map { index, entity in
            Self.sampleObject(entity, "short owner \(index + 1)", index, in: schema)
        }
        let fixtures = Self.linkingRequired(witnesses, in: schema)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("molt-probe-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("short-owners-\(from).sqlite")
        guard let start = try? FixtureStore.create(at: url, schema: schema, fixtures: fixtures) else { return nil }
        try? start.close()
        guard let route = try? route(from: from), let plan = try? self.plan(from: from, path: try path(from: from))
        else { return nil }  // the runs report a plan that cannot be taken
        let expected = RaisedMinimum.along(route).filter { $0.fromVersion == from && $0.toVersion == to }
        let subjects = expected.map { "'\($0.key)'" }.joined(separator: ", ")
        let opening =
            "Step \(from) → \(to) adds or raises the minimum count of \(subjects), and version \(to) keeps the objects under it (as Core Data's lightweight migration does): a store at version \(from) with such objects must migrate, listing them in the step's history entry."
        let store: Store
        do {
            store = try Store.open(at: url, schema: newest, options: FixtureStore.defaultOptions.migrating(with: plan))
        } catch let error as MoltError {
            return MigrationTestError(
                .dataDependentStepFails,
                "\(opening) The kit generated such a store, and the migration to version \(newest.version) failed: \(error.message)\nLink or delete such objects in a stage, or declare that version \(to) refuses them (`refusingShortOwners()`).",
                version: from, entity: error.entity, attribute: error.property, underlying: error)
        }
        defer { try? store.close() }
        let lines =
            try store.history().last?.stepRecords.first { $0.fromVersion == from && $0.toVersion == to }?
            .underMinimumCount ?? []
        let missing = expected.filter { raised in
            !lines.contains { $0.contains("'\(raised.entity)' object") && $0.hasSuffix("'\(raised.relationship)'") }
        }
        guard !missing.isEmpty else { return nil }
        return MigrationTestError(
            .dataDependentStepFails,
            "\(opening) The kit generated such a store; it migrated, but the entry of step \(from) → \(to) does not list the objects under \(missing.map { "'\($0.key)'" }.joined(separator: ", ")) (it lists: \(lines.isEmpty ? "none" : lines.joined(separator: "; "))). Report this to Molt.",
            version: from, entity: missing[0].entity, attribute: missing[0].relationship)
    }
}
