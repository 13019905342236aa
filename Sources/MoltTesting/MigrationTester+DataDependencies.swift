import Foundation

/// Data that the app states it never stores, so that the kit does not generate it: one data-dependent change
/// of one step (``MigrationTester/assumingNeverStored(_:from:to:)``).
struct NeverStored: Hashable, Sendable {
    var subject: String
    var from: Int
    var to: Int
}

extension MigrationTester {
    /// A tester that does not generate the data that would make the step `from → to` fail on `subject`: the
    /// app states that no store of version `from` can hold it (a validation the app always ran, a value it
    /// always wrote), so that the check does not fail for data that cannot exist.
    ///
    /// ```swift
    /// // Every version-3 person got an email at sign-up, and the app never wrote the same one twice.
    /// let tester = MigrationTester(plan: plan, snapshots: snapshots).assumingNeverStored("Person.email", from: 3, to: 4)
    /// ```
    ///
    /// - Parameters:
    ///   - subject: What the change is about, as the kit's report names it: `Person.email`, `Person(first, last)`,
    ///     or an entity.
    ///   - from: The step's older version.
    ///   - to: The step's newer version.
    /// - Returns: The tester, with the assumption added. An assumption that names no data-dependent change of
    ///   the plan fails ``checkDataDependentSteps()``, so that a typo cannot silence a check.
    public func assumingNeverStored(_ subject: String, from: Int, to: Int) -> MigrationTester {
        var copy = self
        copy.neverStored.append(NeverStored(subject: subject, from: from, to: to))
        return copy
    }

    /// Every step the plan takes, from any starting version, whose success depends on the stored data: the
    /// step would migrate an empty store and refuse one holding the data named (`SchemaDiff.DataDependency`),
    /// oldest step first. Assumptions (``assumingNeverStored(_:from:to:)``) are not applied here.
    ///
    /// ```swift
    /// for dependency in try tester.dataDependentSteps() { print(dependency) }
    /// // step 3 → 4 depends on the data: 'Person.email' becomes unique: a store at version 3 where two 'Person'
    /// // objects hold the same 'email' is refused. Make the values unique in a custom stage …
    /// ```
    ///
    /// - Returns: Each step's dependencies, as the engine runs the step (inferred, or a stage).
    /// - Throws: ``MigrationTestError`` when the snapshots folder cannot be read.
    public func dataDependentSteps() throws -> [SchemaDiff.DataDependency] {
        try routedSteps(from: try startingVersions()).flatMap { $0.diff.dataDependencies($0.form) }
    }

    /// Proves that no store fails the plan for data that an empty or tidy test store lacks: for each
    /// data-dependent step (``dataDependentSteps()``), creates a store at the step's older version holding the
    /// data that would make it fail (a null, two equal values, an integer beyond 2^53, a value in a removed
    /// attribute, an object linked from two others), and migrates it with the plan.
    ///
    /// ``migrateFromEveryVersion(fixtures:expectedCounts:expect:check:)`` and
    /// ``migrate(from:fixtures:expectedCounts:expect:check:)`` run it for the steps they cross once the fixtures
    /// pass (a failure of the fixtures is reported alone, first); call it alone to check a plan without fixtures. The stores hold only the generated objects (required attributes get
    /// sample values), so a run takes milliseconds and never depends on the app's fixtures.
    ///
    /// ```swift
    /// try MigrationTester(plan: plan, snapshots: snapshots).checkDataDependentSteps()
    /// // Step 1 → 2 depends on the data: 'Person.handle' becomes required with no default (it was the optional
    /// // 'Person.nickname'), and a store at version 1 where a 'Person' object has no value in 'nickname' cannot
    /// // migrate. The kit generated such a store, and the migration to version 2 failed: Attribute …
    /// ```
    ///
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/dataDependentStepFails`` naming
    ///   the step, the change, the data and the fix (``MigrationTestError/Code/severalFailures`` for several);
    ///   ``MigrationTestError/Code/invalidFixture`` for an assumption that names no data-dependent change.
    public func checkDataDependentSteps() throws {
        try checkDataDependentSteps(from: try startingVersions(), checkingAssumptions: true)
    }

