import Foundation

/// The result of one successful run: where it started, the way it went, and what the store holds after.
///
/// ```swift
/// let runs = try tester.migrateFromEveryVersion(fixtures: fixtures)
/// for run in runs { print(run) }   // from version 0 via 0 → 2 → 3: 5 fixtures checked; UserMemo: 5
/// ```
public struct MigrationRun: Sendable, Hashable, CustomStringConvertible {
    /// The starting version.
    public let fromVersion: Int
    /// The versions the store went through, the starting one first.
    public let path: [Int]
    /// The fixtures as stored at the starting version.
    public let fixtures: [FixtureObject]
    /// The number of objects of each entity after the migration.
    public let objectCounts: [String: Int]
    /// The objects the migration kept under a minimum count one of its steps added or raised (as Core Data's
    /// lightweight migration keeps them, `Schema.ShortOwners`), as the steps' history entries list them: `1 → 2:
    /// 2 'Question' objects (_id 2: 0, _id 3: 1) hold fewer than 2 'options'`.
    public let underMinimumCount: [String]

    /// Creates a run's result.
    public init(
        fromVersion: Int, path: [Int], fixtures: [FixtureObject], objectCounts: [String: Int],
        underMinimumCount: [String] = []
    ) {
        self.fromVersion = fromVersion
        self.path = path
        self.fixtures = fixtures
        self.objectCounts = objectCounts
        self.underMinimumCount = underMinimumCount
    }

    /// `from version 0 via 0 → 2 → 3: 5 fixtures checked; UserMemo: 5`, then the objects kept under a minimum
    /// count, if any: `; kept under a minimum count: 1 → 2: 2 'Question' objects (…) hold fewer than 2 'options'`.
    public var description: String {
        let counts = objectCounts.keys.sorted().map { "\($0): \(objectCounts[$0]!)" }.joined(separator: ", ")
        let kept =
            underMinimumCount.isEmpty
            ? "" : "; kept under a minimum count: " + underMinimumCount.joined(separator: "; ")
        return
            "from version \(fromVersion) via \(path.map(String.init).joined(separator: " → ")): \(fixtures.count) fixtures checked; \(counts)\(kept)"
    }
}

/// The migrated store, as a ``MigrationTester`` check closure sees it: its objects, and the fixtures by key.
///
/// ```swift
/// try tester.migrateFromEveryVersion(fixtures: fixtures) { _ in .survives() } check: { migrated in
///     let memo = try migrated.object("groceries")
///     #expect(memo?["memoDescription"] == "Milk memo")
///     #expect(try migrated.objects.count("Folder") == 1)
/// }
/// ```
public struct MigratedStore {
    /// The starting version of this run.
    public let fromVersion: Int
    /// The store's objects, read-only, at the newest version; valid only inside the check closure.
    public let objects: Objects
    /// The fixtures as stored at the starting version.
    public let fixtures: [FixtureObject]
    let schemas: [Schema]

    /// The migrated form of the fixture with this key: the object of its entity at the newest version with its
    /// identifier, or nil when it is gone (or unknown).
    ///
    /// - Throws: `MoltError` when the store cannot be read.
    public func object(_ key: String) throws -> DynamicObject? {
        guard let fixture = fixtures.first(where: { $0.key == key }) else { return nil }
        let carried = Carried(fixture, through: schemas.filter { $0.version >= fixture.version })
        guard let entity = carried.entity else { return nil }
        return try objects.object(entity, id: fixture.id)
    }
}

