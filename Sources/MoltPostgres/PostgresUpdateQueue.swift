import Molt
import PostgresNIO

/// The keyed updates a custom stage writes (`UPDATE "T" SET "a" = ?, … WHERE "_id" = ?`, one per object, run by
/// ``PostgresStatement/step()``), queued and sent as one statement: on a server, a round trip per object would
/// cost more than the update itself (a stage over 1M people: 1M round trips).
///
/// The queue is sent before any other statement runs on the session (``PostgresLink/run(_:_:context:)``), so
/// every read, check and commit sees the updates in order, as if each had run at once; `ROLLBACK` and closing
/// drop it. Sent as
/// `UPDATE "T" AS t SET "a" = v.c1, … FROM (VALUES ($1::bigint, $2::type, …), …) AS v(k, c1, …) WHERE t."_id" = v.k`,
/// each value cast to its column's type (Molt binds values untyped). An update of an object already queued
/// sends the queue first, so the last write wins as it would one by one. An error (a constraint, a value the
/// column refuses) is thrown by the statement that sends the queue, which rolls the whole run back like any
/// error in a migration.
struct PostgresUpdateQueue {
    /// The statement's shape: the table and the assigned columns, quoted as in its SQL.
    struct Shape: Equatable {
        var table: String
        var columns: [String]

        /// The shape of `UPDATE "T" SET "a" = ?, "b" = ? WHERE "_id" = ?`, or nil for any other statement.
        init?(_ sql: String) {
            let suffix = " WHERE \"\(StoreLayout.idColumn)\" = ?"
            guard sql.hasPrefix("UPDATE \""), sql.hasSuffix(suffix), let set = sql.range(of: "\" SET \"") else { return nil }
            let table = String(sql[sql.index(sql.startIndex, offsetBy: 7)..<sql.index(after: set.lowerBound)])
            let assignments = sql[sql.index(before: set.upperBound)..<sql.index(sql.endIndex, offsetBy: -suffix.count)]
            guard assignments.hasSuffix(" = ?") else { return nil }
            let columns = assignments.dropLast(4).components(separatedBy: " = ?, ")
            guard Self.isQuoted(table), columns.allSatisfy(Self.isQuoted) else { return nil }
            self.table = table
            self.columns = columns
        }

        /// A quoted identifier with no quote, placeholder or separator inside: nothing else is queued.
        private static func isQuoted(_ name: String) -> Bool {
            name.count >= 3 && name.hasPrefix("\"") && name.hasSuffix("\"")
                && !name.dropFirst().dropLast().contains { $0 == "\"" || $0 == "?" || $0 == "," }
        }
    }

    /// The most values one statement binds (PostgreSQL allows 65,535 parameters).
    static let maximumParameters = 32_768

    let shape: Shape
    /// The SQL type of each assigned column (`format_type`), for the casts.
    let types: [String]
    private(set) var arguments: [Value] = []
    private var ids: Set<Int64> = []

    init(shape: Shape, types: [String]) {
        self.shape = shape
        self.types = types
    }

    var isEmpty: Bool { ids.isEmpty }
    /// The updates queued.
    var count: Int { ids.count }

    /// Whether the update of `id` can join the queue: same statement, object not queued yet, room left.
    func accepts(_ shape: Shape, id: Int64) -> Bool {
        shape == self.shape && !ids.contains(id) && arguments.count + shape.columns.count + 1 <= Self.maximumParameters
    }

    /// Queues one update: `arguments` are the statement's, the assigned values then the identifier `id`.
    mutating func append(_ arguments: [Value], id: Int64) {
        ids.insert(id)
        self.arguments.append(.int(id))
        self.arguments.append(contentsOf: arguments.dropLast())
    }

    /// The one statement that runs the queue, with `$n` placeholders for ``arguments``.
    var sql: String {
        let width = shape.columns.count + 1
        let casts = ["bigint"] + types
        var rows: [String] = []
        rows.reserveCapacity(ids.count)
        var n = 0
        for _ in 0..<(arguments.count / width) {
            var row: [String] = []
            for cast in casts {
                n += 1
                row.append("$\(n)::\(cast)")
            }
            rows.append("(\(row.joined(separator: ", ")))")
        }
        let assignments = shape.columns.indices.map { "\(shape.columns[$0]) = v.c\($0 + 1)" }.joined(separator: ", ")
        let names = (["k"] + shape.columns.indices.map { "c\($0 + 1)" }).joined(separator: ", ")
        let id = "\"\(StoreLayout.idColumn)\""
        return "UPDATE \(shape.table) AS t SET \(assignments) FROM (VALUES \(rows.joined(separator: ", "))) AS v(\(names)) WHERE t.\(id) = v.k"
    }
}
