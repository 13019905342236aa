import Foundation
import GRDB
import GRDBSQLite
import Molt

/// The store of the custom-stage scenarios (issue 3): N people with a first and a last name, made with Molt
/// at version 1. Version 2 adds an optional `fullName` (no NOT NULL, so no table rebuild), which a stage
/// computes as `firstName + " " + lastName`.
///
/// The hand-written baselines live here too, so that every scenario times the same code.
enum People {
    static let v1 = Schema(version: 1) {
        Entity("Person") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
        }
    }

    static let v2 = Schema(version: 2) {
        Entity("Person") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("fullName", .string, isOptional: true)
        }
    }

    /// The `enumerateObjects` stage, written as a user would.
    static let enumeratePlan = try! MigrationPlan(
        schemas: [v1, v2],
        stages: [
            .custom(from: 1, to: 2) { migration in
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    new["fullName"] = .string((old["firstName"].string ?? "") + " " + (old["lastName"].string ?? ""))
                }
            }
        ])

    /// The same change as a SQL-expression mapping.
    static let mappingPlan = try! MigrationPlan(
        schemas: [v1, v2],
        stages: [
            .mapping(
                from: 1, to: 2,
                [EntityMapping(destination: "Person", attributes: ["fullName": "firstName || ' ' || lastName"])])
        ])

    static let addColumn = #"ALTER TABLE "Person" ADD COLUMN "fullName" TEXT"#
    static let select = #"SELECT "_id", "firstName", "lastName" FROM "Person""#
    static let update = #"UPDATE "Person" SET "fullName" = ? WHERE "_id" = ?"#
    static let updateAll = #"UPDATE "Person" SET "fullName" = "firstName" || ' ' || "lastName""#

    /// Creates a store of `rows` people at `url`: Molt creates the file, then one raw SQL transaction fills it
    /// with first names of 3 to 7 letters and last names of 15.
    static func create(rows: Int, at url: URL) throws {
        try Store.open(at: url, schema: v1).close()
        let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)
                    INSERT INTO Person (_id, firstName, lastName)
                    SELECT x, CASE x % 5 WHEN 0 THEN 'Ada' WHEN 1 THEN 'Grace' WHEN 2 THEN 'Alan' WHEN 3 THEN 'Barbara' ELSE 'Edsger' END,
                           printf('Lastname%07d', x)
                    FROM n
                    """, arguments: [rows])
        }
        try queue.close()
    }

    /// Checks that every person of the store at `url` has the right `fullName`, then that the table has the
    /// same shape as the first store checked (Molt's), so that the timings compare the same work.
    static func check(_ same: SameResult?) -> (URL) throws -> Void {
        { url in
            let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
            let wrong = try queue.read { db in
                try Int.fetchOne(
                    db, sql: #"SELECT COUNT(*) FROM "Person" WHERE "fullName" IS NOT "firstName" || ' ' || "lastName""#)
                    ?? -1
            }
            try queue.close()
            guard wrong == 0 else {
                throw BenchmarkError(description: "\(wrong) people have a wrong fullName at \(url.lastPathComponent)")
            }
            try same?.check(url)
        }
    }

    // MARK: - Jobs

    /// `Store.open` migrating with `plan`; closing the store (which checkpoints the WAL) is not timed.
    static func molt(count: Int, plan: MigrationPlan, check: @escaping (URL) throws -> Void) -> Runner.Job {
        Runner.Job(count: count) { url, stopwatch in
            let store = try stopwatch.time {
                try Store.open(at: url, schema: v2, options: Store.Options().migrating(with: plan))
            }
            try store.close()
            try check(url)
        }
    }

    /// The hand-written loop on the SQLite C API. It opens with the settings of Molt's migration connection
    /// (the file's WAL mode, SQLite's default `synchronous = FULL`, foreign keys on: see
    /// ``Fixture/configuration``), then runs in one immediate transaction `ALTER TABLE … ADD COLUMN`, a
    /// prepared SELECT over the whole table and a prepared `UPDATE … WHERE _id = ?` per row, binding a Swift
    /// string built from the two columns. Closing is not timed.
    static func rawLoop(count: Int, check: @escaping (URL) throws -> Void) -> Runner.Job {
        Runner.Job(count: count) { url, stopwatch in
            var connection: OpaquePointer?
            defer { sqlite3_close_v2(connection) }
            try stopwatch.time {
                guard
                    sqlite3_open_v2(url.path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
                        == SQLITE_OK,
                    let db = connection
                else { throw BenchmarkError(description: "cannot open \(url.path)") }
                try exec(db, "PRAGMA foreign_keys = ON")
                try exec(db, "BEGIN IMMEDIATE; \(addColumn)")
                var select: OpaquePointer?
                var update: OpaquePointer?
                defer { sqlite3_finalize(select); sqlite3_finalize(update) }
                guard sqlite3_prepare_v2(db, People.select, -1, &select, nil) == SQLITE_OK,
                    sqlite3_prepare_v2(db, People.update, -1, &update, nil) == SQLITE_OK
                else { throw failure(db) }
                while true {
                    let code = sqlite3_step(select)
                    if code == SQLITE_DONE { break }
                    guard code == SQLITE_ROW else { throw failure(db) }
                    let id = sqlite3_column_int64(select, 0)
                    let first = text(select, 1)
                    let last = text(select, 2)
                    var fullName = first + " " + last
                    fullName.withUTF8 { buffer in
                        _ = sqlite3_bind_text(
                            update, 1, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self),
                            Int32(buffer.count), transient)
                    }
                    sqlite3_bind_int64(update, 2, id)
                    guard sqlite3_step(update) == SQLITE_DONE else { throw failure(db) }
                    sqlite3_reset(update)
                }
                try exec(db, "COMMIT")
            }
            // Untimed: the loop must have run in the journal mode Molt migrates in.
            var statement: OpaquePointer?
            sqlite3_prepare_v2(connection, "PRAGMA journal_mode", -1, &statement, nil)
            let mode = sqlite3_step(statement) == SQLITE_ROW ? text(statement, 0) : "?"
            sqlite3_finalize(statement)
            guard mode == "wal" else {
                throw BenchmarkError(description: "the C loop ran in journal mode \(mode), not WAL")
            }
            sqlite3_close_v2(connection)
            connection = nil
            try check(url)
        }
    }

    /// The same loop written with GRDB's conveniences, opened with ``Fixture/configuration``: a row cursor,
    /// typed subscripts, a prepared statement executed with arguments. With `fetchingAllFirst`, the naive form
    /// that fetches every row into an array before updating (for the memory comparison).
    static func grdbLoop(
        count: Int, fetchingAllFirst: Bool = false, check: @escaping (URL) throws -> Void
    ) -> Runner.Job {
        Runner.Job(count: count) { url, stopwatch in
            let queue = try stopwatch.time { () throws -> DatabaseQueue in
                let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
                try queue.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        try db.execute(sql: addColumn)
                        let update = try db.makeStatement(sql: People.update)
                        func write(_ row: Row) throws {
                            let id: Int64 = row[0]
                            let first: String = row[1]
                            let last: String = row[2]
                            try update.execute(arguments: [first + " " + last, id])
                        }
                        if fetchingAllFirst {
                            for row in try Row.fetchAll(db, sql: select) { try write(row) }
                        } else {
                            let rows = try Row.fetchCursor(db, sql: select)
                            while let row = try rows.next() { try write(row) }
                        }
                        return .commit
                    }
                }
                return queue
            }
            try queue.close()
            try check(url)
        }
    }

    /// `ALTER TABLE … ADD COLUMN` then one `UPDATE … SET fullName = firstName || ' ' || lastName`, in one
    /// immediate transaction, through GRDB opened with ``Fixture/configuration`` (Molt's migration settings).
    static func sqlUpdate(count: Int, check: @escaping (URL) throws -> Void) -> Runner.Job {
        Runner.Job(count: count) { url, stopwatch in
            let queue = try stopwatch.time { () throws -> DatabaseQueue in
                let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
                try queue.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        try db.execute(sql: addColumn)
                        try db.execute(sql: updateAll)
                        return .commit
                    }
                }
                return queue
            }
            try queue.close()
            try check(url)
        }
    }

    // MARK: - SQLite C helpers

    nonisolated(unsafe) static let transient = unsafeBitCast(
        OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    static func text(_ statement: OpaquePointer?, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        return String(
            decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))),
            as: UTF8.self)
    }

    static func exec(_ db: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw failure(db) }
    }

    static func failure(_ db: OpaquePointer?) -> BenchmarkError {
        BenchmarkError(
            description: "SQLite: \(db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot open")")
    }
}

extension TemplateStores {
    /// Person stores (``People/create(rows:at:)``).
    static func people(_ runner: Runner) -> TemplateStores {
        TemplateStores(runner, name: "people") { try People.create(rows: $0, at: $1) }
    }

    /// The object counts of the custom-stage scenarios: a tenth of the large count (100,000 by default), and
    /// the large count (1,000,000).
    var counts: (small: Int, large: Int) { (max(runner.largeCount / 10, 1), runner.largeCount) }
}
