/// Every schema version an app has shipped, in order, and the stages that lead from each to the next.
///
/// Every store walks through each intermediate version in order. Between two consecutive versions with no
/// declared stage, Molt infers a lightweight stage. A declared stage that jumps several versions (a shortcut,
/// `v1 → v4`) is taken when it starts at the store's version; the longest jump wins, as in Room.
///
/// ```swift
/// let plan = try MigrationPlan(
///     schemas: [v1, v2, v3, v4],
///     stages: [
///         .custom(from: 2, to: 3) { migration in
///             try migration.enumerateObjects(ofType: "Person") { old, new in
///                 new["fullName"] = .string("\(old["firstName"].string ?? "") \(old["lastName"].string ?? "")")
///             }
///         }
///     ])
/// let store = try Store.open(at: url, schema: v4, options: .init().migrating(with: plan))
/// ```
///
/// The plan is checked when it is built: versions must grow, stages must name listed versions and go forward,
/// and every listed version must reach the newest one, inferring what no stage covers.
public struct MigrationPlan: Sendable {
    /// The schemas, oldest first.
    public let schemas: [Schema]
    /// The declared stages.
    public let stages: [MigrationStage]
    /// Realm's form: one block from whatever version the store is at (its schema read from the store).
    let realmBlock: (@Sendable (Migration, Int) throws -> Void)?

    /// The newest version: the one every store is brought to.
    public var newestVersion: Int { schemas.last!.version }

    /// Creates and checks a plan.
    ///
    /// - Parameters:
    ///   - schemas: Every version shipped, oldest first. Keep them all: a store of any of them can be opened.
    ///   - stages: Custom stages, and lightweight shortcuts. Consecutive versions without a stage are inferred.
    /// - Throws: ``MoltError`` with code ``MoltError/Code/invalidPlan`` naming the duplicate, unknown or
    ///   backward version, or the version that cannot reach the newest.
    public init(schemas: [Schema], stages: [MigrationStage] = []) throws {
        func fail(_ message: String) -> MoltError { MoltError(.invalidPlan, "Invalid migration plan: \(message)") }
        guard !schemas.isEmpty else { throw fail("it lists no schema; list every version the app has shipped.") }
        for schema in schemas { try schema.validate() }
        for (previous, next) in zip(schemas, schemas.dropFirst()) {
            if next.version == previous.version { throw fail("version \(next.version) is listed twice.") }
            if next.version < previous.version {
                throw fail(
                    "version \(next.version) is listed after version \(previous.version); list the schemas oldest first."
                )
            }
        }
        let versions = Set(schemas.map(\.version))
        var pairs: Set<[Int]> = []
        for stage in stages {
            for version in [stage.fromVersion, stage.toVersion] where !versions.contains(version) {
                throw fail(
                    "the stage \(stage.fromVersion) → \(stage.toVersion) names version \(version), which is not among the plan's schemas (\(schemas.map { String($0.version) }.joined(separator: ", "))); add its schema."
                )
            }
            if stage.toVersion <= stage.fromVersion {
                throw fail(
                    "the stage \(stage.fromVersion) → \(stage.toVersion) goes backwards (a cycle); stages only lead to newer versions."
                )
            }
            guard pairs.insert([stage.fromVersion, stage.toVersion]).inserted else {
                throw fail("the stage \(stage.fromVersion) → \(stage.toVersion) is declared twice.")
            }
        }
        self.schemas = schemas
        self.stages = stages
        self.realmBlock = nil
        for (previous, next) in zip(schemas, schemas.dropFirst()) {
            if let error = SchemaDiff(from: previous, to: next).unmatchedDeletionsError { throw error }
        }
        for schema in schemas.dropLast() {
            do {
                _ = try path(from: schema)
            } catch let error as MoltError where error.code == .migrationNotInferable {
                throw MoltError(
                    .invalidPlan,
                    "Invalid migration plan: a store at version \(schema.version) cannot reach version \(newestVersion). \(error.message)",
                    entity: error.entity, property: error.property)
            }
        }
    }

    /// A plan of one inferred step, for opening a store without a plan.
    static func inferred(from stored: Schema, to target: Schema) -> MigrationPlan {
        MigrationPlan(unchecked: [stored, target])
    }

    private init(unchecked schemas: [Schema], realmBlock: (@Sendable (Migration, Int) throws -> Void)? = nil) {
        self.schemas = schemas
        self.stages = []
        self.realmBlock = realmBlock
    }