    /// The probes of the steps the plan takes from `versions`; `checkingAssumptions` when they are every
    /// starting version, so that an assumption naming nothing can be told from one about another route.
    func checkDataDependentSteps(from versions: [Int], checkingAssumptions: Bool) throws {
        let steps = try routedSteps(from: versions)
        var failures: [MigrationTestError] = []
        let dependencies = steps.flatMap { step in step.diff.dataDependencies(step.form).map { (step, $0) } }
        if checkingAssumptions {
            for assumption in neverStored where !dependencies.contains(where: { Self.matches(assumption, $0.1) }) {
                let known = dependencies.map { "\"\($0.1.subject)\" from \($0.1.fromVersion) to \($0.1.toVersion)" }
                failures.append(
                    MigrationTestError(
                        .invalidFixture,
                        "The assumption `assumingNeverStored(\"\(assumption.subject)\", from: \(assumption.from), to: \(assumption.to))` names no step whose success depends on the data; \(known.isEmpty ? "the plan has none" : "the plan has \(known.joined(separator: ", "))"). Fix the subject or the versions, or remove it.",
                        version: assumption.from))
            }
        }
        for (step, dependency) in dependencies where !neverStored.contains(where: { Self.matches($0, dependency) }) {
            if let failure = try probe(step, dependency) { failures.append(failure) }
        }
        failures += try checkKeptShortOwners(steps)
        if let error = MigrationTestError.combining(
            failures, heading: "\(failures.count) steps fail on data a user's store may hold:")
        {
            throw error
        }
    }

    private static func matches(_ assumption: NeverStored, _ dependency: SchemaDiff.DataDependency) -> Bool {
        assumption.subject == dependency.subject && assumption.from == dependency.fromVersion
            && assumption.to == dependency.toVersion
    }

    /// The distinct steps of the routes from `versions` and from every version they pass through, in order;
    /// a route the plan cannot take is left to the runs, which report it.
    private func routedSteps(from versions: [Int]) throws -> [MigrationStep] {
        var seen: Set<[Int]> = []
        var steps: [MigrationStep] = []
        for version in versions {
            guard let route = try? route(from: version) else { continue }
            for step in route where seen.insert([step.from.version, step.to.version]).inserted { steps.append(step) }
        }
        return steps.sorted { ($0.from.version, $0.to.version) < ($1.from.version, $1.to.version) }
    }

