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
/// - ``init(plan:snapshots:)``
/// - ``init(schemas:stages:snapshots:)``
/// ### Migrating
/// - ``migrateFromEveryVersion(fixtures:expectedCounts:expect:check:)``
/// - ``migrate(from:fixtures:expectedCounts:expect:check:)``
/// - ``MigrationRun``
/// - ``MigratedStore``
/// ### Building blocks
/// - ``startingVersions()``
/// - ``startSchema(version:)``
/// - ``path(from:)``
/// - ``makeStore(version:fixtures:at:)``
public struct MigrationTester: Sendable {
    /// The code's schemas, oldest first.
    public let schemas: [Schema]
    /// The plan's declared stages.
    public let stages: [MigrationStage]
    /// The recorded snapshots, if any: the starting versions and their schemas come from there.
    public let snapshots: SchemaSnapshots?

    /// The newest schema: the one every run migrates to.
    public var newest: Schema { schemas.last! }

    /// A tester for a plan that was built.
    ///
    /// ```swift
    /// let tester = MigrationTester(plan: try MigrationPlan(schemas: [v1, v2, v3]), snapshots: snapshots)
    /// ```
    ///
    /// - Parameters:
    ///   - plan: The app's migration plan.
    ///   - snapshots: The recorded snapshots; without them, the plan's own schemas are the starting versions.
    public init(plan: MigrationPlan, snapshots: SchemaSnapshots? = nil) {
        self.init(schemas: plan.schemas, stages: plan.stages, snapshots: snapshots)
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
        precondition(!schemas.isEmpty, "MigrationTester needs at least one schema: list every version the app has shipped.")
        self.schemas = schemas
        self.stages = stages
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
        guard let schema = schemas.first(where: { $0.version == version }) else {
            throw MigrationTestError(
                .versionNotRecorded,
                "Version \(version) is neither recorded nor declared (the code declares \(schemas.map { String($0.version) }.joined(separator: ", "))).",
                version: version)
        }
        return schema
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

    /// The versions a store of `version` goes through to the newest, as the plan chooses them: the longest
    /// declared stage from each version, else an inferred step to the next version.
    ///
    /// ```swift
    /// try tester.path(from: 0)   // [0, 2, 3] with a shortcut stage 0 → 2
    /// ```
    ///
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/missingStage`` naming the step,
    ///   the entity and the attribute when a step has no stage and cannot be inferred, or
    ///   ``MigrationTestError/Code/versionRemoved`` when the code does not declare `version`.
    public func path(from version: Int) throws -> [Int] {
        guard var current = schemas.first(where: { $0.version == version }) else {
            throw MigrationTestError(
                .versionRemoved,
                "From version \(version): the plan does not declare version \(version) (it declares \(schemas.map { String($0.version) }.joined(separator: ", "))), so stores of that version cannot be opened. Keep every shipped version in the plan.",
                version: version)
        }
        var path = [current.version]
        while current.version < newest.version {
            let declared = stages.filter { $0.fromVersion == current.version && $0.toVersion <= newest.version }
            if let stage = declared.max(by: { $0.toVersion < $1.toVersion }),
                let next = schemas.first(where: { $0.version == stage.toVersion })
            {
                current = next
            } else {
                let next = schemas.first { $0.version > current.version }!
                let diff = SchemaDiff(from: current, to: next)
                if !diff.isInferable {
                    let refused = diff.refusedChanges
                    let lines = refused.compactMap(\.refusal).map { "- " + $0 }.joined(separator: "\n")
                    throw MigrationTestError(
                        .missingStage,
                        "From version \(version): no stage leads from version \(current.version) to \(next.version), and Molt cannot infer that step:\n\(lines)\nAdd a stage `.custom(from: \(current.version), to: \(next.version)) { migration in … }` to the plan.",
                        version: version, entity: refused.first?.entity, attribute: refused.first?.property)
                }
                current = next
            }
            path.append(current.version)
        }
        return path
    }

    /// The part of the plan a store of `version` takes, checked as a plan of its own.
    func plan(from version: Int, path: [Int]) throws -> MigrationPlan {
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
