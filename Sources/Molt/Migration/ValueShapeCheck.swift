/// The check that every JSON value a migration leaves has the shape its target schema gives the attribute
/// (``Attribute/shape``): run before the migration commits, from the target schema alone, so that a
/// migration from snapshots (the CLI) and both engines check the same way.
///
/// An attribute is checked when the stored values might not have the new shape: its shape is new, or it is not
/// one that accepts every value of the stored version's shape (a required field added, a type changed, a case
/// removed), or a stage ran and may have written any value. Adding an optional field, or removing one, checks
/// nothing.
struct ValueShapeCheck {
    /// The attribute that holds a value that does not fit.
    let entity: String
    let attribute: String
    /// The first objects whose value does not fit, by identifier, and the first one's mismatch.
    let ids: [Int64]
    let count: Int
    let first: ValueShape.Mismatch

    /// The first attribute of `schema` that holds a value which does not have its shape, among those a migration
    /// from `stored` may have left so; `anyWritten`: a stage ran, and every shaped attribute is checked.
    static func find(
        in db: any SQLConnection, schema: Schema, from stored: Schema, anyWritten: Bool
    ) throws -> ValueShapeCheck? {
        let layout = StoreLayout.standard(schema, dialect: db.dialect)
        for entity in schema.entities {
            for attribute in entity.attributes {
                guard let shape = attribute.shape, shape != .opaque, attribute.type == .string else { continue }
                let before = stored.entity(named: entity.name)?.attribute(
                    named: attribute.originalName ?? attribute.name)
                if !anyWritten, let before, shape.acceptsEveryValue(of: before.shape ?? .opaque) { continue }
                if let found = try check(db, layout, entity.name, attribute.name, shape) { return found }
            }
        }
        return nil
    }

    private static func check(
        _ db: any SQLConnection, _ layout: StoreLayout, _ entity: String, _ attribute: String, _ shape: ValueShape
    ) throws -> ValueShapeCheck? {
        let id = db.dialect.quote(StoreLayout.idColumn)
        let column = layout.column(entity, attribute)
        var condition = "\(column) IS NOT NULL"
        if let own = layout.entityCondition(entity) { condition += " AND \(own)" }
        let statement = try db.makeStatement(
            .read, "SELECT \(id), \(column) FROM \(layout.table(entity)) WHERE \(condition) ORDER BY \(id)")
        try statement.bind([])
        defer { statement.reset() }
        var ids: [Int64] = []
        var count = 0
        var first: ValueShape.Mismatch?
        while try statement.step() {
            guard let mismatch = shape.mismatch(inJSON: statement.text(1)) else { continue }
            count += 1
            if ids.count < EmptyRequiredLink.shownIDs { ids.append(statement.int64(0)) }
            if first == nil { first = mismatch }
        }
        guard let first else { return nil }
        return ValueShapeCheck(entity: entity, attribute: attribute, ids: ids, count: count, first: first)
    }

    /// The refusal of the migration to `version`, naming the objects and the field.
    func migrationRefusal(version: Int) -> MoltError {
        let shown = ids.map(String.init).joined(separator: ", ") + (count > ids.count ? ", …" : "")
        let objects = count == 1 ? "1 '\(entity)' object (_id \(shown))" : "\(count) '\(entity)' objects (_id \(shown))"
        let what = first.field.isEmpty ? "the value \(first.problem)" : "field '\(first.field)' \(first.problem)"
        return MoltError(
            .validationFailed,
            "The migration to version \(version) would leave values of '\(entity).\(attribute)' that its new shape does not read, so nothing was committed: \(objects) \(count == 1 ? "holds one" : "hold such values"); in _id \(ids[0]), \(what). Rewrite the values in a custom stage (set '\(attribute)' through `migration.new`), or make the field optional in the Swift type (an Optional, or `decodeIfPresent` with a default).",
            entity: entity, property: attribute)
    }
}
