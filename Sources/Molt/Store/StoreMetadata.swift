import Foundation
import GRDB

/// What a Molt store records about itself in its `_molt_metadata` table.
struct StoreMetadata {
    /// The version of Molt's file format that this Molt writes. A later Molt upgrades older formats in place,
    /// without touching the application's schema version.
    static let currentFormatVersion = 1
    /// `PRAGMA application_id` of Molt stores: "MOLT".
    static let applicationID: Int32 = 0x4D4F_4C54
    static let table = "_molt_metadata"
    static let historyTable = "_molt_history"

    var formatVersion: Int
    var schema: Schema
    var schemaHash: String

    /// Reads the metadata, or nil when the database has no Molt metadata table.
    static func read(_ db: Database) throws -> StoreMetadata? {
        guard try db.tableExists(table) else { return nil }
        let pairs = try Row.fetchAll(db, sql: "SELECT key, value FROM \(table)")
        var values: [String: String] = [:]
        for row in pairs { values[row["key"]] = row["value"] }
        guard let format = values["formatVersion"].flatMap(Int.init), let json = values["schema"],
            let hash = values["schemaHash"]
        else {
            throw MoltError(
                .corruptStore,
                "The store's metadata table is incomplete (it lacks the format version, the schema or its hash); the file was damaged or edited by hand. Restore it from a backup.")
        }
        guard format <= currentFormatVersion else {
            throw MoltError(
                .unsupportedFormat,
                "The store uses Molt file format \(format), but this Molt reads format \(currentFormatVersion) at most; it was written by a newer Molt. Update Molt; nothing was written.")
        }
        let schema: Schema
        do {
            schema = try JSONDecoder().decode(Schema.self, from: Data(json.utf8))
        } catch {
            throw MoltError(
                .corruptStore,
                "The schema recorded in the store cannot be read (\(error)); the file was damaged or edited by hand. Restore it from a backup.")
        }
        return StoreMetadata(formatVersion: format, schema: schema, schemaHash: hash)
    }

    /// Creates the metadata tables.
    static func create(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE \(table) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
        try db.execute(sql: """
            CREATE TABLE \(historyTable) (
                id INTEGER PRIMARY KEY, fromVersion INTEGER NOT NULL, toVersion INTEGER NOT NULL,
                startedAt REAL NOT NULL, duration REAL NOT NULL, objectsTouched INTEGER NOT NULL, steps TEXT NOT NULL)
            """)
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
    }

    /// Records `schema` as the store's schema.
    static func write(_ schema: Schema, in db: Database) throws {
        let json = String(decoding: try schema.snapshotJSON(), as: UTF8.self)
        let values: [(String, String)] = [
            ("formatVersion", String(currentFormatVersion)), ("schemaVersion", String(schema.version)),
            ("schemaHash", schema.contentHash), ("schema", json),
        ]
        for (key, value) in values {
            try db.execute(sql: "INSERT OR REPLACE INTO \(table) (key, value) VALUES (?, ?)", arguments: [key, value])
        }
        try db.execute(sql: "PRAGMA user_version = \(schema.version)")
    }

    static func append(_ record: MigrationRecord, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO \(historyTable) (fromVersion, toVersion, startedAt, duration, objectsTouched, steps) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [
                record.fromVersion, record.toVersion, record.startedAt.timeIntervalSince1970, record.duration,
                record.objectsTouched, record.steps.joined(separator: "\n"),
            ])
    }

    static func history(_ db: Database) throws -> [MigrationRecord] {
        guard try db.tableExists(historyTable) else { return [] }
        return try Row.fetchAll(db, sql: "SELECT * FROM \(historyTable) ORDER BY id").map { row in
            let steps: String = row["steps"]
            return MigrationRecord(
                fromVersion: row["fromVersion"], toVersion: row["toVersion"],
                startedAt: Date(timeIntervalSince1970: row["startedAt"]), duration: row["duration"],
                objectsTouched: row["objectsTouched"], steps: steps.isEmpty ? [] : steps.components(separatedBy: "\n"))
        }
    }
}

/// One migration run recorded in a store's history.
public struct MigrationRecord: Hashable, Sendable, Codable {
    /// The version the store was at before the run.
    public var fromVersion: Int
    /// The version the run brought it to.
    public var toVersion: Int
    /// When the run started.
    public var startedAt: Date
    /// How long it took, in seconds.
    public var duration: Double
    /// How many rows it wrote (copies made by table rebuilds, values converted or set by stages).
    public var objectsTouched: Int
    /// A line per step: "1 → 2 inferred: Attribute 'UserMemo.count' has been added."
    public var steps: [String]
}
