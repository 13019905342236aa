/// A required to-one relationship (``Relationship/isOptional`` false) that some objects leave empty: what a
/// write transaction, every migration and ``Store/verify()`` refuse, naming the objects.
///
/// The column of a required relationship stays nullable in the store: the check runs when a write or a
/// migration is about to commit, as Core Data validates at save, so that an object may be inserted and then
/// linked in the same transaction, and a migration stage may link its objects in any order.
struct EmptyRequiredLink {
    /// The entity that declares the relationship.
    let entity: String
    /// The relationship.
    let relationship: Relationship
    /// The first objects without a destination, by identifier.
    let ids: [Int64]
    /// How many objects have none.
    let count: Int64

    /// How many identifiers a message shows.
    static let shownIDs = 3

    /// `'Post.author'`.
    var label: String { "'\(entity).\(relationship.name)'" }

    /// `2 'Post' objects (_id 4, 7) have no 'author'`.
    var phrase: String {
        let more = count > Int64(ids.count) ? ", …" : ""
        let shown = ids.map(String.init).joined(separator: ", ") + more
        return count == 1
            ? "1 '\(entity)' object (_id \(shown)) has no '\(relationship.name)'"
            : "\(count) '\(entity)' objects (_id \(shown)) have no '\(relationship.name)'"
    }

    /// Which objects of a table to check.
    enum Scope {
        /// Every object of the table: one scan per required relationship.
        case everyObject
        /// These objects (by identifier) only; none is no check.
        case objects(Set<Int64>)
    }

    /// Every required to-one relationship of `schema` that objects leave empty, among the entities whose table is
    /// in `tables` (unquoted, as `layout` names them; every entity when nil).
    static func find(
        in db: any SQLConnection, schema: Schema, layout: StoreLayout, tables: Set<String>? = nil
    ) throws -> [EmptyRequiredLink] {
        try find(in: db, schema: schema, layout: layout) { table in
            tables.map { $0.contains(table) } ?? true ? .everyObject : nil
        }
    }

    /// Every required to-one relationship of `schema` that objects leave empty, among the objects `scope` gives
    /// for each entity's table (nil: none): the objects whose column is null, a hierarchy's table restricted to
    /// the entity's objects.
    static func find(
        in db: any SQLConnection, schema: Schema, layout: StoreLayout, scope: (_ table: String) -> Scope?
    ) throws -> [EmptyRequiredLink] {
        var result: [EmptyRequiredLink] = []
        let id = db.dialect.quote(StoreLayout.idColumn)
        for entity in schema.entities {
            for relationship in entity.relationships where relationship.isRequiredToOne {
                guard let scope = scope(layout.physicalTable(entity.name)) else { continue }
                var condition = "\(layout.column(entity.name, relationship.name)) IS NULL"
                if let own = layout.entityCondition(entity.name) { condition += " AND \(own)" }
                let from = "FROM \(layout.table(entity.name)) WHERE \(condition)"
                let ids: [Int64]
                let count: Int64
                switch scope {
                case .everyObject:
                    ids = try db.fetchInts("SELECT \(id) \(from) ORDER BY \(id) LIMIT \(shownIDs)")
                    count =
                        ids.count < shownIDs ? Int64(ids.count) : try db.fetchInt("SELECT COUNT(*) \(from)") ?? 0
                case .objects(let suspects):
                    // Identifiers are numbers: written into the statement, in chunks under SQLite's variable limit.
                    var found: [Int64] = []
                    let sorted = suspects.sorted()
                    for start in stride(from: 0, to: sorted.count, by: 500) {
                        let chunk = sorted[start..<min(start + 500, sorted.count)].map(String.init)
                        found += try db.fetchInts(
                            "SELECT \(id) \(from) AND \(id) IN (\(chunk.joined(separator: ", ")))")
                    }
                    ids = Array(found.sorted().prefix(shownIDs))
                    count = Int64(found.count)
                }
                guard !ids.isEmpty else { continue }
                result.append(
                    EmptyRequiredLink(entity: entity.name, relationship: relationship, ids: ids, count: count))
            }
        }
        return result
    }

    /// The refusal of a write transaction that leaves this link empty.
    var writeRefusal: MoltError {
        let destination = relationship.destination
        var fix =
            "Link each to \(Self.article(destination)) '\(destination)' in the same write (`objects.set(\"\(relationship.name)\", of: object, to: destination)`), or delete them"
        if let inverse = relationship.inverse {
            fix +=
                "; to delete \(Self.article(destination)) '\(destination)' together with the objects that require it, give '\(destination).\(inverse)' the delete rule cascade"
        }
        return MoltError(
            .constraintViolation,
            "Relationship \(label) is required, so nothing was written: \(phrase) when the write ends. \(fix).",
            entity: entity, property: relationship.name)
    }

    /// The refusal of a migration to `version` that leaves this link empty.
    func migrationRefusal(version: Int) -> MoltError {
        MoltError(
            .validationFailed,
            "The migration to version \(version) left the required relationship \(label) empty, so nothing was committed: \(phrase). Link them (or delete them) in a custom stage, or keep \(label) optional.",
            entity: entity, property: relationship.name)
    }

    /// The refusal of a new store filled from elsewhere (an adoption's copy) that leaves this link empty.
    var fillingRefusal: MoltError {
        MoltError(
            .validationFailed,
            "The copy leaves the required relationship \(label) empty, so no store was created: \(phrase). Link those objects in the original store, or make \(label) optional in the schema.",
            entity: entity, property: relationship.name)
    }

    private static func article(_ name: String) -> String { "aeioAEIO".contains(name.first ?? "x") ? "an" : "a" }
}

extension Schema {
    /// Whether an entity of the schema has a required to-one relationship.
    var hasRequiredLinks: Bool {
        entities.contains { $0.relationships.contains(where: \.isRequiredToOne) }
    }
}
