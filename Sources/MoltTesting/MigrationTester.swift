import Foundation

/// Runs a migration plan from every recorded version to the newest, on stores filled with fixtures, and
/// checks the data that comes out: Room's `MigrationTestHelper.runMigrationsAndValidate`, for every path at
/// once.
///
/// For each starting version it creates a store from the recorded snapshot (what users really have), fills it
/// with that version's fixtures, opens it with the newest schema along the plan (Molt validates the
/// structure before committing), then checks that every fixture object is there with the values the
/// expectation gives, and the object counts. A failure names the starting version, the path it took, and each
/// object and attribute that differ.
///
/// Fixtures hold what the test thought of; a user's store holds what years of use left. So the tester also
/// generates, for every step whose success depends on the data (a null where an attribute becomes required,
/// two equal values where one becomes unique, an integer beyond 2^53 widened to double…), a store holding that
/// data, and migrates it too (``checkDataDependentSteps()``): a plan cannot pass the kit and then be refused on
/// a device for such data. State data that cannot exist with ``assumingNeverStored(_:from:to:)``.
///
/// ```swift
/// @Test func everyShippedVersionMigrates() throws {
///     let tester = MigrationTester(plan: AppSchema.plan, snapshots: SchemaSnapshots(nextTo: #filePath))
///     try tester.migrateFromEveryVersion { version in
///         version < 3
///             ? [Fixture("UserMemo", "groceries", ["objectID": .uuid(id), "memoTitle": "Milk", "memoDate": .date(day)])]
///             : [Fixture("UserMemo", "groceries", ["objectID": .uuid(id), "title": "Milk", "memoDate": .date(day)])]
///     } expect: { old in
///         .survives(["count": 100.0])
///     }
/// }
/// ```
///
/// A plan that cannot be built is tested too: give the schemas and stages separately
/// (``init(schemas:stages:snapshots:)``) and the tester reports, per starting version, the step that has no
/// stage, where `MigrationPlan.init` would refuse the whole plan.
///
/// ## Topics
/// ### Creating
/// - ``init(plan:snapshots:)-(MigrationPlan,_)``
/// - ``init(schemas:stages:snapshots:)``
/// ### Migrating
/// - ``migrateFromEveryVersion(fixtures:expectedCounts:expect:check:)``
/// - ``migrate(from:fixtures:expectedCounts:expect:check:)``
/// - ``MigrationRun``
/// - ``MigratedStore``
/// ### Data a user's store may hold
/// - ``checkDataDependentSteps()``
/// - ``dataDependentSteps()``
/// - ``assumingNeverStored(_:from:to:)``
/// ### Building blocks
/// - ``startingVersions()``
/// - ``startSchema(version:)``
/// - ``path(from:)``
/// - ``makeStore(version:fixtures:at:)``
public struct MigrationTester: Sendable {
    /// The plan, as given or (for ``init(schemas:stages:snapshots:)``) unchecked: its routing is the engine's.
    let plan: MigrationPlan
    /// Whether `plan` was built and checked by `MigrationPlan/init(schemas:stages:)` (or is Realm's form),
    /// so that every run can use it whole.
    let isChecked: Bool
    /// The code's schemas, oldest first (for a `MigrationPlan/realm(schema:migrationBlock:)` plan, the
    /// newest only: older versions come from the snapshots).
    public var schemas: [Schema] { plan.schemas }
    /// The plan's declared stages.
    public var stages: [MigrationStage] { plan.stages }
    /// The recorded snapshots, if any: the starting versions and their schemas come from there.
    public let snapshots: SchemaSnapshots?
    /// The data the app states it never stores (``assumingNeverStored(_:from:to:)``).
    var neverStored: [NeverStored] = []

    /// The newest schema: the one every run migrates to.
    public var newest: Schema { schemas.last! }

    /// A tester for a plan that was built, in any of its forms, Realm's included.
    ///
    /// ```swift
    /// let tester = MigrationTester(plan: try MigrationPlan(schemas: [v1, v2, v3]), snapshots: snapshots)
    /// let realm = MigrationTester(plan: .realm(schema: v3) { migration, oldVersion in … }, snapshots: snapshots)
    /// ```
    ///
    /// - Parameters:
    ///   - plan: The app's migration plan.
    ///   - snapshots: The recorded snapshots; without them, the plan's own schemas are the starting versions.
    public init(plan: MigrationPlan, snapshots: SchemaSnapshots? = nil) {
        self.plan = plan
        self.isChecked = true
        self.snapshots = snapshots
    }

    /// A tester for schemas and stages that are not checked as a plan yet, so that a step without a stage is
    /// reported for each starting version it breaks.
    ///
    /// ```swift
    /// let tester = MigrationTester(schemas: [v1, v2, v3], stages: [.lightweight(from: 1, to: 3)])
    /// ```
    ///
    /// - Parameters:
    ///   - schemas: Every version, oldest first; at least one.
    ///   - stages: The declared stages.
    ///   - snapshots: The recorded snapshots; without them, `schemas` are the starting versions.
    public init(schemas: [Schema], stages: [MigrationStage] = [], snapshots: SchemaSnapshots? = nil) {
        precondition(
            !schemas.isEmpty, "MigrationTester needs at least one schema: list every version the app has shipped.")
        self.plan = MigrationPlan(uncheckedSchemas: schemas, stages: stages)
        self.isChecked = false
        self.snapshots = snapshots
    }

