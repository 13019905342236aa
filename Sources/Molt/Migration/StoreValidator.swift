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
    static func validate(
        _ db: any SQLConnection, against schema: Schema, checkingLinksOf linkedTables: Set<String>? = nil,
        inversesAround inverseTables: Set<String>? = [], from stored: Schema? = nil, stageWrote: Bool = false
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
        let required = stored.map { requiredLinkTables(schema, layout, from: $0, linkedTables: linkedTables) } ?? []
        if let empty = try EmptyRequiredLink.find(in: db, schema: schema, layout: layout, tables: required).first {
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

    /// The tables (by `schema`'s names) whose required relationships a migration from `stored` may have left
    /// empty, or nil for every table: those it wrote (`linkedTables`, nil when a stage may have written anywhere),
    /// those that link to them (a deleted destination empties a link), those whose to-many links it wrote, and
    /// those whose entity has a required relationship `stored` did not require (added, made required, or a
    /// minimum count raised).
    static func requiredLinkTables(
        _ schema: Schema, _ layout: StoreLayout, from stored: Schema, linkedTables: Set<String>?
    ) -> Set<String>? {
        guard let linkedTables else { return nil }
        // A written table may be named by an entity of a hierarchy or by the hierarchy's table: either counts.
        let physical = linkedTables.union(
            schema.entities.filter { linkedTables.contains($0.name) }.map { layout.physicalTable($0.name) })
        func written(_ entity: String) -> Bool { physical.contains(layout.physicalTable(entity)) }
        var tables: Set<String> = []
        for entity in schema.entities {
            let old = stored.entity(named: entity.name)
            for relationship in entity.relationships where relationship.isRequiredLink {
                let was = old?.relationship(named: relationship.name)
                let newlyRequired =
                    relationship.kind == .toOne
                    ? !(was?.isRequiredToOne ?? false)
                    : (was?.toManyMinimum ?? 0) < relationship.minimumCount
                let linksWritten =
                    relationship.kind == .toMany
                    && physical.contains(layout.physicalJoinTable(entity.name, relationship.name))
                if written(entity.name) || written(relationship.destination) || linksWritten || newlyRequired {
                    tables.insert(layout.physicalTable(entity.name))
                }
            }
        }
        return tables
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
