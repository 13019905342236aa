import Molt
import PostgresNIO

/// Rows an import inserts into one table (``PostgresStoreConnection/insertBatched(into:columns:values:)``),
/// queued and sent as one statement: a round trip per object made `molt import` of 100k objects take 23 s where
/// `psql \copy` took 0.2 s.
///
/// Sent as `INSERT INTO "T" ("a", …) SELECT v.c1::type, … FROM unnest($1::text[], …) AS v(c1, …)`: one array
/// per column, each value as the text it is bound as elsewhere (``PostgresValueCodec/text(of:)``), cast to its
/// column's type, as ``PostgresUpdateQueue`` sends updates. The queue is sent before any other statement runs on
/// the session, so every later statement sees the rows; a rollback drops it. A failure (an `_id` given twice, a
/// value the column refuses) is thrown by the statement that sends the queue, and rolls the whole import back.
struct PostgresInsertQueue {
    /// The most rows one statement sends.
    static let maximumRows = 8_192
    /// The most bytes of values one statement sends.
    static let maximumBytes = 16 << 20

    /// The table's name, unquoted, as ``SQLStatementKind/insert(into:explicitID:)`` names it (its identity
    /// sequence is advanced past ``largestID``).
    let table: String
    /// The table and its columns, quoted.
    let shape: PostgresUpdateQueue.Shape
    /// The SQL type of each column (`format_type`), for the casts.
    let types: [String]
    private var arrays: [String]
    private(set) var count = 0
    private var bytes = 0
    /// The largest `_id` given, when the first column is `_id`: the identity sequence must pass it.
    private(set) var largestID: Int64?

    init(table: String, shape: PostgresUpdateQueue.Shape, types: [String]) {
        self.table = table
        self.shape = shape
        self.types = types
        arrays = Array(repeating: "{", count: shape.columns.count)
    }

    /// Whether a row of `shape` can join the queue.
    func accepts(_ shape: PostgresUpdateQueue.Shape) -> Bool {
        shape == self.shape && count < Self.maximumRows && bytes < Self.maximumBytes
    }

    /// Queues one row, its values in the order of the shape's columns.
    ///
    /// - Throws: ``MoltError/Code/invalidValue`` for a value PostgreSQL cannot store (NaN, text with NUL),
    ///   before anything is queued.
    mutating func append(_ values: [Value]) throws {
        let texts = try values.map(PostgresValueCodec.text(of:))
        if shape.columns.first == "\"\(StoreLayout.idColumn)\"", case .int(let id) = values.first {
            largestID = max(largestID ?? id, id)
        }
        let separator = count == 0 ? "" : ","
        count += 1
        for (column, text) in texts.enumerated() {
            arrays[column] += separator
            guard let text else {
                arrays[column] += "NULL"
                continue
            }
            PostgresUpdateQueue.appendElement(text, to: &arrays[column])
            bytes += text.utf8.count + 3
        }
    }

    /// The statement that inserts the queued rows, its arguments being ``arguments``.
    var sql: String {
        let names = shape.columns.indices.map { "c\($0 + 1)" }
        let casts = shape.columns.indices.map { "v.c\($0 + 1)::\(types[$0])" }.joined(separator: ", ")
        let arrays = shape.columns.indices.map { "$\($0 + 1)::text[]" }.joined(separator: ", ")
        return
            "INSERT INTO \(shape.table) (\(shape.columns.joined(separator: ", "))) SELECT \(casts) FROM unnest(\(arrays)) AS v(\(names.joined(separator: ", ")))"
    }

    /// One array literal per column.
    var arguments: [String] { arrays.map { $0 + "}" } }
}
