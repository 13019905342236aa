import Foundation
import GRDBSQLite

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
        let id = SchemaSQL.quote(SchemaSQL.idColumn)
        let insertColumns = columns + fillers.map { SchemaSQL.quote($0.column) }
        let marks = columns.map { _ in "?" } + fillers.map(\.literal)
        insert = insertColumns.isEmpty
            ? "INSERT INTO \(table) DEFAULT VALUES"
            : "INSERT INTO \(table) (\(insertColumns.joined(separator: ", "))) VALUES (\(marks.joined(separator: ", ")))"
        update = columns.isEmpty
            ? "UPDATE \(table) SET \(id) = \(id) WHERE \(id) = ?"
            : "UPDATE \(table) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE \(id) = ?"
        select = "SELECT \(([id] + columns).joined(separator: ", ")) FROM \(table)"
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cache: [ObjectIdentifier: TypedSQL] = [:]

    /// The SQL of a model type in a layout; built once per type for a store's own layout.
    static func of<M: PersistentModel>(_ type: M.Type, in layout: StoreLayout) -> TypedSQL {
        let name = M.entity.name
        if let entity = layout.entities[name],
            entity.table != name || !entity.fillers.isEmpty || !entity.columns.allSatisfy({ $0.key == $0.value })
        {
            return TypedSQL(M.entity, layout: layout)
        }
        let key = ObjectIdentifier(type)
        lock.lock()
        defer { lock.unlock() }
        if let cached = cache[key] { return cached }
        let sql = TypedSQL(M.entity, layout: layout)
        cache[key] = sql
        return sql
    }

    /// Steps a statement that returns no row, mapping a failure to ``MoltError`` like ``Store`` does.
    static func execute(_ statement: OpaquePointer) throws {
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(statement)))
            sqlite3_reset(statement)
            throw error(code: code, message: message)
        }
        sqlite3_reset(statement)
    }

    static func error(code: Int32, message: String) -> MoltError {
        switch code & 0xFF {
        case SQLITE_CONSTRAINT:
            return MoltError(.constraintViolation, "A constraint was violated: \(message).", underlying: message)
        case SQLITE_FULL:
            return MoltError(.ioError, "The disk is full; the transaction was rolled back. Free some space and try again.", underlying: message)
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            return MoltError(.corruptStore, "The store is damaged: \(message). Restore it from a backup.", underlying: message)
        default:
            return MoltError(.ioError, "SQLite failed: \(message).", underlying: message)
        }
    }
}