    /// A plan that is not checked, for tools that report per starting version what ``init(schemas:stages:)``
    /// would refuse as a whole (MoltTesting); ``route(from:)`` walks it as it walks any plan.
    package init(uncheckedSchemas schemas: [Schema], stages: [MigrationStage]) {
        self.schemas = schemas
        self.stages = stages
        self.realmBlock = nil
    }

    /// Realm's form, so that a Realm migration block ports line by line: the app declares only its current
    /// schema and version, and one block receives every older store, with the store's own recorded schema as
    /// the old side and `schema` as the new side.
    ///
    /// ```swift
    /// let plan = MigrationPlan.realm(schema: v6) { migration, oldSchemaVersion in
    ///     if oldSchemaVersion < 3 {
    ///         try migration.renameProperty(onType: "UserMemo", from: "memoTitle", to: "title")
    ///     }
    ///     if oldSchemaVersion < 4 {
    ///         try migration.enumerateObjects(ofType: "UserMemo") { old, new in
    ///             new["memoDescription"] = .string("\(old["memoTitle"].string ?? "")")
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Renames chain as in Realm: `renameProperty(onType: "Note", from: "a", to: "b")` under `oldSchemaVersion < 1`
    /// followed by `renameProperty(onType: "Note", from: "b", to: "c")` under `oldSchemaVersion < 2` takes a
    /// version-0 store's `a` to `c` (see ``Migration/renameProperty(onType:from:to:)``).
    ///
    /// As in Realm, the block sees only the oldest and the newest schema, never the versions between. When
    /// the chain of `if oldSchemaVersion < N` grows, move to ``init(schemas:stages:)``: list every shipped
    /// schema and turn each `if` block into a `.custom(from: N - 1, to: N)` stage, which then sees exactly the
    /// two versions it connects.
    public static func realm(
        schema: Schema,
        migrationBlock: @escaping @Sendable (_ migration: Migration, _ oldSchemaVersion: Int) throws -> Void
    ) -> MigrationPlan {
        MigrationPlan(unchecked: [schema], realmBlock: migrationBlock)
    }

    /// The plan's schema of a version, or nil when it does not list it.
    package func schema(version: Int) -> Schema? { schemas.first { $0.version == version } }

    /// The steps from a store's schema to the newest version.
    ///
    /// - Throws: ``MoltError`` when the store's version is not in the plan, when the plan's schema for it
    ///   differs from the store's (a shipped version was edited), or when a step cannot be inferred.
    func path(from stored: Schema) throws -> [MigrationStep] {
        let steps = try route(from: stored)
        for step in steps where step.stage == nil {
            if let error = step.diff.notInferableError { throw error }
        }
        return steps
    }

    /// The steps a store of `stored`'s schema takes to the newest version, as the plan chooses them (the Realm
    /// block, else the longest declared stage from each version, else an inferred step to the next version),
    /// without refusing an inferred step that needs code: the one routing rule, for the engine and the tools
    /// that report on a plan (MoltTesting).
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/invalidPlan`` when the plan does not list the store's
    ///   version, ``MoltError/Code/schemaChangedWithoutVersionBump`` when its schema differs from the store's.
    package func route(from stored: Schema) throws -> [MigrationStep] {
        if let realmBlock, let target = schemas.last, stored.version < target.version {
            let stage = MigrationStage.custom(from: stored.version, to: target.version) {
                try realmBlock($0, stored.version)
            }
            return [MigrationStep(diff: SchemaDiff(from: stored, to: target), stage: stage)]
        }
        return try listedPath(from: stored)
    }

    /// The deletions declared by every version after `from` up to `to`, for a step that crosses them.
    private func deletions(after from: Int, through to: Int) -> [Deletion] {
        schemas.filter { $0.version > from && $0.version <= to }.flatMap(\.deletions)
    }

