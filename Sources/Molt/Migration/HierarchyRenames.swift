/// The entities of hierarchies that a step renames (by `originalName`), and the one statement per hierarchy that
/// renames their objects: the entity column (``StoreLayout/entityColumn``) holds each object's entity name, so a
/// renamed entity is an `UPDATE` of that column, its rows keeping their identifiers, values and links.
///
/// The rows are renamed first, in the table as the older version names it, before any column moves or table
/// change: every later statement of the step (moves, clears, defaults) then finds the objects under their new
/// names. Names that swap, or an entity that takes the old name of another, are renamed at once by one `CASE`:
///
/// ```sql
/// UPDATE "Car" SET "_entity" = 'LuxuryCar' WHERE "_entity" = 'ExpensiveSportCar'
/// ```
///
/// The rest of the layout follows the names through the step's storage diff: the table of a renamed root is
/// renamed with it, and join tables and columns named after an entity (two siblings that declare one property
/// name) are renamed or moved by ``HierarchyColumns``. Links store identifiers only, which do not change.
struct HierarchyRenames: Equatable {
    /// One hierarchy's renamed entities: its table in the older version, and old name → new name.
    struct Table: Equatable {
        var table: String
        var names: [Pair]
    }

    /// An entity's name in the older version and in the newer one.
    struct Pair: Equatable {
        var from: String
        var to: String
    }

    /// Per hierarchy with a renamed concrete entity, in the older version's order of roots.
    private(set) var tables: [Table] = []

    init(_ diff: SchemaDiff) {
        let (source, destination) = (diff.source, diff.destination)
        for root in source.entities where root.parent == nil && source.isInHierarchy(root.name) {
            let members = [root] + source.subEntities(of: root.name, recursive: true)
            let names = members.compactMap { old -> Pair? in
                // A hierarchy that keeps no sub-entity loses its entity column: nothing to rename.
                guard !old.isAbstract, let new = diff.newName(ofEntity: old.name), new != old.name,
                    destination.isInHierarchy(new)
                else { return nil }
                return Pair(from: old.name, to: new)
            }
            if !names.isEmpty { tables.append(Table(table: root.name, names: names)) }
        }
    }

    /// The tables (by their names in the older version) whose rows the renames read.
    var tableNames: [String] { tables.map(\.table) }

    /// Renames the objects of each renamed entity, one statement per hierarchy, before the tables change.
    ///
    /// - Returns: The number of objects renamed, which the step's record counts as updated.
    func rename(in db: any SQLConnection) throws -> Int {
        try tables.reduce(0) { $0 + (try db.execute(.update, Self.statement($1, dialect: db.dialect), [])) }
    }

    /// The `UPDATE` of one hierarchy's entity column: a plain assignment for one renamed entity, a `CASE` for
    /// several (so that names can swap).
    static func statement(_ table: Table, dialect: any SQLDialect) -> String {
        let column = dialect.quote(StoreLayout.entityColumn)
        let literal = { (name: String) in dialect.literal(.string(name)) }
        let head = "UPDATE \(dialect.quote(table.table)) SET \(column) = "
        if let only = table.names.first, table.names.count == 1 {
            return head + "\(literal(only.to)) WHERE \(column) = \(literal(only.from))"
        }
        let cases = table.names.map { "WHEN \(literal($0.from)) THEN \(literal($0.to))" }.joined(separator: " ")
        let olds = table.names.map { literal($0.from) }.joined(separator: ", ")
        return head + "CASE \(column) \(cases) END WHERE \(column) IN (\(olds))"
    }
}
