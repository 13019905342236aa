import Foundation
import Molt
import PostgresNIO

/// A statement of ``PostgresStoreConnection``: bound arguments, then the rows of its one run, read through
/// ``PostgresValueCodec``.
///
/// The statement runs at the first ``step()`` after binding and keeps its rows until reset: the core's queries
/// are bounded (a batch of a stage, a page, a lookup) or return what the caller collects anyway.
final class PostgresStatement: SQLStatement {
    let sql: String
    /// What the statement does, as the core said.
    let kind: SQLStatementKind
    private let link: PostgresLink
    private var arguments: [Value] = []
    private var rows: [PostgresRow] = []
    private var index = -1
    private var hasRun = false
    private var current: PostgresRandomAccessRow?
    /// The shape of a keyed update, which ``step()`` queues (see ``PostgresUpdateQueue``).
    private let keyedUpdate: PostgresUpdateQueue.Shape?

    init(sql: String, kind: SQLStatementKind, link: PostgresLink) {
        self.sql = sql
        self.kind = kind
        self.link = link
        if case .updateObject(let table, let columns) = kind {
            keyedUpdate = PostgresUpdateQueue.Shape(table: table, columns: columns)
        } else {
            keyedUpdate = nil
        }
    }

    func bind(_ arguments: [Value]) throws {
        reset()
        self.arguments = arguments
    }

    func bind(_ value: Value, at index: Int) throws {
        if arguments.count <= index { arguments += Array(repeating: .null, count: index + 1 - arguments.count) }
        arguments[index] = value
    }

    /// Runs the statement at its first call and moves to the next row of its result.
    ///
    /// A keyed update (``SQLStatementKind/updateObject(table:columns:)``: a custom stage writing an object) has no row to
    /// return, so it is queued and sent with the others of its batch before the session's next statement,
    /// rather than costing a round trip each (``PostgresUpdateQueue``).
    func step() throws -> Bool {
        if !hasRun {
            if let keyedUpdate {
                try link.queueUpdate(sql, keyedUpdate, arguments)
                rows = []
            } else {
                rows = try link.run(sql, arguments, kind: kind).rows
            }
            hasRun = true
            index = -1
        }
        index += 1
        guard index < rows.count else {
            current = nil
            return false
        }
        current = rows[index].makeRandomAccess()
        return true
    }

    func reset() {
        hasRun = false
        rows = []
        current = nil
        index = -1
    }

    @discardableResult
    func execute(_ arguments: [Value]) throws -> Int {
        reset()
        // No arguments: the values bound one by one (`bind(_:at:)`, as typed writes do), as SQLite runs them.
        if !arguments.isEmpty { self.arguments = arguments }
        return try link.run(sql, self.arguments, kind: kind).count
    }

    func insert(_ arguments: [Value]) throws -> Int64 {
        reset()
        if !arguments.isEmpty { self.arguments = arguments }
        let returning = " RETURNING \(PostgresDialect.shared.quote(StoreLayout.idColumn))"
        let rows = try link.run(sql + returning, self.arguments, kind: kind).rows
        guard let row = rows.first, case .int(let id) = PostgresValueCodec.stored(row.makeRandomAccess()[0]) else {
            throw MoltError(.ioError, "PostgreSQL returned no identifier for the inserted row.", sql: sql)
        }
        // An insert that gave the identifier itself (an import that keeps identifiers): the identity sequence
        // must then move past it.
        if case .insert(let table, explicitID: true) = kind { link.noteExplicitID(id, in: table) }
        return id
    }

    func insertOrUpdate() throws -> Int64? {
        try insert([])
    }

    // MARK: - Reading

    private func cell(_ column: Int) -> PostgresCell { current![column] }

    func isNull(_ column: Int) -> Bool { current?[column].bytes == nil }

    func int64(_ column: Int) -> Int64 {
        switch PostgresValueCodec.stored(cell(column)) {
        case .int(let v): return v
        case .double(let v): return Int64(exactly: v) ?? 0
        case .bool(let v): return v ? 1 : 0
        case .text(let v): return Int64(v) ?? 0
        default: return 0
        }
    }

    func double(_ column: Int) -> Double {
        switch PostgresValueCodec.stored(cell(column)) {
        case .int(let v): return Double(v)
        case .double(let v): return v
        case .text(let v): return Double(v) ?? 0
        default: return 0
        }
    }

    func text(_ column: Int) -> String {
        switch PostgresValueCodec.rawValue(cell(column)) {
        case .string(let v): return v
        case .int(let v): return String(v)
        case .double(let v): return ValueConversion.text(double: v)
        default: return ""
        }
    }

    func data(_ column: Int) -> Data {
        if case .bytes(let v) = PostgresValueCodec.stored(cell(column)) { return v }
        return Data(text(column).utf8)
    }

    func value(_ column: Int, as type: AttributeType) -> Value? { PostgresValueCodec.value(cell(column), as: type) }

    func rawValue(_ column: Int) -> Value { PostgresValueCodec.rawValue(cell(column)) }

    func describe(_ column: Int) -> String { PostgresValueCodec.describe(cell(column)) }
}
