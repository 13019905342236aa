/// Checks a migrated store against its target schema before the migration commits: the tables, columns,
/// references and indexes a fresh store of that schema would have, then every reference's target.
enum StoreValidator {
    /// - Parameter linkedTables: The tables whose rows the migration wrote, replaced, created or dropped, or nil
    ///   when it may have written anywhere (a custom stage ran). The store was valid before the run (Molt writes
    ///   with references enforced, and every migration is validated), so a link can only break there: the check
    ///   covers those tables and the tables that link to them, as GRDB's `checkForeignKeys(in:)` lets a
    ///   migration do, instead of scanning every row of the store (~60 ms on a million objects, thirty times
    ///   the `ALTER TABLE` it validates).
    /// - Parameter inverseTables: The tables around which the two sides of a relationship and its inverse may
    ///   disagree (nil: everywhere); every pair that keeps a side there is compared.
    /// - Parameter stored: The schema the store had before the run, when a migration validates: the required
    ///   relationships it did not have are checked whatever tables the run wrote, and the JSON values whose shape
    ///   changed (``ValueShapeCheck``).
    /// - Parameter stageWrote: Whether a stage wrote objects, which may have written any JSON value: every one is
    ///   checked against its shape.
    /// - Parameter changes: The objects stages inserted and the owners they removed links of (by the tables'
    ///   names in `schema`): the only ones held to a minimum count, unless a step that refuses short owners
    ///   raised it.
    /// - Parameter raised: The minimum counts the run's steps add or raise (``RaisedMinimum``): every owner is
    ///   checked for those of a step that refuses short owners; the others keep the owners under them.
    static func validate(
        _ db: any SQLConnection, against schema: Schema, checkingLinksOf linkedTables: Set<String>? = nil,
        inversesAround inverseTables: Set<String>? = [], from stored: Schema? = nil, stageWrote: Bool = false,
        changes: TableAccess? = nil, raised: [RaisedMinimum] = []
    ) throws {
        let problems = try shapeProblems(db, schema: schema)
        if !problems.isEmpty {
            throw MoltError(
                .validationFailed,
                "The migration to version \(schema.version) did not produce the expected store, so nothing was committed:\n\(problems.joined(separator: "\n"))"
            )
        }
        let violations = try db.brokenLinks(around: linkedTables)
        if let first = violations.first {
            throw MoltError(
                .validationFailed,
                "The migration to version \(schema.version) left \(violations.count) broken link(s), so nothing was committed: \(first.phrase). Delete or relink such objects in a custom stage.",
                entity: first.table)
        }
        let layout = StoreLayout.standard(schema, dialect: db.dialect)
        if let stored,
            let empty = try EmptyRequiredLink.find(
                in: db, schema: schema, layout: layout,
                scope: requiredLinkScope(
                    schema, layout, from: stored, linkedTables: linkedTables, changes: changes, raised: raised)
            ).first
        {
            throw empty.migrationRefusal(version: schema.version)
        }
        if let stored,
            let misfit = try ValueShapeCheck.find(
                in: db, schema: schema, from: stored, anyWritten: stageWrote || linkedTables == nil)
        {
            throw misfit.migrationRefusal(version: schema.version)
        }
        if let (pair, problem) = try disagreeingInverse(db, schema: schema, around: inverseTables) {
            throw MoltError(
                .validationFailed,
                "The migration to version \(schema.version) left the two sides of a relationship disagreeing, so nothing was committed: \(problem). Link objects through `migration.new` (which keeps both sides in step), or set both sides in the stage.",
                entity: pair.entity, property: pair.relationship.name)
        }
    }

    /// Which objects a migration from `stored` may have left without a required link, per entity and relationship
    /// of `schema` (nil: none).
    ///
    /// A required to-one: every object of the tables the run wrote (`linkedTables`, nil when a step may have
    /// written anywhere), of those that link to them (a deleted destination empties a link), and of the entities
    /// whose relationship `stored` did not require (added, or made required). A to-many whose minimum count a
    /// step that refuses short owners adds or raises (``Schema/ShortOwners/refused``): every object. Any other
    /// (kept, renamed, or raised by a step that keeps short owners): only the objects stages inserted and the
    /// owners they removed links of (`changes`), as an inferred step inserts no object and removes no link, and
    /// Core Data validates only the objects a save changes; an object already short before the run (adopted from
    /// Core Data) or under a minimum the run raised is not the run's to refuse: it is listed in the step's history
    /// entry, and ``Store/verify()`` reports it.
    static func requiredLinkScope(
        _ schema: Schema, _ layout: StoreLayout, from stored: Schema, linkedTables: Set<String>?,
        changes: TableAccess?, raised: [RaisedMinimum] = []
    ) -> (_ entity: String, _ relationship: Relationship) -> EmptyRequiredLink.Scope? {
        let strict = Set(raised.filter(\.isStrict).map(\.key))
        // A written table may be named by an entity of a hierarchy or by the hierarchy's table: either counts.
        let physical = linkedTables.map { tables in
            tables.union(schema.entities.filter { tables.contains($0.name) }.map { layout.physicalTable($0.name) })
        }
        return { entity, relationship in
            let was = stored.entity(named: entity)?.relationship(named: relationship.name)
            switch relationship.kind {
            case .toOne:
                guard let physical, was?.isRequiredToOne ?? false else { return .everyObject }
                let written =
                    physical.contains(layout.physicalTable(entity))
                    || physical.contains(layout.physicalTable(relationship.destination))
                return written ? .everyObject : nil
            case .toMany:
                if strict.contains("\(entity).\(relationship.name)") { return .everyObject }
                return changes?.requiredLinkScope(entity, relationship, layout: layout)
            }
        }
    }

    /// The first pair of `schema` whose two sides disagree, among the pairs with a side in `tables` (every
    /// pair when nil), and the disagreement.
    static func disagreeingInverse(
        _ db: any SQLConnection, schema: Schema, around tables: Set<String>?
    ) throws -> (InverseLink, String)? {
        if let tables, tables.isEmpty { return nil }
        let layout = StoreLayout.standard(schema, dialect: db.dialect)
        for pair in InverseLink.pairs(in: schema) where tables.map({ !$0.isDisjoint(with: pair.tables) }) ?? true {
            if let problem = try pair.disagreement(in: db, layout: layout) { return (pair, problem) }
        }
        return nil
    }

    /// Each table whose shape (columns, their types and constraints, references, indexes) differs from what a
    /// fresh store of `schema` has, Room's way: "Table 'T':\n  Expected: …\n  Found: …".
    static func shapeProblems(_ db: any SQLConnection, schema: Schema) throws -> [String] {
        let expected = try db.expectedShapes(of: schema)
        let found = try db.tableShapes()
        var problems: [String] = []
        for table in StoreLayout.tableNames(schema) {
            guard let wanted = expected[table] else { continue }
            guard let actual = found[table] else {
                problems.append(
                    "Table '\(table)':\n  Expected: \(wanted.render(order: wanted.order))\n  Found:    no such table")
                continue
            }
            if actual != wanted {
                problems.append(
                    "Table '\(table)':\n  Expected: \(wanted.render(order: wanted.order))\n  Found:    \(actual.render(order: wanted.order))"
                )
            }
        }
        for table in found.keys.sorted() where expected[table] == nil {
            problems.append(
                "Table '\(table)':\n  Expected: no such table\n  Found:    \(found[table]!.render(order: []))")
        }
        return problems
    }
}
