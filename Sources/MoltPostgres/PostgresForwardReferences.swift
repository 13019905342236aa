import Foundation
import Molt

/// Links to tables that do not exist yet, added once their table is created.
///
/// SQLite accepts a `REFERENCES` clause to a table created later; PostgreSQL does not. Molt's core creates
/// tables in schema order (and a stage creates new tables one by one beside the old ones), so an entity may
/// point to one declared after it, and two may point to each other. The connection creates such a column
/// without its link (``withhold(_:of:exists:)``: the ``SQLSchemaChange`` says which columns are links) and adds
/// the constraint with `ALTER TABLE … ADD FOREIGN KEY` as soon as the table it points to exists (following
/// renames meanwhile).
struct PostgresForwardReferences {
    struct Pending: Equatable {
        var table: String
        var column: String
        var link: SQLColumnDefinition.Link
    }

    private(set) var pending: [Pending] = []

    /// The columns of `columns`, created in `table`, whose link points to a table that `exists` says is missing:
    /// created without it, they are kept for later.
    mutating func withhold(
        _ columns: [SQLColumnDefinition], of table: String, exists: (String) throws -> Bool
    ) rethrows -> Set<String> {
        var withheld: Set<String> = []
        for column in columns {
            guard let link = column.link, link.table != table, try !exists(link.table) else { continue }
            withheld.insert(column.name)
            pending.append(Pending(table: table, column: column.name, link: link))
        }
        return withheld
    }

    /// Follows a table rename in the pending links.
    mutating func follow(renaming from: String, to: String) {
        for i in pending.indices {
            if pending[i].table == from { pending[i].table = to }
            if pending[i].link.table == from { pending[i].link.table = to }
        }
    }

    /// The statements that add the pending links whose target now exists, removed from the list.
    mutating func ready(exists: (String) throws -> Bool) rethrows -> [String] {
        var statements: [String] = []
        var waiting: [Pending] = []
        let dialect = PostgresDialect.shared
        for reference in pending {
            if try exists(reference.link.table) {
                let clause = dialect.reference(
                    table: reference.link.table, column: StoreLayout.idColumn, onDelete: reference.link.onDelete)
                statements.append(
                    "ALTER TABLE \(dialect.quote(reference.table)) ADD FOREIGN KEY (\(dialect.quote(reference.column))) \(clause)"
                )
            } else {
                waiting.append(reference)
            }
        }
        pending = waiting
        return statements
    }
}
