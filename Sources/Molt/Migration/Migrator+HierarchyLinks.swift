/// The owners a step over a hierarchy may leave with fewer destinations: the objects of a sub-entity the step
/// removes go with their links, so an owner linking into the hierarchy may hold fewer after it.
///
/// The count of links each owner holds, per to-many relationship with a minimum count into a hierarchy, is read
/// before the step and compared after it: only the owners that hold fewer are held to the minimum, as Core Data
/// validates only the objects a save changes (an owner already short, adopted or kept by a raise, is not the
/// step's doing). A relationship the older version does not have as a to-many (added, or another kind) has no
/// count to compare: every owner is checked.
struct HierarchyLinkCounts {
    /// Per join table (by its name in the step's newer version), each owner's count of links before the step;
    /// nil for a relationship whose every owner is checked.
    private var before: [String: [Int64: Int64]?] = [:]

    /// Reads the counts of `step`'s relationships into a hierarchy, from the store as it is at the step's older
    /// version.
    init(_ step: MigrationStep, in db: any SQLConnection) throws {
        let (old, new) = (
            StoreLayout.standard(step.from, dialect: db.dialect), StoreLayout.standard(step.to, dialect: db.dialect)
        )
        for entity in step.to.entities {
            for relationship in entity.relationships where relationship.toManyMinimum != nil {
                guard new.hierarchy(relationship.destination) != nil else { continue }
                let join = new.physicalJoinTable(entity.name, relationship.name)
                guard let oldEntity = step.diff.originalName(ofEntity: entity.name),
                    let oldName = step.diff.originalName(ofProperty: relationship.name, inEntity: entity.name),
                    step.from.effectiveEntity(named: oldEntity)?.relationship(named: oldName)?.kind == .toMany
                else {
                    before[join] = .some(nil)
                    continue
                }
                before[join] = try Self.counts(db, old.joinTable(oldEntity, oldName))
            }
        }
    }

    /// Records in `changes`, from the store as the step left it, the owners that hold fewer links than before
    /// (every owner of a relationship without counts).
    func record(in changes: TableAccess, after step: MigrationStep, in db: any SQLConnection) throws {
        let layout = StoreLayout.standard(step.to, dialect: db.dialect)
        for entity in step.to.entities {
            for relationship in entity.relationships {
                let join = layout.physicalJoinTable(entity.name, relationship.name)
                guard let counted = before[join] else { continue }
                guard let counted else {
                    changes.didWriteUnnamed(join)
                    continue
                }
                let after = try Self.counts(db, layout.joinTable(entity.name, relationship.name))
                let fewer = counted.filter { owner, count in (after[owner] ?? 0) < count }.map(\.key)
                changes.willWrite(join)
                changes.mayEmptyLinks(in: join, of: fewer)
            }
        }
    }

    /// Each owner's count of rows in the join table `table` (quoted).
    private static func counts(_ db: any SQLConnection, _ table: String) throws -> [Int64: Int64] {
        let owner = db.dialect.quote(StoreLayout.ownerColumn)
        var result: [Int64: Int64] = [:]
        for row in try db.fetchRows(
            "SELECT \(owner), COUNT(*) FROM \(table) GROUP BY \(owner)", [], types: [.int, .int])
        {
            if let id = row[0].int, let count = row[1].int { result[id] = count }
        }
        return result
    }
}
