/// What an inferred step does to the objects of hierarchies, beyond altering their tables (which the step's
/// ``MigrationStep/storageDiff`` does, a hierarchy being one table): each object keeps exactly the values its
/// entity has in the new version.
///
/// Before anything is written it refuses, naming the entity, the property and the count: an entity removed from
/// a hierarchy while it holds objects; an entity made abstract while it holds objects of its own; a value an
/// object would lose because its entity no longer has the property (moved down to a sub-entity, or to another
/// branch) unless the version declares it deleted; an object without a value for a required property its entity
/// gains, unless the property has a default. After the tables are altered, it clears the values declared
/// deleted and fills the defaults.
struct HierarchyMigration {
    let diff: SchemaDiff
    /// Sub-entities removed with their objects on purpose (a declared ``Deletion/entity(_:)``), with the count of
    /// their own objects: deleted before anything else, by the older version's delete rules
    /// (``deleteDeclared(in:)``).
    private(set) var deletions: [(entity: String, count: Int)] = []
    /// Values deleted on purpose, cleared once the tables have changed: table, column, entity.
    private(set) var clears: [(table: String, column: String, entity: String)] = []
    /// Required properties an entity gains, with a default: entity, attribute, default.
    private(set) var fills: [(entity: String, attribute: String, value: Value)] = []
    /// The values that change column within their table (siblings that declare one name).
    let columns: HierarchyColumns
    /// The entities renamed, whose objects' entity column is rewritten before anything else.
    let renames: HierarchyRenames

    /// Whether a step has a hierarchy on either side.
    static func involves(_ diff: SchemaDiff) -> Bool {
        diff.source.entities.contains { $0.parent != nil } || diff.destination.entities.contains { $0.parent != nil }
    }

    /// Checks the step against the stored objects (the store is at the step's first version), with the columns
    /// the step computed when it was made (``MigrationStep/hierarchyColumns``).
    ///
    /// - Throws: ``MoltError/Code/dataLossRefused`` listing every object count that would lose a value.
    init(_ step: MigrationStep, in db: any SQLConnection) throws {
        let diff = step.diff
        self.diff = diff
        columns = step.hierarchyColumns ?? HierarchyColumns(diff)
        renames = HierarchyRenames(diff)
        var refusals = columns.refusals
        let (source, destination) = (diff.source, diff.destination)
        for old in source.entities where !old.isAbstract {
            guard source.isInHierarchy(old.name) || destination.isInHierarchy(old.name) else { continue }
            let rows = Rows(entity: old.name, source: source, dialect: db.dialect)
            guard let newName = diff.newName(ofEntity: old.name), let new = destination.effectiveEntity(named: newName)
            else {
                // A root removed drops its table, which the step's data loss check counts.
                if old.parent != nil, let count = try rows.count(db), count > 0 {
                    if let refusal = try removal(of: old.name, holding: count, rows: rows, in: db) {
                        refusals.append(refusal)
                    }
                }
                continue
            }
            if new.isAbstract, let count = try rows.count(db), count > 0 {
                refusals.append(
                    "Version \(destination.version) makes entity '\(old.name)' abstract, but it holds \(count) object\(count == 1 ? "" : "s") of its own, which no entity would describe. Keep it concrete, or make them objects of a sub-entity in your own code before the upgrade."
                )
            }
            refusals += try checkColumns(of: old.name, new: new, rows: rows, in: db)
        }
        guard refusals.isEmpty else {
            throw MoltError(
                .dataLossRefused,
                "Molt will not migrate from version \(source.version) to \(destination.version): objects of a hierarchy would lose values.\n\(refusals.map { "- " + $0 }.joined(separator: "\n"))\nNothing was written."
            )
        }
    }

    /// A sub-entity the destination no longer has, holding `count` objects of its own: its objects go when the
    /// version declares the entity's deletion and none of its own sub-entities stays (their objects would go
    /// with it); otherwise the refusal, naming the fix.
    private mutating func removal(
        of name: String, holding count: Int, rows: Rows, in db: any SQLConnection
    ) throws -> String? {
        let version = diff.destination.version
        let objects = "\(count) object\(count == 1 ? "" : "s")"
        guard diff.declaredDeletions.contains(where: { $0.entity == name && $0.property == nil }) else {
            return
                "Version \(version) removes entity '\(name)' of the hierarchy of '\(rows.table)', which holds \(objects). Declare their deletion (`Schema(version: \(version), deleting: [.entity(\"\(name)\")])`), delete them before the upgrade, or keep the entity."
        }
        let staying = try diff.source.subEntities(of: name, recursive: true).map(\.name).filter { sub in
            guard diff.newName(ofEntity: sub) != nil else { return false }
            return try Rows(entity: sub, source: diff.source, dialect: db.dialect).count(db) ?? 0 > 0
        }
        guard staying.isEmpty else {
            return
                "Version \(version) deletes entity '\(name)' (\(objects)), but its sub-entit\(staying.count == 1 ? "y" : "ies") \(staying.map { "'\($0)'" }.joined(separator: ", ")) stay\(staying.count == 1 ? "s" : ""), and deleting '\(name)' would take their objects too. Give \(staying.count == 1 ? "it" : "them") another parent first, or delete \(staying.count == 1 ? "it" : "them") too."
        }
        deletions.append((name, count))
        return nil
    }

