/// A required to-one relationship (``Relationship/isOptional`` false) that some objects leave empty, or a to-many
/// relationship that some objects hold fewer destinations than its ``Relationship/minimumCount``: what a write
/// transaction and every migration refuse, naming the objects (``Store/verify()`` reports an empty to-one as
/// damage, and lists short to-many owners). A to-many's minimum is checked, on a write or a migration, only for the
/// objects it inserted and the owners it removed links of (every owner when a version that refuses short owners
/// adds or raises the minimum), as Core Data validates at save; an adoption, and a step that raises a minimum,
/// keep the objects under it.
///
/// The column of a required relationship stays nullable in the store, and a join table holds any count: the check
/// runs when a write or a migration is about to commit, as Core Data validates at save, so that an object may be
/// inserted and then linked in the same transaction, and a migration stage may link its objects in any order.
struct EmptyRequiredLink {
    /// The entity that declares the relationship.
    let entity: String
    /// The relationship.
    let relationship: Relationship
    /// The first objects without a destination (or with too few), by identifier.
    let ids: [Int64]
    /// How many objects have none (or too few).
    let count: Int64
    /// For a to-many relationship, how many destinations each of ``ids`` holds.
    var held: [Int64] = []

    /// How many identifiers a message shows.
    static let shownIDs = 3

    /// `'Post.author'`.
    var label: String { "'\(entity).\(relationship.name)'" }

    /// `2 'Post' objects (_id 4, 7) have no 'author'`; for a to-many relationship with a minimum above 1,
    /// `2 'Question' objects hold fewer than 2 'options' (_id 4: 0, _id 7: 1)`.
    var phrase: String {
        let more = count > Int64(ids.count) ? ", …" : ""
        if let minimum = relationship.toManyMinimum, minimum > 1 {
            let shown = zip(ids, held).map { "_id \($0): \($1)" }.joined(separator: ", ") + more
            let objects = count == 1 ? "1 '\(entity)' object holds" : "\(count) '\(entity)' objects hold"
            return "\(objects) fewer than \(minimum) '\(relationship.name)' (\(shown))"
        }
        let shown = ids.map(String.init).joined(separator: ", ") + more
        return count == 1
            ? "1 '\(entity)' object (_id \(shown)) has no '\(relationship.name)'"
            : "\(count) '\(entity)' objects (_id \(shown)) have no '\(relationship.name)'"
    }

    /// `the required relationship 'Post.author' empty`, or `the relationship 'Question.options' under its minimum
    /// count of 2`: what a migration or a copy left.
    var leftAs: String {
        guard let minimum = relationship.toManyMinimum else { return "the required relationship \(label) empty" }
        return "the relationship \(label) under its minimum count of \(minimum)"
    }

    /// `the required relationship 'Post.author' is empty`, or `the relationship 'Question.options' is under its
    /// minimum count of 2`: what ``Store/verify()`` reports.
    var problem: String {
        guard let minimum = relationship.toManyMinimum else { return "the required relationship \(label) is empty" }
        return "the relationship \(label) is under its minimum count of \(minimum)"
    }

    /// How to relax the schema instead: `keep 'Post.author' optional`, `lower the minimum count of 'Q.options'`.
    var relaxing: String {
        relationship.toManyMinimum == nil ? "keep \(label) optional" : "lower the minimum count of \(label)"
    }

    /// Which objects of a table to check.
    enum Scope {
        /// Every object of the table: one scan per required relationship.
        case everyObject
        /// These objects (by identifier) only; none is no check.
        case objects(Set<Int64>)

        /// The objects of several scopes (nil: none at all).
        static func merging(_ scopes: [Scope?]) -> Scope? {
            var objects: Set<Int64>?
            for scope in scopes {
                switch scope {
                case nil: continue
                case .everyObject?: return .everyObject
                case .objects(let ids)?: objects = (objects ?? []).union(ids)
                }
            }
            return objects.map { .objects($0) }
        }
    }

