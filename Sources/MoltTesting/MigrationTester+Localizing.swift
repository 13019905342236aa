extension MigrationTester {
    /// One fixture whose data is wrong after a run, and what the schemas say it should hold.
    private struct Suspect {
        var key: String
        var isMissing: Bool
        /// The properties that differ and whose expected content is what the schemas carry over.
        var properties: [String]
    }

    /// The step of a run's path after which the data first differs from what the schemas carry over, found by
    /// migrating the same fixtures to each intermediate version of the path; nil when the path has one step or
    /// the step cannot be told (the differing values are ones the expectation computed, or were renamed).
    ///
    /// Only what the expectation left to the schemas is followed: a value a stage is expected to compute may
    /// differ from the carried one at an intermediate version on purpose.
    func firstDivergingStep(
        from version: Int, fixtures: [Fixture], path: [Int], diffs: [ObjectDiff]
    ) -> (from: Int, to: Int)? {
        guard path.count > 2, let chain = try? chain(from: version) else { return nil }
        var suspects: [Suspect] = []
        for diff in diffs {
            let carried = Carried(diff.object, through: chain)
            switch diff.kind {
            case .missing where carried.entity == diff.entity:
                suspects.append(Suspect(key: diff.object.key, isMissing: true, properties: []))
            case .changed:
                let properties = diff.differences.filter { difference in
                    switch difference.expected {
                    case .value(let value): return carried.values[difference.property] == value
                    case .links(let keys): return carried.links[difference.property] == keys
                    case .dropped, .moved: return false
                    }
                }.map(\.property)
                if !properties.isEmpty {
                    suspects.append(Suspect(key: diff.object.key, isMissing: false, properties: properties))
                }
            default:
                continue
            }
        }
        guard !suspects.isEmpty else { return nil }
        var lastFullyChecked = false
        for k in 1..<(path.count - 1) {
            guard let probe = probe(from: version, fixtures: fixtures, to: path[k], suspects: suspects) else {
                return nil
            }
            if probe.diverged { return (path[k - 1], path[k]) }
            lastFullyChecked = probe.fullyChecked
        }
        return lastFullyChecked ? (path[path.count - 2], path[path.count - 1]) : nil
    }

    /// Migrates the fixtures to `target` along the same path, and tells whether a suspect already differs from
    /// what the schemas carry over to `target`, and whether every suspect could be checked there.
    private func probe(
        from version: Int, fixtures: [Fixture], to target: Int, suspects: [Suspect]
    ) -> (diverged: Bool, fullyChecked: Bool)? {
        let prefix = MigrationTester(
            schemas: schemas.filter { $0.version <= target }, stages: stages.filter { $0.toVersion <= target },
            snapshots: snapshots)
        guard let chain = try? prefix.chain(from: version) else { return nil }
        var result: (diverged: Bool, fullyChecked: Bool)?
        _ = try? prefix.migrateFixtures(
            from: version, fixtures: fixtures, expectedCounts: nil, expect: { _ in .unchecked },
            check: { migrated in
                var keys: [ObjectRef: String] = [:]
                for fixture in migrated.fixtures {
                    if let entity = Carried(fixture, through: chain).entity {
                        keys[ObjectRef(entity: entity, id: fixture.id)] = fixture.key
                    }
                }
                var diverged = false
                var fullyChecked = true
                for suspect in suspects {
                    guard let fixture = migrated.fixtures.first(where: { $0.key == suspect.key }) else { continue }
                    let carried = Carried(fixture, through: chain)
                    guard let entity = carried.entity else {
                        fullyChecked = false
                        continue
                    }
                    guard let found = try migrated.objects.object(entity, id: fixture.id) else {
                        diverged = true
                        continue
                    }
                    let links = try StoreReading.links(
                        of: found, in: migrated.objects, schema: prefix.newest, keys: keys)
                    for property in suspect.properties {
                        if let value = carried.values[property] {
                            if found[property] != value { diverged = true }
                        } else if let want = carried.links[property] {
                            if (links[property] ?? []).sorted() != want.sorted() { diverged = true }
                        } else {
                            fullyChecked = false
                        }
                    }
                }
                result = (diverged, fullyChecked)
            })
        return result
    }
}
