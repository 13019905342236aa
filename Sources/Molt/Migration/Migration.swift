/// What a custom stage works with: the old version's objects and the new version's, together, in the one
/// transaction of the migration run.
///
/// During a stage from version A to version B, every object of an entity that exists in both versions is one
/// object with two faces: ``enumerateObjects(ofType:_:)`` hands you both. ``old`` reads version A (including
/// entities and attributes B removed), exactly as the stage found it for the whole stage: what ``new``
/// creates, deletes or rewrites never shows on the old side, in counts, fetches, relationships or a second
/// enumeration (Realm's immutable `oldObject`). ``new`` reads and writes version B. What you create or change
/// stays there until the run commits: there is no context reset between phases.
///
/// ```swift
/// .custom(from: 3, to: 4) { migration in
///     try migration.enumerateObjects(ofType: "UserMemo") { old, new in
///         let title = old["title"].string ?? ""
///         let subtitle = old["memoSubtitle"].string ?? ""
///         new["memoDescription"] = .string("\(title) - \(subtitle)")
///     }
/// }
/// ```
///
/// An error thrown from the stage rolls back the whole run: the store stays at its old version, intact.
///
/// ## Topics
/// ### Objects of both versions
/// - ``enumerateObjects(ofType:_:)``
/// - ``enumerateOldObjects(ofType:_:)``
/// - ``old``
/// - ``new``
/// ### Realm-style calls
/// - ``renameProperty(onType:from:to:)``
/// - ``create(_:value:)``
/// - ``delete(_:)``
/// - ``deleteData(forType:)``
public final class Migration {
    /// The schema the stage starts from.
    public let oldSchema: Schema
    /// The schema the stage leads to.
    public let newSchema: Schema
    /// The old version's objects, read-only: fetch, filter, count, follow relationships.
    public let old: Objects
    /// The new version's objects, writable: insert, update, delete, link, fetch.
    public let new: Objects
    let db: any SQLConnection
    let workspace: StageWorkspace
    let run: RunContext
    /// Old entity → (name given by `renameProperty` → the old version's attribute it names).
    var renamedProperties: [String: [String: String]] = [:]
    /// Old entity → (intermediate name → the name it was renamed from): names that `renameProperty` gave which
    /// the new version does not have, waiting for a later `renameProperty` to carry them on (see
    /// ``renameProperty(onType:from:to:)``).
    var intermediateNames: [String: [String: String]] = [:]

    init(workspace: StageWorkspace, db: any SQLConnection, run: RunContext) {
        self.workspace = workspace
        self.oldSchema = workspace.from
        self.newSchema = workspace.to
        self.db = db
        self.run = run
        self.old = Objects(db: db, schema: workspace.from, isWritable: false, layoutSource: workspace)
        self.new = Objects(
            db: db, schema: workspace.to, layout: workspace.newLayout, isWritable: true, observer: workspace,
            access: workspace.changes)
    }

    /// The version the stage starts from.
    public var fromVersion: Int { oldSchema.version }
    /// The version the stage leads to.
    public var toVersion: Int { newSchema.version }

    /// The names of an entity in both versions, accepting either its old or its new name.
    func entityPair(_ name: String) throws -> (old: Entity?, new: Entity?) {
        if let old = oldSchema.entity(named: name) {
            let newName = workspace.origins.first { $0.value == name }?.key
            return (old, newName.flatMap { newSchema.entity(named: $0) })
        }
        if let new = newSchema.entity(named: name) {
            return (workspace.origins[name].flatMap { oldSchema.entity(named: $0) }, new)
        }
        throw MoltError(
            .invalidValue,
            "Entity '\(name)' exists in neither version \(fromVersion) (\(oldSchema.entities.map(\.name).joined(separator: ", "))) nor version \(toVersion) (\(newSchema.entities.map(\.name).joined(separator: ", "))).",
            entity: name)
    }

    // MARK: - Realm-style calls

    /// Creates an object of the new version, as Realm's `migration.create(_:value:)` does.
    ///
    /// - Returns: The new object, with its identifier.
    @discardableResult
    public func create(_ type: String, value: [String: Value] = [:]) throws -> DynamicObject {
        try new.insert(type, value)
    }

    /// Deletes an object of the new version (which, for an entity both versions have, is also the old object).
    public func delete(_ object: DynamicObject) throws {
        try new.delete(object)
    }

