import GRDB

extension SQLiteConnection {
    /// SQLite's `quick_check` of the pages of `tables` (every page when nil).
    func pageProblems(in tables: [String]?) throws -> [String] {
        try SQLiteDatabase.check(db, full: false, tables: tables)
    }

    var pageCheckName: String { "SQLite's quick_check" }

    func stampApplicationID(_ id: Int32) throws { try execute(.read, "PRAGMA application_id = \(id)") }

    func stampSchemaVersion(_ version: Int) throws {
        try execute(.read, "PRAGMA user_version = \(Int32(clamping: version))")
    }

    /// SQLite files may come from any earlier Molt.
    var mayPredateCurrentFormat: Bool { true }

    func copyRows(
        _ copy: RowCopy, layout: StoreLayout, schema: Schema,
        finishing: ([(entity: String, relationship: String)]) throws -> Void
    ) throws -> RowCopy.Outcome? {
        do {
            return try SQLiteRowCopy(copy: copy, layout: layout, schema: schema).run(db, finishing: finishing)
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, context, connection: db.sqliteConnection)
        }
    }
}