    /// The versions runs start from: the recorded versions older than the newest (the code's versions when
    /// there are no snapshots), oldest first.
    ///
    /// - Throws: ``MigrationTestError`` when the snapshots folder cannot be read.
    public func startingVersions() throws -> [Int] {
        let versions = try snapshots?.recordedVersions() ?? schemas.map(\.version)
        return versions.filter { $0 < newest.version }
    }

    /// The schema a store of `version` is created with: its recorded snapshot when there is one (what
    /// shipped), else the code's.
    ///
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/versionNotRecorded`` when neither
    ///   has the version.
    public func startSchema(version: Int) throws -> Schema {
        if let snapshots, try snapshots.recordedVersions().contains(version) {
            return try snapshots.schema(version: version)
        }
        guard let schema = plan.schema(version: version) else {
            throw MigrationTestError(
                .versionNotRecorded,
                "Version \(version) is neither recorded nor declared (the code declares \(declaredVersions)).",
                version: version)
        }
        return schema
    }

    /// The schemas a fixture of `version` goes through: its start schema, then the code's newer versions, but for
    /// those a lightweight shortcut of its route crosses (`.lightweight(from: 1, to: 3)`). The engine infers such a
    /// step in one go, from its two ends, and the hints of the versions it skips (an `originalName`) play no part:
    /// the prediction skips them too. A custom stage over several versions must carry what every version says.
    func chain(from version: Int) throws -> [Schema] {
        let route = (try? route(from: version)) ?? []
        let skipped = Set(
            route.filter { $0.form == .inferred }.flatMap { step in
                schemas.map(\.version).filter { $0 > step.from.version && $0 < step.to.version }
            })
        return [try startSchema(version: version)]
            + schemas.filter { $0.version > version && !skipped.contains($0.version) }
    }

    /// Creates a store at a version, from its recorded snapshot (or the code's schema), filled with fixtures.
    ///
    /// ```swift
    /// let start = try tester.makeStore(version: 1, fixtures: [Fixture("Note", "milk", ["text": "Milk"])], at: url)
    /// defer { try? start.close() }
    /// ```
    ///
    /// - Throws: ``MigrationTestError`` when the version is unknown or a fixture does not fit.
    public func makeStore(version: Int, fixtures: [Fixture], at url: URL) throws -> FixtureStore {
        try FixtureStore.create(at: url, schema: try startSchema(version: version), fixtures: fixtures)
    }

    /// The versions a store of `version` goes through to the newest, as the plan routes it (the engine's own
    /// routing: a Realm-form block, else the longest declared stage from each version, else an inferred step
    /// to the next version).
    ///
    /// ```swift
    /// try tester.path(from: 0)   // [0, 2, 3] with a shortcut stage 0 → 2
    /// ```
    ///
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/missingStage`` naming the step,
    ///   the entity and the attribute when a step has no stage and cannot be inferred, or
    ///   ``MigrationTestError/Code/versionRemoved`` when the plan does not declare `version`.
    public func path(from version: Int) throws -> [Int] {
        let steps = try route(from: version)
        return [version] + steps.map(\.to.version)
    }

    /// The engine's steps from `version`, each inferred one checked for a missing stage.
    func route(from version: Int) throws -> [MigrationStep] {
        let removed = MigrationTestError(
            .versionRemoved,
            "From version \(version): the plan does not declare version \(version) (it declares \(declaredVersions)), so stores of that version cannot be opened. Keep every shipped version in the plan.",
            version: version)
        // The code's schema routes the store, as it does in the app; a Realm-form plan routes the recorded one.
        guard let stored = plan.schema(version: version) ?? (try? startSchema(version: version)) else { throw removed }
        let steps: [MigrationStep]
        do {
            steps = try plan.route(from: stored)
        } catch let error as MoltError where error.code == .invalidPlan {
            throw removed
        } catch let error as MoltError {
            throw MigrationTestError(
                .migrationFailed, "From version \(version): \(error.message)", version: version, entity: error.entity,
                attribute: error.property, underlying: error)
        }
        for step in steps where step.stage == nil && !step.diff.isInferable {
            let refused = step.diff.refusedChanges
            let lines = step.diff.refusals.map { "- " + $0 }.joined(separator: "\n")
            let (from, to) = (step.from.version, step.to.version)
            throw MigrationTestError(
                .missingStage,
                "From version \(version): no stage leads from version \(from) to \(to), and Molt cannot infer that step:\n\(lines)\nAdd a stage `.custom(from: \(from), to: \(to)) { migration in … }` to the plan.",
                version: version, entity: refused.first?.entity, attribute: refused.first?.property)
        }
        return steps
    }

    private var declaredVersions: String { schemas.map { String($0.version) }.joined(separator: ", ") }

    /// The plan a store of `version` is opened with: the plan itself when it was checked, else the part of it
    /// that the store takes, checked as a plan of its own (so that a step missing elsewhere does not fail it).
    func plan(from version: Int, path: [Int]) throws -> MigrationPlan {
        if isChecked { return plan }
        let visited = Set(path)
        do {
            return try MigrationPlan(
                schemas: schemas.filter { visited.contains($0.version) },
                stages: stages.filter { visited.contains($0.fromVersion) && visited.contains($0.toVersion) })
        } catch let error as MoltError {
            throw MigrationTestError(
                .migrationFailed, "From version \(version): the plan is invalid: \(error.message)",
                version: version, entity: error.entity, attribute: error.property, underlying: error)
        }
    }
}