    /// Deletes every object of an entity, of either version, as Realm's `deleteData(forType:)` does; the data
    /// of an entity the new version removed is deleted anyway when the stage ends.
    public func deleteData(forType type: String) throws {
        let (oldEntity, newEntity) = try entityPair(type)
        let oldLayout = StoreLayout.standard(oldSchema, dialect: db.dialect)
        let table =
            newEntity.map { workspace.newLayout.physicalTable($0.name) } ?? oldLayout.physicalTable(oldEntity!.name)
        // In a hierarchy's table, the rows of the entity and its sub-entities alone.
        let condition =
            newEntity.map { workspace.newLayout.entityCondition($0.name) } ?? oldLayout.entityCondition(oldEntity!.name)
        try workspace.willWrite(table: table, columns: nil)
        if let newEntity {
            // The links to the objects deleted go with them (swept when the stage ends): the owners that hold one
            // may hold fewer, and only they are held to a minimum count, as Core Data checks the objects a save
            // changes (an owner already short, holding no link into the entity, is not the stage's doing).
            let layout = workspace.newLayout
            for owner in newSchema.entities {
                for relationship in owner.relationships where relationship.kind == .toMany {
                    guard
                        newSchema.entity(newEntity.name, inherits: relationship.destination)
                            || newSchema.entity(relationship.destination, inherits: newEntity.name)
                    else { continue }
                    let join = layout.physicalJoinTable(owner.name, relationship.name)
                    guard relationship.toManyMinimum != nil else {
                        workspace.changes.didWriteUnnamed(join)
                        continue
                    }
                    let owners = try db.fetchInts(
                        "SELECT DISTINCT \(db.dialect.quote(StoreLayout.ownerColumn)) FROM \(layout.joinTable(owner.name, relationship.name))"
                    )
                    workspace.changes.willWrite(join)
                    workspace.changes.mayEmptyLinks(in: join, of: owners)
                }
            }
        }
        let count = try db.execute(
            .update, "DELETE FROM \(db.dialect.quote(table))\(condition.map { " WHERE \($0)" } ?? "")")
        if let newEntity {
            workspace.didDelete(newEntity.name, count: count)
        } else if let root = oldSchema.rootEntity(of: oldEntity!.name)?.name,
            let newRoot = workspace.origins.first(where: { $0.value == root })?.key
        {
            // An entity B removed from a hierarchy B keeps: what links into the table is swept at the end.
            workspace.didDelete(newRoot, count: count)
        } else {
            workspace.counts.deleted += count
        }
    }
}

/// The state of a migration run that stages report to: progress and cancellation.
///
/// Progress is measured in units of work: ``begin(_:entity:total:)`` starts one, which takes half of what
/// remains of the current step's share, and ``report(completed:)`` moves within it. Reported fractions never
/// decrease.
final class RunContext {
    let progress: (@Sendable (MigrationProgress) -> Void)?
    let cancellation: MigrationCancellation?
    let stepCount: Int
    private(set) var stepIndex = 0
    private(set) var step: (from: Int, to: Int) = (0, 0)
    /// How much of the current step is done, from 0 to 1.
    private var stepFraction = 0.0
    private var unit: (base: Double, span: Double, phase: String?, entity: String?, total: Int) = (0, 0, nil, nil, 0)
    private var reported = 0.0

    init(progress: (@Sendable (MigrationProgress) -> Void)?, cancellation: MigrationCancellation?, stepCount: Int) {
        self.progress = progress
        self.cancellation = cancellation
        self.stepCount = stepCount
    }

    /// Moves to step `index` (from `from` to `to`); a step never goes back.
    func enter(step index: Int, from: Int, to: Int) {
        if index != stepIndex { stepFraction = 0 }
        stepIndex = index
        step = (from, to)
        begin(nil, entity: nil, total: 0)
    }

    /// Starts a unit of work of `total` items (0 when unknown) within the current step.
    func begin(_ phase: String?, entity: String?, total: Int) {
        unit = (stepFraction, (1 - stepFraction) / 2, phase, entity, total)
        report(completed: 0)
    }

    /// Reports `completed` items of the current unit.
    func report(completed: Int) {
        if unit.total > 0 { stepFraction = unit.base + unit.span * min(1, Double(completed) / Double(unit.total)) }
        emit(completed: completed, total: unit.total)
    }

    /// Reports the whole run done.
    func finish() {
        stepIndex = stepCount
        stepFraction = 0
        unit = (0, 0, nil, nil, 0)
        emit(completed: 0, total: 0)
    }

    private func emit(completed: Int, total: Int) {
        guard let progress else { return }
        let overall = stepCount > 0 ? min(1, (Double(stepIndex) + stepFraction) / Double(stepCount)) : 1
        reported = max(reported, overall)
        progress(
            MigrationProgress(
                fromVersion: step.from, toVersion: step.to, entity: unit.entity, phase: unit.phase,
                completed: completed,
                total: total, stepsCompleted: min(stepIndex, stepCount), stepCount: stepCount,
                fractionCompleted: reported))
    }

    func checkCancellation() throws {
        if cancellation?.isCancelled == true || Task.isCancelled {
            throw MoltError(
                .cancelled,
                "The migration was cancelled during the step from version \(step.from) to \(step.to); it was rolled back and the store is still at its old version."
            )
        }
    }
}