extension MigrationTester {
    /// Migrates a store of every recorded version to the newest and checks each, reporting every starting
    /// version that fails and why.
    ///
    /// ```swift
    /// try tester.migrateFromEveryVersion { version in
    ///     fixtures(at: version)
    /// } expect: { old in
    ///     old.version < 5 ? .survives(["count": 100.0]) : .survives()
    /// }
    /// // The migration plan fails from 1 of 3 starting versions (passed: 1, 2):
    /// // From version 0 (path 0 → 2 → 3): 1 of 2 fixture objects differ after the migration to version 3:
    /// // 'UserMemo' object "groceries" (_id 1, stored at version 0):
    /// //   title: expected "Milk", found null
    /// // Fix the stages on the path 0 → 2 → 3 (or the `originalName` hints) to carry the data over, or state …
    /// ```
    ///
    /// - Parameters:
    ///   - fixtures: The fixtures of each starting version, in that version's schema.
    ///   - expectedCounts: The number of objects each listed entity should hold after every run (give the same
    ///     number of objects at each version, or call ``migrate(from:fixtures:expectedCounts:expect:check:)`` per
    ///     version). Defaults to no count check.
    ///   - expect: What each fixture should become. Defaults to ``ObjectExpectation/survives(_:links:ignoring:dropping:)``.
    ///   - check: More checks on each migrated store; what it throws fails that run.
    /// - Returns: The runs, oldest starting version first; none when the only recorded version is the newest.
    /// - Throws: ``MigrationTestError``: ``MigrationTestError/Code/versionNotRecorded`` when the snapshots folder
    ///   is empty (a wrong path would otherwise test nothing); the failure of the one version that failed, or
    ///   ``MigrationTestError/Code/severalFailures`` with each; every message starts with the starting version.
    ///   Once every run passes, ``MigrationTestError/Code/dataDependentStepFails`` for a step that refuses data a
    ///   user's store may hold (``checkDataDependentSteps()``).
    @discardableResult
    public func migrateFromEveryVersion(
        fixtures: (Int) throws -> [Fixture],
        expectedCounts: [String: Int]? = nil,
        expect: (FixtureObject) -> ObjectExpectation = { _ in .survives() },
        check: ((MigratedStore) throws -> Void)? = nil
    ) throws -> [MigrationRun] {
        if let snapshots, try snapshots.recordedVersions().isEmpty {
            throw MigrationTestError(
                .versionNotRecorded,
                "No schema version is recorded in \(snapshots.directory.path), so no migration was tested. Check the folder, or record the shipped versions with \(SchemaSnapshots.RecordMode.environmentVariable)=1 and commit them."
            )
        }
        let versions = try startingVersions()
        var runs: [MigrationRun] = []
        var failures: [MigrationTestError] = []
        var passed: [Int] = []
        for version in versions {
            do {
                let run = try migrateFixtures(
                    from: version, fixtures: try fixtures(version), expectedCounts: expectedCounts, expect: expect,
                    check: check)
                runs.append(run)
                passed.append(version)
            } catch let error as MigrationTestError {
                failures.append(error)
            }
        }
        guard !failures.isEmpty else {
            // The fixtures pass: now the data they lack, that users' stores may hold.
            try checkDataDependentSteps(from: versions, checkingAssumptions: true)
            return runs
        }
        let heading =
            "The migration plan fails from \(failures.count) of \(versions.count) starting versions (passed: \(passed.isEmpty ? "none" : passed.map(String.init).joined(separator: ", "))):"
        if failures.count == 1 {
            var error = failures[0]
            error.message = heading + "\n" + error.message
            if error.failures.isEmpty { error.failures = failures }
            throw error
        }
        throw MigrationTestError.combining(failures, heading: heading)!
    }

    /// Migrates a store of one version, filled with fixtures, to the newest, and checks it.
    ///
    /// ```swift
    /// let run = try tester.migrate(from: 1, fixtures: [Fixture("Note", "milk", ["text": "Milk"])]) { _ in
    ///     .survives(["pinned": false])
    /// }
    /// #expect(run.path == [1, 2, 3])
    /// ```
    ///
    /// - Parameters:
    ///   - version: The starting version; its snapshot (or the code's schema) creates the store.
    ///   - fixtures: Objects of that version's schema.
    ///   - expectedCounts: The number of objects each listed entity should hold afterwards.
    ///   - expect: What each fixture should become. Defaults to ``ObjectExpectation/survives(_:links:ignoring:dropping:)``.
    ///   - check: More checks on the migrated store.
    /// Then it migrates the data a user's store may hold that makes a step on the way fail
    /// (``checkDataDependentSteps()``), for the steps of this path.
    ///
    /// - Returns: The run.
    /// - Throws: ``MigrationTestError/Code/dataDependentStepFails`` when a step on the path refuses such data;
    ///   ``MigrationTestError`` whose message starts with "From version N": ``MigrationTestError/Code/missingStage``,
    ///   ``MigrationTestError/Code/frozenVersionEdited``, ``MigrationTestError/Code/migrationFailed``,
    ///   ``MigrationTestError/Code/invalidData``, ``MigrationTestError/Code/objectsLost``,
    ///   ``MigrationTestError/Code/valueMismatch``,
    ///   ``MigrationTestError/Code/countMismatch``, ``MigrationTestError/Code/checkFailed``,
    ///   ``MigrationTestError/Code/invalidFixture``.
    @discardableResult
    public func migrate(
        from version: Int, fixtures: [Fixture], expectedCounts: [String: Int]? = nil,
        expect: (FixtureObject) -> ObjectExpectation = { _ in .survives() },
        check: ((MigratedStore) throws -> Void)? = nil
    ) throws -> MigrationRun {
        let run = try migrateFixtures(
            from: version, fixtures: fixtures, expectedCounts: expectedCounts, expect: expect, check: check)
        try checkDataDependentSteps(from: [version], checkingAssumptions: false)
        return run
    }