    /// Every required relationship of `schema` that objects leave empty or short, among the entities whose table
    /// (or a to-many relationship's join table) is in `tables` (unquoted, as `layout` names them; every entity when nil).
    static func find(
        in db: any SQLConnection, schema: Schema, layout: StoreLayout, tables: Set<String>? = nil
    ) throws -> [EmptyRequiredLink] {
        try find(in: db, schema: schema, layout: layout) { entity, relationship in
            guard let tables else { return .everyObject }
            var named = [layout.physicalTable(entity)]
            if relationship.kind == .toMany { named.append(layout.physicalJoinTable(entity, relationship.name)) }
            return named.contains(where: tables.contains) ? .everyObject : nil
        }
    }

    /// Every required to-one relationship of `schema` that objects leave empty, and every to-many relationship
    /// that objects hold too few destinations of, among the objects `scope` gives for each entity and relationship
    /// (nil: none). A hierarchy's table is restricted to the entity's objects.
    static func find(
        in db: any SQLConnection, schema: Schema, layout: StoreLayout,
        scope: (_ entity: String, _ relationship: Relationship) -> Scope?
    ) throws -> [EmptyRequiredLink] {
        var result: [EmptyRequiredLink] = []
        for entity in schema.entities {
            for relationship in entity.relationships where relationship.isRequiredLink {
                guard let scope = scope(entity.name, relationship) else { continue }
                let found =
                    relationship.kind == .toOne
                    ? try emptyToOne(in: db, entity: entity.name, relationship, layout: layout, scope: scope)
                    : try shortToMany(in: db, entity: entity.name, relationship, layout: layout, scope: scope)
                if let found { result.append(found) }
            }
        }
        return result
    }

    /// The objects of `entity` in `scope` whose required to-one `relationship` is null, if any.
    private static func emptyToOne(
        in db: any SQLConnection, entity: String, _ relationship: Relationship, layout: StoreLayout, scope: Scope
    ) throws -> EmptyRequiredLink? {
        let id = db.dialect.quote(StoreLayout.idColumn)
        var condition = "\(layout.column(entity, relationship.name)) IS NULL"
        if let own = layout.entityCondition(entity) { condition += " AND \(own)" }
        let from = "FROM \(layout.table(entity)) WHERE \(condition)"
        let ids: [Int64]
        let count: Int64
        switch scope {
        case .everyObject:
            ids = try db.fetchInts("SELECT \(id) \(from) ORDER BY \(id) LIMIT \(shownIDs)")
            count = ids.count < shownIDs ? Int64(ids.count) : try db.fetchInt("SELECT COUNT(*) \(from)") ?? 0
        case .objects(let suspects):
            var found: [Int64] = []
            for chunk in chunks(of: suspects) {
                found += try db.fetchInts("SELECT \(id) \(from) AND \(id) IN (\(chunk))")
            }
            ids = Array(found.sorted().prefix(shownIDs))
            count = Int64(found.count)
        }
        guard !ids.isEmpty else { return nil }
        return EmptyRequiredLink(entity: entity, relationship: relationship, ids: ids, count: count)
    }

    /// Identifiers are numbers: written into a statement, in chunks under SQLite's variable limit.
    static func chunks(of ids: Set<Int64>) -> [String] {
        let sorted = ids.sorted()
        return stride(from: 0, to: sorted.count, by: 500).map { start in
            sorted[start..<min(start + 500, sorted.count)].map(String.init).joined(separator: ", ")
        }
    }

    /// The refusal of a write transaction that leaves this link empty.
    var writeRefusal: MoltError {
        if let minimum = relationship.toManyMinimum { return shortWriteRefusal(minimum) }
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
            "The migration to version \(version) left \(leftAs), so nothing was committed: \(phrase). Link them (or delete them) in a custom stage, or \(relaxing).",
            entity: entity, property: relationship.name)
    }

    /// The refusal of a new store filled from elsewhere (an adoption's copy) that leaves this link empty.
    var fillingRefusal: MoltError {
        MoltError(
            .validationFailed,
            "The copy leaves \(leftAs), so no store was created: \(phrase). Link those objects in the original store, or \(relationship.toManyMinimum == nil ? "make \(label) optional" : relaxing) in the schema.",
            entity: entity, property: relationship.name)
    }

    static func article(_ name: String) -> String { "aeioAEIO".contains(name.first ?? "x") ? "an" : "a" }
}

extension Schema {
    /// Whether an entity of the schema has a required to-one relationship or a to-many one with a minimum count.
    var hasRequiredLinks: Bool {
        entities.contains { $0.relationships.contains(where: \.isRequiredLink) }
    }
}
