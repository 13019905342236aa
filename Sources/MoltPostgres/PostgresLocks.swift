import Foundation
import Molt

/// What a statement costs live traffic on PostgreSQL, for dry runs (`molt plan`): the lock it takes and whether
/// it rewrites the table, as a comment after the statement.
///
/// ```text
/// ALTER TABLE "Book" ADD COLUMN "rating" bigint -- ACCESS EXCLUSIVE lock, brief: metadata only
/// ALTER TABLE "Book" ALTER COLUMN "pages" TYPE text USING … -- ACCESS EXCLUSIVE lock for the rewrite of the table
/// ```
///
/// The note comes with the statement (from its ``SQLStatementKind``, or from the code that sent it when the
/// kind says too little), never from reading its SQL.
enum PostgresLocks {
    /// The lock a statement takes, as a dry run shows it.
    enum Note: String, Sendable {
        /// An `ALTER TABLE` that changes the catalog only.
        case metadata = "ACCESS EXCLUSIVE lock, brief: metadata only"
        /// An `ALTER TABLE … TYPE … USING`, which rewrites every row.
        case rewrite = "ACCESS EXCLUSIVE lock for the rewrite of the table"
        /// `SET NOT NULL`, which reads every row.
        case scan = "ACCESS EXCLUSIVE lock while every row is scanned (no rewrite)"
        /// `LOCK TABLE`, held to the commit.
        case held = "held to the commit, so that what Molt counts and checks is what it changes"
        /// `DROP TABLE`.
        case drop = "ACCESS EXCLUSIVE lock, brief"
        /// `CREATE INDEX` on an existing table.
        case index = "SHARE lock (writes wait) while the index is built"
        /// `INSERT`, `UPDATE`, `DELETE`.
        case rows = "ROW EXCLUSIVE lock: writes rows"
    }

    /// The note of a statement of `kind`, when its sender gave none.
    static func note(for kind: SQLStatementKind) -> Note? {
        switch kind {
        case .read, .create: return nil
        case .alter: return .metadata
        case .update, .updateObject, .insert, .bookkeeping: return .rows
        }
    }

    /// The statement as a dry run lists it: trimmed, with its note as a comment.
    static func annotate(_ sql: String, _ note: Note?) -> String {
        let text = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        return note.map { "\(text) -- \($0.rawValue)" } ?? text
    }
}
