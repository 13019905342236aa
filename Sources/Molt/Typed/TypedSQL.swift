import Foundation

/// The SQL a model type uses, built once per type.
struct TypedSQL: Sendable {
    /// `INSERT INTO t (attributes…, to-ones…) VALUES (?…)`.
    let insert: String
    /// `UPDATE t SET a = ?, … WHERE _id = ?`.
    let update: String
    /// `SELECT _id, attributes…, to-ones… FROM t`.
    let select: String

    init(_ entity: Entity, layout: StoreLayout) {
        let names = entity.attributes.map(\.name) + entity.relationships.filter { $0.kind == .toOne }.map(\.name)
        let columns = names.map { layout.column(entity.name, $0) }
        let fillers = layout.fillers(entity.name)
        let table = layout.table(entity.name)
        let id = layout.dialect.quote(StoreLayout.idColumn)
        var insertColumns = columns + fillers.map { layout.dialect.quote($0.column) }
        var marks = columns.map { _ in "?" } + fillers.map(\.literal)
        if layout.hierarchy(entity.name) != nil {
            insertColumns.append(layout.dialect.quote(StoreLayout.entityColumn))
            marks.append(layout.dialect.literal(.string(entity.name)))
        }
        insert =
            insertColumns.isEmpty
            ? "INSERT INTO \(table) DEFAULT VALUES"
            : "INSERT INTO \(table) (\(insertColumns.joined(separator: ", "))) VALUES (\(marks.joined(separator: ", ")))"
        update =
            columns.isEmpty
            ? "UPDATE \(table) SET \(id) = \(id) WHERE \(id) = ?"
            : "UPDATE \(table) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE \(id) = ?"
        select = "SELECT \(([id] + columns).joined(separator: ", ")) FROM \(table)"
    }

    private static let cache = LockedValue<[ObjectIdentifier: TypedSQL]>([:])

    /// The SQL of a model type in a layout; built once per type for a store's own layout.
    static func of<M: PersistentModel>(_ type: M.Type, in layout: StoreLayout) -> TypedSQL {
        // Workspace layouts (a stage's) are built each time; only standard layouts, the same for every store, are cached.
        if !layout.isStandard(M.entity.name) { return TypedSQL(M.entity, layout: layout) }
        let key = ObjectIdentifier(type)
        return cache.withLock { cache in
            if let cached = cache[key] { return cached }
            let sql = TypedSQL(M.entity, layout: layout)
            cache[key] = sql
            return sql
        }
    }
}