    /// The properties (attributes and to-one relationships, each a column) the entity loses or gains.
    private mutating func checkColumns(
        of name: String, new: Entity, rows: Rows, in db: any SQLConnection
    ) throws -> [String] {
        guard let old = diff.source.effectiveEntity(named: name) else { return [] }
        var refusals: [String] = []
        // By their names in the older version: a property renamed (`originalName`) keeps its values.
        let diff = self.diff
        let origin = { (property: String) in diff.originalName(ofProperty: property, inEntity: new.name) ?? property }
        // Clears and fills run once the entity column holds the entity's new name, in the table's new name.
        let table = diff.destination.rootEntity(of: new.name)?.name ?? new.name
        let newColumns = Set(
            (new.attributes.map(\.name) + new.relationships.filter { $0.kind == .toOne }.map(\.name)).map(origin))
        let oldColumns = old.attributes.map(\.name) + old.relationships.filter { $0.kind == .toOne }.map(\.name)
        let chain = [name] + diff.source.ancestors(of: name).map(\.name)
        for column in oldColumns where !newColumns.contains(column) {
            let stored = diff.source.storedName(of: column, in: name) ?? column
            guard let count = try rows.count(db, where: stored), count > 0 else { continue }
            if diff.declaredDeletions.contains(where: { $0.property == column && chain.contains($0.entity) }) {
                clears.append((table, stored, new.name))
                continue
            }
            let owner = diff.destination.entities.first { $0.attribute(named: column) != nil }?.name
            refusals.append(
                "Version \(diff.destination.version) no longer gives entity '\(name)' the property '\(column)'\(owner.map { " (it is declared on '\($0)')" } ?? ""), which holds \(count) value\(count == 1 ? "" : "s") on its objects. Declare their deletion: `Schema(version: \(diff.destination.version), deleting: [.property(\"\(column)\", of: \"\(name)\")])`, or keep the property on '\(name)' or one of its parents."
            )
        }
        for attribute in new.attributes where !attribute.isOptional && !oldColumns.contains(origin(attribute.name)) {
            if let value = attribute.defaultValue {
                fills.append((new.name, attribute.name, value))
            } else if let count = try rows.count(db), count > 0 {
                refusals.append(
                    "Version \(diff.destination.version) gives entity '\(name)' the required attribute '\(attribute.name)' with no default, but it holds \(count) object\(count == 1 ? "" : "s") that have no value for it. Give it a default (`default: …`), or make it optional."
                )
            }
        }
        return refusals
    }

    /// Clears the values the version declares deleted, once the tables have changed (a column that other
    /// entities keep may take nulls then), in the columns the hierarchy's table still has.
    func clear(in db: any SQLConnection) throws {
        let q = db.dialect.quote
        let stored = diff.destination.storageSchema
        for clear in clears
        where stored.entity(named: clear.table)?.attribute(named: clear.column) != nil
            || stored.entity(named: clear.table)?.relationship(named: clear.column) != nil
        {
            try db.execute(
                .update,
                "UPDATE \(q(clear.table)) SET \(q(clear.column)) = NULL WHERE \(q(StoreLayout.entityColumn)) = ?",
                [.string(clear.entity)])
        }
    }

    /// Gives the objects that gained a required attribute its default: after the tables change.
    func fill(in db: any SQLConnection) throws {
        guard !fills.isEmpty else { return }
        let objects = Objects(db: db, schema: diff.destination, isWritable: true)
        for fill in fills {
            try objects.updateAll(fill.entity, where: .isNull(fill.attribute), set: [fill.attribute: fill.value])
        }
    }

    /// The rows of one entity's own objects in the table of its hierarchy, as the store holds them before the
    /// step.
    private struct Rows {
        let entity: String
        let table: String
        let condition: String
        let dialect: any SQLDialect

        init(entity: String, source: Schema, dialect: any SQLDialect) {
            self.entity = entity
            self.table = source.rootEntity(of: entity)?.name ?? entity
            self.dialect = dialect
            condition =
                source.isInHierarchy(entity)
                ? "\(dialect.quote(StoreLayout.entityColumn)) = \(dialect.literal(.string(entity)))" : "1 = 1"
        }

        /// The entity's objects, or those that hold a value in `column`.
        func count(_ db: any SQLConnection, where column: String? = nil) throws -> Int? {
            let filter = column.map { " AND \(dialect.quote($0)) IS NOT NULL" } ?? ""
            return try db.fetchInt("SELECT COUNT(*) FROM \(dialect.quote(table)) WHERE \(condition)\(filter)", [])
                .map(Int.init)
        }
    }
}
