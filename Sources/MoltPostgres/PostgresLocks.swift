import Foundation

/// What a statement costs live traffic on PostgreSQL, for dry runs (`molt plan`): the lock it takes and whether
/// it rewrites the table, as a comment after the statement.
///
/// ```text
/// ALTER TABLE "Book" ADD COLUMN "rating" bigint -- ACCESS EXCLUSIVE lock, brief: metadata only
/// ALTER TABLE "Book" ALTER COLUMN "pages" TYPE text USING … -- ACCESS EXCLUSIVE lock for the rewrite of the table
/// ```
enum PostgresLocks {
    static func annotate(_ sql: String) -> String {
        let text = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        let upper = text.uppercased()
        let note: String?
        if upper.hasPrefix("ALTER TABLE") {
            if upper.contains(" TYPE ") && upper.contains(" USING ") {
                note = "ACCESS EXCLUSIVE lock for the rewrite of the table"
            } else if upper.contains(" SET NOT NULL") {
                note = "ACCESS EXCLUSIVE lock while every row is scanned (no rewrite)"
            } else {
                note = "ACCESS EXCLUSIVE lock, brief: metadata only"
            }
        } else if upper.hasPrefix("LOCK TABLE") {
            note = "held to the commit, so that what Molt counts and checks is what it changes"
        } else if upper.hasPrefix("DROP TABLE") {
            note = "ACCESS EXCLUSIVE lock, brief"
        } else if upper.hasPrefix("CREATE UNIQUE INDEX") || upper.hasPrefix("CREATE INDEX") {
            note = "SHARE lock (writes wait) while the index is built"
        } else if upper.hasPrefix("UPDATE") || upper.hasPrefix("INSERT") || upper.hasPrefix("DELETE") {
            note = "ROW EXCLUSIVE lock: writes rows"
        } else {
            note = nil
        }
        return note.map { "\(text) -- \($0)" } ?? text
    }
}
