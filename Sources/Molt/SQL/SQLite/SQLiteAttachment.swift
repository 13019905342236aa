import Foundation
import GRDB

extension SQLiteDatabase {
    /// Runs `body` with the database file at `path` attached to the store's connection as `name`, so that one
    /// statement can read it and write the store (an adoption's `INSERT … SELECT`); detached afterwards. SQLite
    /// refuses `ATTACH` and `DETACH` inside a transaction: `body` runs ``exclusive(_:)``.
    package func attaching(_ path: String, as name: String, _ body: () throws -> Void) throws {
        let schema = SQLiteDialect.shared.quote(name)
        do {
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS \(schema)", arguments: [path])
            }
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, .file(path))
        }
        defer { try? queue.writeWithoutTransaction { db in try db.execute(sql: "DETACH DATABASE \(schema)") } }
        try body()
    }
}
