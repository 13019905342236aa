import Foundation
import Molt

/// References to tables that do not exist yet, added once their table is created.
///
/// SQLite accepts a `REFERENCES` clause to a table created later; PostgreSQL does not. Molt's core creates
/// tables in schema order (and a stage creates new tables one by one beside the old ones), so an entity may
/// point to one declared after it, and two may point to each other. The connection strips such a clause from
/// the `CREATE TABLE` or `ADD COLUMN` that holds it and adds the constraint with `ALTER TABLE … ADD FOREIGN
/// KEY` as soon as the table it points to exists (following renames meanwhile).
struct PostgresForwardReferences {
    struct Pending: Equatable {
        var table: String
        var column: String
        var clause: String
        var target: String
    }

    private(set) var pending: [Pending] = []

    private static let reference = try! NSRegularExpression(
        pattern: #""((?:[^"]|"")*)" bigint( NOT NULL)? (REFERENCES "((?:[^"]|"")*)"\("_id"\) ON DELETE (?:SET NULL|CASCADE) DEFERRABLE INITIALLY IMMEDIATE)"#)
    private static let subject = try! NSRegularExpression(pattern: #"^(?:CREATE TABLE|ALTER TABLE) "((?:[^"]|"")*)""#)
    private static let rename = try! NSRegularExpression(pattern: #"^ALTER TABLE "((?:[^"]|"")*)" RENAME TO "((?:[^"]|"")*)"$"#)

    private static func unquote(_ text: String) -> String { text.replacingOccurrences(of: "\"\"", with: "\"") }

    private static func group(_ match: NSTextCheckingResult, _ index: Int, in text: String) -> String? {
        Range(match.range(at: index), in: text).map { String(text[$0]) }
    }

    /// `sql` without the references to tables that `exists` says are missing; those are kept for later.
    mutating func strip(_ sql: String, exists: (String) throws -> Bool) rethrows -> String {
        guard sql.hasPrefix("CREATE TABLE") || sql.contains(" ADD COLUMN "), sql.contains(" REFERENCES "),
            let subjectMatch = Self.subject.firstMatch(in: sql, range: NSRange(sql.startIndex..., in: sql)),
            let table = Self.group(subjectMatch, 1, in: sql).map(Self.unquote)
        else { return sql }
        var result = sql
        let matches = Self.reference.matches(in: sql, range: NSRange(sql.startIndex..., in: sql))
        for match in matches.reversed() {
            guard let column = Self.group(match, 1, in: sql).map(Self.unquote), let clause = Self.group(match, 3, in: sql),
                let target = Self.group(match, 4, in: sql).map(Self.unquote), target != table, try !exists(target),
                let clauseRange = Range(match.range(at: 3), in: result)
            else { continue }
            result.replaceSubrange(result.index(before: clauseRange.lowerBound)..<clauseRange.upperBound, with: "")
            pending.append(Pending(table: table, column: column, clause: clause, target: target))
        }
        return result
    }

    /// Follows a table rename in the pending references.
    mutating func follow(_ sql: String) {
        guard sql.hasPrefix("ALTER TABLE"), let match = Self.rename.firstMatch(in: sql, range: NSRange(sql.startIndex..., in: sql)),
            let from = Self.group(match, 1, in: sql).map(Self.unquote), let to = Self.group(match, 2, in: sql).map(Self.unquote)
        else { return }
        for i in pending.indices {
            if pending[i].table == from { pending[i].table = to }
            if pending[i].target == from { pending[i].target = to }
        }
    }

    /// The statements that add the pending references whose target now exists, removed from the list.
    mutating func ready(exists: (String) throws -> Bool) rethrows -> [String] {
        var statements: [String] = []
        var waiting: [Pending] = []
        let q = PostgresDialect.shared.quote
        for reference in pending {
            if try exists(reference.target) {
                statements.append("ALTER TABLE \(q(reference.table)) ADD FOREIGN KEY (\(q(reference.column))) \(reference.clause)")
            } else {
                waiting.append(reference)
            }
        }
        pending = waiting
        return statements
    }
}