    /// Migrates a store of the step's older version holding the dependency's data; the failure, or nil when the
    /// plan migrates it.
    private func probe(_ step: MigrationStep, _ dependency: SchemaDiff.DataDependency) throws -> MigrationTestError? {
        let version = step.from.version
        let schema = (try? startSchema(version: version)) ?? step.from
        let fixtures = Self.fixtures(for: dependency.witness, in: schema)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("molt-probe-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("probe-\(version).sqlite")
        // Data the older version's own rules forbid (a constraint, an inverse that allows one link) cannot be
        // on a user's device either: nothing to prove.
        guard let start = try? FixtureStore.create(at: url, schema: schema, fixtures: fixtures) else { return nil }
        try? start.close()
        let plan: MigrationPlan
        do {
            plan = try self.plan(from: version, path: try path(from: version))
        } catch {
            return nil  // the runs report a plan that cannot be taken
        }
        let opening =
            "Step \(dependency.fromVersion) → \(dependency.toVersion) depends on the data: \(dependency.change), and a store at version \(version) where \(dependency.failingData) cannot migrate."
        let assumption =
            "If no store of version \(version) can hold such data, say so: `tester.assumingNeverStored(\"\(dependency.subject)\", from: \(dependency.fromVersion), to: \(dependency.toVersion))`."
        do {
            let store = try Store.open(
                at: url, schema: newest, options: FixtureStore.defaultOptions.migrating(with: plan))
            try? store.close()
            return nil
        } catch let error as MoltError {
            return MigrationTestError(
                .dataDependentStepFails,
                "\(opening) The kit generated such a store, and the migration to version \(newest.version) failed: \(error.message)\n\(dependency.fix) \(assumption)",
                version: version, entity: error.entity, attribute: error.property, underlying: error)
        } catch {
            return MigrationTestError(
                .dataDependentStepFails,
                "\(opening) The kit generated such a store, and the migration to version \(newest.version) failed: \(error)\n\(dependency.fix) \(assumption)",
                version: version)
        }
    }

    /// The fixtures that hold a witness in `schema`: its objects, each required attribute given a sample value
    /// (distinct between objects, so that only the witness's values are shared).
    static func fixtures(for witness: SchemaDiff.DataDependency.Witness, in schema: Schema) -> [Fixture] {
        linkingRequired(witnessFixtures(for: witness, in: schema), in: schema)
    }

    /// An object of `entity` under `key`: each required attribute (and the primary key) given a sample value
    /// distinct for each `index`, then `values` over them.
    static func sampleObject(
        _ entity: String, _ key: String, _ index: Int, _ values: [String: Value] = [:],
        links: [String: FixtureLinks] = [:], in schema: Schema
    ) -> Fixture {
        var filled: [String: Value] = [:]
        for attribute in schema.effectiveEntity(named: entity)?.attributes ?? []
        where !attribute.isOptional && attribute.defaultValue == nil {
            filled[attribute.name] = SchemaDiff.sample(attribute.type, index)
        }
        if let key = schema.effectiveEntity(named: entity)?.primaryKey,
            let attribute = schema.effectiveEntity(named: entity)?.attribute(named: key)
        {
            filled[key] = SchemaDiff.sample(attribute.type, index)
        }
        return Fixture(entity, key, filled.merging(values) { _, given in given }, links: links)
    }

    private static func witnessFixtures(
        for witness: SchemaDiff.DataDependency.Witness, in schema: Schema
    ) -> [Fixture] {
        func object(
            _ entity: String, _ key: String, _ index: Int, _ values: [String: Value] = [:],
            links: [String: FixtureLinks] = [:]
        ) -> Fixture {
            sampleObject(entity, key, index, values, links: links, in: schema)
        }
        switch witness {
        case .object(let entity, let attribute, let value):
            return [object(entity, "probe", 0, attribute.map { [$0: value] } ?? [:])]
        case .sharedValues(let entity, let attributes):
            let definition = schema.effectiveEntity(named: entity)
            var shared: [String: Value] = [:]
            var links: [String: FixtureLinks] = [:]
            var targets: [Fixture] = []
            for name in attributes {
                if let type = definition?.attribute(named: name)?.type { shared[name] = SchemaDiff.sample(type, 0) }
                // A to-one relationship in a unique index: both probes link to the same object.
                if let relationship = definition?.relationship(named: name), relationship.kind == .toOne {
                    let key = "probe target \(name)"
                    targets.append(object(relationship.destination, key, 3 + targets.count))
                    links[name] = FixtureLinks([key])
                }
            }
            return targets + [
                object(entity, "probe 1", 1, shared, links: links), object(entity, "probe 2", 2, shared, links: links),
            ]
        case .linkedFromTwo(let entity, let linkedFrom, let relationship):
            return [
                object(entity, "probe", 0), object(linkedFrom, "probe 1", 1, links: [relationship: "probe"]),
                object(linkedFrom, "probe 2", 2, links: [relationship: "probe"]),
            ]
        case .oneSidedLink(let entity, let relationship, let destination):
            return [
                object(destination, "probe destination", 1),
                object(entity, "probe", 0, links: [relationship: "probe destination"]),
            ]
        }
    }
}
