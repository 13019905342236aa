/// What a statement does, sent with it across the seam so that no engine reads its SQL to find out.
///
/// SQLite needs none of it; PostgreSQL uses it to defer or check references around a migration's writes, to
/// keep identity sequences ahead of identifiers given explicitly, to batch keyed updates, and to know when what
/// it read from the catalog may be stale.
///
/// ```swift
/// try db.execute(.update, "UPDATE \(table) SET \(column) = NULL WHERE \(column) = ?", [.int(id)])
/// ```
package enum SQLStatementKind: Hashable, Sendable {
    /// Reads, locks or sets a session's state: writes no row and changes no table.
    case read
    /// Updates or deletes rows of application tables (or temporary ones) without numbering any.
    case update
    /// Sets `columns` (unquoted) of the one row of `table` (unquoted) whose `_id` is bound last:
    /// `UPDATE "T" SET "a" = ?, "b" = ? WHERE "_id" = ?`, which an engine may batch.
    case updateObject(table: String, columns: [String])
    /// Inserts rows into `table` (unquoted), giving their `_id` itself when `explicitID` (an import that keeps
    /// identifiers, a mapping that numbers the objects it creates) or letting the engine number them.
    case insert(into: String, explicitID: Bool)
    /// Writes Molt's own tables (metadata, history), which hold no reference to another table.
    case bookkeeping
    /// Creates tables or indexes; changes no existing table.
    case create
    /// Alters or drops existing tables (PostgreSQL checks the references a migration's writes left pending first).
    case alter

    /// Whether the statement may change the tables, columns or references of the store.
    package var changesCatalog: Bool { self == .create || self == .alter }

    /// Whether the statement writes rows of tables that may hold references.
    package var writesRows: Bool {
        switch self {
        case .update, .updateObject, .insert: return true
        case .read, .bookkeeping, .create, .alter: return false
        }
    }
}
