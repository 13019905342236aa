import Foundation

/// What a Molt store records about itself in its `_molt_metadata` table, and its migration history in
/// `_molt_history`.
///
/// Every value is read by code that throws: a damaged or hand-edited table is reported as
/// ``MoltError/Code/corruptStore``, naming the table, the key or column, and the fix.
struct StoreMetadata {
    /// The version of Molt's file format that this Molt writes. A later Molt upgrades older formats in place,
    /// without touching the application's schema version.
    static let currentFormatVersion = 1
    /// `PRAGMA application_id` of SQLite Molt stores: "MOLT".
    static let applicationID: Int32 = 0x4D4F_4C54
    static let table = "_molt_metadata"
    static let historyTable = "_molt_history"

    var formatVersion: Int
    var schema: Schema
    var schemaHash: String

    private static func damaged(_ what: String) -> MoltError {
        MoltError(
            .corruptStore,
            "The store's \(what); the file was damaged or edited by hand. Restore it from a backup.")
    }

    /// Reads the metadata, or nil when the database has no Molt metadata table.
    static func read(_ db: any SQLConnection) throws -> StoreMetadata? {
        guard try db.tableExists(table) else { return nil }
        return try readTable(db)
    }

    /// What an opening reads first, in one transaction and with one look for the table: whether the store records
    /// exactly `schema` (``records(_:hash:in:)``; its snapshot is then not decoded), and otherwise its metadata
    /// (nil: the database has no Molt metadata table).
    static func opening(
        _ schema: Schema, hash: String, in db: any SQLConnection
    ) throws -> (upToDate: Bool, metadata: StoreMetadata?) {
        guard try db.tableExists(table) else { return (false, nil) }
        if try recordsKeys(schema, hash: hash, in: db) { return (true, nil) }
        return (false, try readTable(db))
    }

    /// The metadata again, in the exclusive transaction an opening waited for: `known` (what the opening read
    /// before it waited) when the three keys still say the same, so that the snapshot is neither read nor decoded
    /// twice; otherwise read whole, since another opener may have migrated, reset or removed the store meanwhile.
    static func reread(_ db: any SQLConnection, known: StoreMetadata?) throws -> StoreMetadata? {
        guard let known else { return try read(db) }
        let found = try values(of: ["formatVersion", "schemaVersion", "schemaHash"], in: db)
        if found["formatVersion"] == String(known.formatVersion),
            found["schemaVersion"] == String(known.schema.version),
            found["schemaHash"] == known.schemaHash
        {
            return known
        }
        return try read(db)
    }

    /// The metadata of a store whose metadata table exists.
    private static func readTable(_ db: any SQLConnection) throws -> StoreMetadata {
        let rows = try db.fetchRows("SELECT key, value FROM \(db.dialect.quote(table))", types: [nil, nil])
        var values: [String: String] = [:]
        for row in rows {
            guard case .string(let key) = row[0] else {
                throw damaged("table \(table) has a key that is not text (\(row[0]))")
            }
            guard case .string(let value) = row[1] else {
                throw damaged("table \(table) holds \(row[1]) for '\(key)', where Molt writes text")
            }
            values[key] = value
        }
        guard let formatText = values["formatVersion"], let json = values["schema"], let hash = values["schemaHash"]
        else {
            throw damaged("metadata table is incomplete (it lacks the format version, the schema or its hash)")
        }
        guard let format = Int(formatText), format >= 1 else {
            throw damaged(
                "metadata table \(table) gives '\(formatText.prefix(40))' as the file format, which is not a format number"
            )
        }
        guard format <= currentFormatVersion else {
            throw MoltError(
                .unsupportedFormat,
                "The store uses Molt file format \(format), but this Molt reads format \(currentFormatVersion) at most; it was written by a newer Molt. Update Molt; nothing was written."
            )
        }
        if let known = lastDecoded.withLock({ $0 }), known.json == json {
            return StoreMetadata(formatVersion: format, schema: known.schema, schemaHash: hash)
        }
        let schema: Schema
        do {
            schema = try Schema(unvalidatedSnapshotJSON: Data(json.utf8))
        } catch let error as MoltError {
            throw damaged("recorded schema (table \(table), key 'schema') cannot be read: \(error.message)")
        }
        lastDecoded.withLock { $0 = (json, schema) }
        return StoreMetadata(formatVersion: format, schema: schema, schemaHash: hash)
    }

    /// The last recorded schema this process decoded, with its JSON: a process that looks at a store and then
    /// opens it (`molt migrate`: the read-only look, then `Store.open`) decodes the snapshot once. Decoding is a
    /// pure function of the text, so an equal text gives an equal schema.
    private static let lastDecoded = LockedValue<(json: String, schema: Schema)?>(nil)

