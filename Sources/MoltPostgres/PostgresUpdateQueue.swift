import Foundation
import Molt
import PostgresNIO

/// The keyed updates a custom stage writes (`UPDATE "T" SET "a" = ?, … WHERE "_id" = ?`, one per object, run by
/// ``PostgresStatement/step()``), queued and sent as one statement: on a server, a round trip per object would
/// cost more than the update itself (a stage over 1M people: 1M round trips).
///
/// The queue is sent before any other statement runs on the session (``PostgresLink/run(_:_:context:)``), so
/// every read, check and commit sees the updates in order, as if each had run at once; `ROLLBACK` and closing
/// drop it. Sent as
/// `UPDATE "T" AS t SET "a" = v.c1::type, … FROM unnest($1::bigint[], $2::text[], …) AS v(k, c1, …) WHERE t."_id" = v.k`:
/// one array per column, each value as the text it is bound as elsewhere (``PostgresValueCodec/text(of:)``),
/// cast to its column's type. The statement's text is the same for every batch of a stage and has one parameter
/// per column, where a `VALUES` list would have one per value to parse and plan. An update of an object already
/// queued sends the queue first, so the last write wins as it would one by one. An error (a constraint, a value
/// the column refuses) is thrown by the statement that sends the queue, which rolls the whole run back like any
/// error in a migration.
struct PostgresUpdateQueue {
    /// The statement's shape: the table and the assigned columns, quoted as in its SQL.
    struct Shape: Hashable {
        var table: String
        var columns: [String]

        /// The shape of `UPDATE "T" SET "a" = ?, "b" = ? WHERE "_id" = ?`, from the unquoted table and columns
        /// its ``SQLStatementKind/updateObject(table:columns:)`` names; nil when it sets no column.
        init?(table: String, columns: [String]) {
            guard !columns.isEmpty else { return nil }
            let q = PostgresDialect.shared.quote
            self.table = q(table)
            self.columns = columns.map(q)
        }

        /// The shape of a table's columns, named already quoted (an insert's, as `insertBatched` gets them).
        init(quotedTable table: String, quotedColumns columns: [String]) {
            self.table = table
            self.columns = columns
        }
    }

    /// The most updates one statement sends.
    static let maximumUpdates = 16_384
    /// The most bytes of values one statement sends: past it, the queue is sent before it grows further.
    static let maximumBytes = 32 << 20

    let shape: Shape
    /// The SQL type of each assigned column (`format_type`), for the casts.
    let types: [String]
    /// The array literal of each column, identifiers first, without its closing brace.
    private var arrays: [String]
    private var ids: Set<Int64> = []
    private var bytes = 0

    init(shape: Shape, types: [String]) {
        self.shape = shape
        self.types = types
        arrays = Array(repeating: "{", count: shape.columns.count + 1)
    }

    var isEmpty: Bool { ids.isEmpty }
    /// The updates queued.
    var count: Int { ids.count }

    /// Whether the update of `id` can join the queue: same statement, object not queued yet, room left.
    func accepts(_ shape: Shape, id: Int64) -> Bool {
        shape == self.shape && !ids.contains(id) && ids.count < Self.maximumUpdates && bytes < Self.maximumBytes
    }

    /// Queues one update: `arguments` are the statement's, the assigned values then the identifier `id`.
    ///
    /// - Throws: ``MoltError/Code/invalidValue`` for a value PostgreSQL cannot store (NaN, text with NUL),
    ///   before anything is queued.
    mutating func append(_ arguments: [Value], id: Int64) throws {
        let texts = try arguments.dropLast().map(PostgresValueCodec.text(of:))
        let separator = ids.isEmpty ? "" : ","
        ids.insert(id)
        arrays[0] += separator + String(id)
        for (column, text) in texts.enumerated() {
            arrays[column + 1] += separator
            guard let text else {
                arrays[column + 1] += "NULL"
                continue
            }
            Self.appendElement(text, to: &arrays[column + 1])
            bytes += text.utf8.count + 3
        }
    }

    /// An array element in double quotes, its backslashes and double quotes escaped, as `array_in` reads it.
    static func appendElement(_ text: String, to literal: inout String) {
        literal += "\""
        if text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            for character in text.unicodeScalars {
                if character == "\"" || character == "\\" { literal.unicodeScalars.append("\\") }
                literal.unicodeScalars.append(character)
            }
        } else {
            literal += text
        }
        literal += "\""
    }

    /// The statement that runs the queue: `$1` the identifiers, `$2`… the columns' values, as ``arguments``.
    var sql: String {
        let assignments = shape.columns.indices.map { "\(shape.columns[$0]) = v.c\($0 + 1)::\(types[$0])" }.joined(
            separator: ", ")
        let arrays = (["$1::bigint[]"] + shape.columns.indices.map { "$\($0 + 2)::text[]" }).joined(separator: ", ")
        let names = (["k"] + shape.columns.indices.map { "c\($0 + 1)" }).joined(separator: ", ")
        let id = "\"\(StoreLayout.idColumn)\""
        return "UPDATE \(shape.table) AS t SET \(assignments) FROM unnest(\(arrays)) AS v(\(names)) WHERE t.\(id) = v.k"
    }

    /// The statement's arguments: one array literal per column, identifiers first.
    var arguments: [String] { arrays.map { $0 + "}" } }
}