    private func listedPath(from stored: Schema) throws -> [MigrationStep] {
        guard let listed = schema(version: stored.version) else {
            throw MoltError(
                .invalidPlan,
                "The store is at version \(stored.version), which the migration plan does not list (it lists \(schemas.map { String($0.version) }.joined(separator: ", "))). Add the schema of version \(stored.version) to the plan; never remove a shipped version."
            )
        }
        if listed.contentHash != stored.contentHash {
            let changes = SchemaDiff(from: stored, to: listed).changes.map { "- \($0)" }.joined(separator: "\n")
            throw MoltError(
                .schemaChangedWithoutVersionBump,
                "The plan's schema for version \(stored.version) differs from the one recorded in the store:\n\(changes)\nA shipped version must not change: restore version \(stored.version) as it shipped, and put the change in a new version."
            )
        }
        var steps: [MigrationStep] = []
        var current = stored
        while current.version < newestVersion {
            let declared = stages.filter { $0.fromVersion == current.version && $0.toVersion <= newestVersion }
            if let stage = declared.max(by: { $0.toVersion < $1.toVersion }) {
                let next = schema(version: stage.toVersion)!
                let deletions = deletions(after: current.version, through: next.version)
                steps.append(
                    MigrationStep(diff: SchemaDiff(from: current, to: next, declaredDeletions: deletions), stage: stage)
                )
                current = next
            } else {
                let next = schemas.first { $0.version > current.version }!
                let diff = SchemaDiff(
                    from: current, to: next, declaredDeletions: deletions(after: current.version, through: next.version)
                )
                steps.append(MigrationStep(diff: diff, stage: nil))
                current = next
            }
        }
        return steps
    }
}

/// One step of a migration run: from one schema to the next, inferred or through a declared stage.
package struct MigrationStep: Sendable {
    /// The changes of the step, computed once for planning, folding and the history line.
    package let diff: SchemaDiff
    /// The declared stage, or nil for an inferred one.
    package let stage: MigrationStage?
    /// The values that change column within a hierarchy's table (nil when neither version has a hierarchy).
    let hierarchyColumns: HierarchyColumns?
    /// The step as its tables see it: the diff of the two versions' ``Schema/storageSchema``, where a hierarchy
    /// is the one table of its root (the step's own diff when neither version has one). The deletions the step
    /// declares are named after the tables that hold them.
    package let storageDiff: SchemaDiff

    /// A step from `diff`'s source to its destination; its storage diff and hierarchy columns are computed here,
    /// once, for the plan, the run and the integrity check.
    init(diff: SchemaDiff, stage: MigrationStage?) {
        (self.diff, self.stage) = (diff, stage)
        guard HierarchyMigration.involves(diff) else {
            (hierarchyColumns, storageDiff) = (nil, diff)
            return
        }
        let columns = HierarchyColumns(diff)
        (hierarchyColumns, storageDiff) = (columns, Self.storageDiff(of: diff, columns: columns))
    }

    package var from: Schema { diff.source }
    package var to: Schema { diff.destination }
    /// Whether the step runs a stage (code or mappings) or is inferred: what its data dependencies depend on.
    package var form: SchemaDiff.StepForm { stage?.isCustom == true ? .stage : .inferred }

    /// The diff of the two versions' storage schemas, for a step with a hierarchy.
    private static func storageDiff(of diff: SchemaDiff, columns: HierarchyColumns) -> SchemaDiff {
        let source = diff.source
        var deletions: [Deletion] = diff.declaredDeletions.map { deletion in
            guard let property = deletion.property, let root = source.rootEntity(of: deletion.entity),
                root.name != deletion.entity
            else { return deletion }
            let column = source.storedName(of: property, in: deletion.entity) ?? property
            return deletion.isReplaced ? .replaced(column, of: root.name) : .property(column, of: root.name)
        }
        // A hierarchy that no longer has sub-entities loses its entity column: every object is of its root.
        for root in source.entities where root.parent == nil && source.isInHierarchy(root.name) {
            if diff.destination.entity(named: root.name) != nil, !diff.destination.isInHierarchy(root.name) {
                deletions.append(.property(StoreLayout.entityColumn, of: root.name))
            }
        }
        return SchemaDiff(
            from: source.storageSchema, to: followingColumns(diff, columns), declaredDeletions: deletions)
    }

    /// The newer version's storage schema, where the columns of a hierarchy are renamed from their old names
    /// when all their values come from one old column (``HierarchyColumns``): a property's own `originalName`
    /// names its old property, not its old column.
    private static func followingColumns(_ diff: SchemaDiff, _ columns: HierarchyColumns) -> Schema {
        var storage = diff.destination.storageSchema
        let renames = columns.renames
        for index in storage.entities.indices where diff.destination.isInHierarchy(storage.entities[index].name) {
            let table = storage.entities[index].name
            let origins = Dictionary(
                (renames[table] ?? [:]).map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
            for member in storage.entities[index].attributes.indices {
                let name = storage.entities[index].attributes[member].name
                storage.entities[index].attributes[member].originalName = origins[name]
            }
            for member in storage.entities[index].relationships.indices {
                let name = storage.entities[index].relationships[member].name
                storage.entities[index].relationships[member].originalName = origins[name]
            }
        }
        return storage
    }
}