    /// One run of the fixtures, without the generated data of ``checkDataDependentSteps()``.
    func migrateFixtures(
        from version: Int, fixtures: [Fixture], expectedCounts: [String: Int]?,
        expect: (FixtureObject) -> ObjectExpectation, check: ((MigratedStore) throws -> Void)?
    ) throws -> MigrationRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-testing-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("from-\(version).sqlite")

        let start = try makeStore(version: version, fixtures: fixtures, at: url)
        try? start.close()
        let path = try self.path(from: version)
        let plan = try self.plan(from: version, path: path)
        let route = path.map(String.init).joined(separator: " → ")
        let prefix = "From version \(version) (path \(route))"

        let store = try openMigrating(url, with: plan, prefix: prefix, version: version)
        defer { try? store.close() }

        let chain = try self.chain(from: version)
        let names = Self.fixtureNames(start.objects, through: chain)
        let kept = Self.keptShortOwners(store)
        let (invalid, diffs, counts) = try readingStore(store, prefix: prefix, version: version) { objects in
            let invalid = try DataValidation.problems(in: objects, schema: newest, names: names)
            let diffs = try compare(start.objects, in: objects, through: chain, expect: expect)
            var counts: [String: Int] = [:]
            for entity in newest.entities { counts[entity.name] = try objects.count(entity.name) }
            return (invalid, diffs, counts)
        }
        let report = RunReport(
            prefix: prefix, version: version, newest: newest.version, fixtureCount: start.objects.count)
        let (losses, others) = (diffs.filter(\.isUndeclaredLoss), diffs.filter { !$0.isUndeclaredLoss })
        var problems = [report.invalidData(invalid), report.undeclaredLosses(losses)].compactMap { $0 }
        if !others.isEmpty {
            let step = firstDivergingStep(from: version, fixtures: fixtures, path: path, diffs: others)
            problems.append(report.differences(others, divergingStep: step, route: route))
        }
        if let expectedCounts, let error = report.counts(counts, expected: expectedCounts) { problems.append(error) }
        if let check {
            do {
                try store.read { objects in
                    try check(
                        MigratedStore(fromVersion: version, objects: objects, fixtures: start.objects, schemas: chain))
                }
            } catch {
                problems.append(report.checkFailure(error))
            }
        }
        if let error = MigrationTestError.combining(problems, heading: "\(prefix): several checks failed:") {
            throw error
        }
        return MigrationRun(
            fromVersion: version, path: path, fixtures: start.objects, objectCounts: counts,
            underMinimumCount: kept)
    }

    /// Each fixture's key, by the object it became at the newest version (for messages that name fixtures).
    private static func fixtureNames(_ fixtures: [FixtureObject], through chain: [Schema]) -> [ObjectRef: String] {
        var names: [ObjectRef: String] = [:]
        for fixture in fixtures {
            if let entity = Carried(fixture, through: chain).entity {
                names[ObjectRef(entity: entity, id: fixture.id)] = fixture.key
            }
        }
        return names
    }

    /// The owners under a minimum count that the run's steps kept, as the store's history lists them.
    private static func keptShortOwners(_ store: Store) -> [String] {
        (try? store.history().last?.stepRecords.flatMap { step in
            step.underMinimumCount.map { "\(step.fromVersion) → \(step.toVersion): \($0)" }
        }) ?? []
    }

    /// Opens the store at the newest version, migrating it; a failure becomes the test's error, "From version N…".
    private func openMigrating(_ url: URL, with plan: MigrationPlan, prefix: String, version: Int) throws -> Store {
        do {
            return try Store.open(at: url, schema: newest, options: FixtureStore.defaultOptions.migrating(with: plan))
        } catch let error as MoltError {
            let code: MigrationTestError.Code =
                error.code == .schemaChangedWithoutVersionBump ? .frozenVersionEdited : .migrationFailed
            throw MigrationTestError(
                code, "\(prefix): the migration to version \(newest.version) failed: \(error.message)",
                version: version, entity: error.entity, attribute: error.property, underlying: error)
        } catch {
            throw MigrationTestError(
                .migrationFailed, "\(prefix): the migration to version \(newest.version) failed: \(error)",
                version: version)
        }
    }

    private func readingStore<T>(
        _ store: Store, prefix: String, version: Int, _ body: (Objects) throws -> T
    ) throws -> T {
        do {
            return try store.read(body)
        } catch let error as MoltError {
            throw MigrationTestError(
                .migrationFailed, "\(prefix): the migrated store cannot be read: \(error.message)", version: version,
                entity: error.entity, attribute: error.property, underlying: error)
        }
    }
}