    /// Whether the store records exactly `schema` (its version and content hash) in this Molt's file format, read
    /// from three keys without decoding the recorded schema: an up-to-date store opens without parsing its
    /// snapshot.
    static func records(_ schema: Schema, hash: String, in db: any SQLConnection) throws -> Bool {
        guard try db.tableExists(table) else { return false }
        return try recordsKeys(schema, hash: hash, in: db)
    }

    private static func recordsKeys(_ schema: Schema, hash: String, in db: any SQLConnection) throws -> Bool {
        let found = try values(of: ["formatVersion", "schemaVersion", "schemaHash"], in: db)
        return found["formatVersion"] == String(currentFormatVersion)
            && found["schemaVersion"] == String(schema.version)
            && found["schemaHash"] == hash
    }

    /// The recorded value of one key, or nil, by one cached statement whose key is bound rather than written into
    /// its SQL: the check of each observed read, which runs after every commit while observations are active.
    static func value(of key: String, in db: any SQLConnection) throws -> String? {
        let statement = try db.cachedStatement(.read, "SELECT value FROM \(db.dialect.quote(table)) WHERE key = ?")
        try statement.bind([.string(key)])
        defer { statement.reset() }
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.text(0)
    }

    /// The recorded values of `keys` (a key with no value or a null one is absent), by one cached statement:
    /// the cheap checks of an opening and of each read of a read-only store.
    static func values(of keys: [String], in db: any SQLConnection) throws -> [String: String] {
        let list = keys.map { db.dialect.literal(.string($0)) }.joined(separator: ", ")
        let statement = try db.cachedStatement(
            .read, "SELECT key, value FROM \(db.dialect.quote(table)) WHERE key IN (\(list))")
        defer { statement.reset() }
        var found: [String: String] = [:]
        while try statement.step() {
            guard !statement.isNull(0), !statement.isNull(1) else { continue }
            found[statement.text(0)] = statement.text(1)
        }
        return found
    }

    /// Creates the metadata tables, in the engine's types (the history's `id` is assigned by the engine).
    static func create(_ db: any SQLConnection) throws {
        let d = db.dialect
        let (text, integer, real) = (d.columnType(.string), d.columnType(.int), d.columnType(.double))
        try db.execute(
            .create, "CREATE TABLE \(d.quote(table)) (key \(text) PRIMARY KEY NOT NULL, value \(text) NOT NULL)")
        try db.execute(
            .create,
            """
            CREATE TABLE \(d.quote(historyTable)) (
                \(d.identifierColumn("id")), fromVersion \(integer) NOT NULL, toVersion \(integer) NOT NULL,
                startedAt \(real) NOT NULL, duration \(real) NOT NULL, objectsTouched \(integer) NOT NULL, steps \(text) NOT NULL,
                details \(text))
            """)
        try db.stampApplicationID(applicationID)
    }

    /// Records `schema` as the store's schema.
    static func write(_ schema: Schema, in db: any SQLConnection) throws {
        let json = String(decoding: try schema.snapshotJSON(), as: UTF8.self)
        let values: [(String, String)] = [
            ("formatVersion", String(currentFormatVersion)), ("schemaVersion", String(schema.version)),
            ("schemaHash", schema.contentHash), ("schema", json),
        ]
        // One statement (an upsert, in both engines' syntax) rather than a delete and an insert per key.
        let rows = Array(repeating: "(?, ?)", count: values.count).joined(separator: ", ")
        try db.execute(
            .bookkeeping,
            "INSERT INTO \(db.dialect.quote(table)) (key, value) VALUES \(rows) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            values.flatMap { [Value.string($0.0), .string($0.1)] })
        try db.stampSchemaVersion(schema.version)
    }

    /// Appends a run to the history, with its step records as JSON in `details` (a column added to the
    /// history tables of stores created before it; earlier Molts ignore it). Those are SQLite files: every
    /// PostgreSQL store was created with the column, and is not asked (a catalog query, ~1 ms a migration).
    static func append(_ record: MigrationRecord, in db: any SQLConnection) throws {
        let q = db.dialect.quote
        if db.mayPredateCurrentFormat, try !hasDetails(db) {
            try db.execute(.alter, "ALTER TABLE \(q(historyTable)) ADD COLUMN details TEXT")
        }
        let details = String(decoding: try JSONEncoder().encode(record.stepRecords), as: UTF8.self)
        try db.execute(
            .bookkeeping,
            "INSERT INTO \(q(historyTable)) (fromVersion, toVersion, startedAt, duration, objectsTouched, steps, details) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .int(Int64(record.fromVersion)), .int(Int64(record.toVersion)),
                .double(record.startedAt.timeIntervalSince1970),
                .double(record.duration), .int(Int64(record.objectsTouched)),
                .string(record.steps.joined(separator: "\n")),
                .string(details),
            ])
    }

    private static func hasDetails(_ db: any SQLConnection) throws -> Bool {
        try db.columnNames(in: historyTable).contains("details")
    }

    /// The recorded runs, oldest first: all of them, or the one numbered `id`.
    static func history(_ db: any SQLConnection, id: Int64? = nil) throws -> [MigrationRecord] {
        guard try db.tableExists(historyTable) else { return [] }
        let details = try hasDetails(db) ? "details" : "NULL"
        let columns = "id, fromVersion, toVersion, startedAt, duration, objectsTouched, steps, \(details)"
        let table = db.dialect.quote(historyTable)
        let sql =
            id.map { "SELECT \(columns) FROM \(table) WHERE id = \($0)" }
            ?? "SELECT \(columns) FROM \(table) ORDER BY id"
        let rows = try db.fetchRows(sql, types: [.int, .int, .int, .double, .double, .int, .string, .string])
        return try rows.map(record)
    }

    /// Refuses a history that could not be read back, before a run appends to it.
    ///
    /// On SQLite one statement finds the rows whose columns are not what Molt writes (a type, a number that is
    /// not finite, `details` that is not a JSON array), and only those are decoded, for the message: decoding
    /// every run's step records was ~2 ms of a small `molt migrate`, the first use of the decoder for their types.
    /// A JSON array whose elements are not step records passes here, and is refused by the first read of the
    /// history. PostgreSQL's text cannot be tested as JSON without an error, so its rows are all decoded.
    static func checkHistory(_ db: any SQLConnection) throws {
        guard db.dialect.engine == .sqlite else {
            _ = try history(db)
            return
        }
        guard try db.tableExists(historyTable) else { return }
        let details =
            try hasDetails(db)
            ? "(details IS NULL OR (typeof(details) = 'text' AND json_valid(details) AND json_type(details) = 'array'))"
            : "1"
        func finite(_ column: String) -> String {
            "typeof(\(column)) = 'real' AND \(column) BETWEEN -1.7976931348623157e308 AND 1.7976931348623157e308"
        }
        let suspicious = try db.fetchInts(
            """
            SELECT id FROM \(db.dialect.quote(historyTable)) WHERE NOT (typeof(fromVersion) = 'integer'
            AND typeof(toVersion) = 'integer' AND \(finite("startedAt")) AND \(finite("duration"))
            AND typeof(objectsTouched) = 'integer' AND typeof(steps) = 'text' AND \(details)) ORDER BY id
            """)
        for id in suspicious { _ = try history(db, id: id) }
    }

    private static func record(_ row: [Value]) throws -> MigrationRecord {
        let columns = ["id", "fromVersion", "toVersion", "startedAt", "duration", "objectsTouched", "steps", "details"]
        func wrong(_ i: Int, _ expected: String) -> MoltError {
            damaged(
                "history table \(historyTable) holds \(row[i]) in column '\(columns[i])' (row \(row[0])), where Molt writes \(expected)"
            )
        }
        func integer(_ i: Int) throws -> Int {
            guard case .int(let v) = row[i], let value = Int(exactly: v) else { throw wrong(i, "an integer") }
            return value
        }
        func real(_ i: Int) throws -> Double {
            guard case .double(let v) = row[i], v.isFinite else { throw wrong(i, "a number") }
            return v
        }
        guard case .string(let steps) = row[6] else { throw wrong(6, "text") }
        var stepRecords: [MigrationStepRecord] = []
        switch row[7] {
        case .null: break
        case .string(let json):
            guard let decoded = try? JSONDecoder().decode([MigrationStepRecord].self, from: Data(json.utf8)) else {
                throw wrong(7, "the JSON of its step records")
            }
            stepRecords = decoded
        default: throw wrong(7, "text")
        }
        return MigrationRecord(
            fromVersion: try integer(1), toVersion: try integer(2), startedAt: Date(timeIntervalSince1970: try real(3)),
            duration: try real(4), steps: steps.isEmpty ? [] : steps.components(separatedBy: "\n"),
            stepRecords: stepRecords,
            objectsTouched: try integer(5))
    }
}

extension Store {
    /// The tables Molt keeps in every store beside the entities' (metadata and history).
    package static var ownTables: [String] { [StoreMetadata.table, StoreMetadata.historyTable] }
}

extension Store {
    /// Whether an SQLite file whose header stamps `applicationID` (`PRAGMA application_id`) is a Molt store
    /// ("MOLT"): how code outside the core tells one without naming Molt's format.
    package static func isMoltFile(applicationID: UInt32) -> Bool {
        applicationID == UInt32(bitPattern: StoreMetadata.applicationID)
    }

    /// Whether an SQLite file whose tables are `tables` is a Molt store (one of an earlier Molt stamps nothing).
    package static func isMoltFile(tables: some Collection<String>) -> Bool { tables.contains(StoreMetadata.table) }
}
