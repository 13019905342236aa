import Foundation
import GRDB
import Molt

/// What a Core Data (or SwiftData) SQLite store says about itself: its metadata, its entity table and the
/// columns of its tables, read from the store in place (read-only) or from its private copy.
///
/// Core Data writes `Z_METADATA(Z_VERSION, Z_UUID, Z_PLIST)` — `Z_PLIST` a property list with `NSStoreType`,
/// `NSPersistenceFrameworkVersion`, `NSStoreModelVersionHashes` (entity name → hash) and
/// `NSStoreModelVersionIdentifiers` — and `Z_PRIMARYKEY(Z_ENT, Z_NAME, Z_SUPER, Z_MAX)`, one row per entity.
package struct CoreDataStoreFile {
    /// An entity as `Z_PRIMARYKEY` lists it.
    package struct EntityRow: Equatable {
        package var number: Int
        package var name: String
        package var parentNumber: Int
        package var maxKey: Int64
    }

    /// The database, opened read-only in place or on the private copy.
    package let queue: DatabaseQueue
    /// The path of the original store, for messages.
    package let originalPath: String
    /// The entity names of the model the store was last saved with (`NSStoreModelVersionHashes`' keys).
    package var modelEntityNames: Set<String>
    /// `NSStoreModelVersionIdentifiers`, as recorded.
    package var versionIdentifiers: [String]
    /// `NSPersistenceFrameworkVersion`, as recorded.
    package var frameworkVersion: String?
    package var entityRows: [EntityRow]
    /// Every table's columns, upper-cased as Core Data writes them, by table name.
    package var columns: [String: Set<String>]

    /// Reads the store's description from `source` (what SQLite opens: the store at `originalPath` in place,
    /// read-only, or its private copy).
    ///
    /// - Throws: `MoltError` (`notAMoltStore` is never thrown here): `corruptStore` for a file that is not an
    ///   SQLite database, `invalidSchema` for a database that is not a Core Data store (no `Z_METADATA`), with
    ///   the fix.
    package init(source: String, originalPath: String) throws {
        self.originalPath = originalPath
        var configuration = Configuration()
        configuration.label = "MoltAdoption.CoreDataStore"
        do {
            queue = try DatabaseQueue(path: source, configuration: configuration)
            let read = try queue.read { db in try Self.describe(db) }
            (modelEntityNames, versionIdentifiers, frameworkVersion, entityRows, columns) = read
        } catch let error as MoltError {
            throw error
        } catch let error as DatabaseError {
            throw MoltError(
                .corruptStore,
                "The file at \(originalPath) cannot be read as a Core Data store (\(error.message ?? "\(error)")): it is not an SQLite database, or it is damaged. It was left as it was. Check the path, or restore the store from a backup."
            )
        }
    }

    private static func describe(
        _ db: Database
    ) throws -> (Set<String>, [String], String?, [EntityRow], [String: Set<String>]) {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        guard tables.contains("Z_METADATA"), tables.contains("Z_PRIMARYKEY") else {
            throw MoltError(
                .invalidSchema,
                "The database has no Z_METADATA or Z_PRIMARYKEY table, so Core Data did not write it. It was left as it was. Check the path; a GRDB or plain SQLite database is brought in with `molt export`-format data and `molt import` for now."
            )
        }
        guard let plistData = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        else {
            throw MoltError(
                .corruptStore,
                "The store's Z_METADATA table holds no metadata: Core Data cannot open it either. It was left as it was. Restore the store from a backup."
            )
        }
        let plist: [String: Any]
        do {
            plist = try PropertyListSerialization.propertyList(from: plistData, format: nil) as? [String: Any] ?? [:]
        } catch {
            throw MoltError(
                .corruptStore,
                "The store's metadata (Z_METADATA.Z_PLIST) is not a property list (\(error)). It was left as it was. Restore the store from a backup."
            )
        }
        guard let hashes = plist["NSStoreModelVersionHashes"] as? [String: Any] else {
            throw MoltError(
                .corruptStore,
                "The store's metadata has no NSStoreModelVersionHashes: it does not say which model wrote it. It was left as it was. Open it once with the app's Core Data stack, or restore it from a backup."
            )
        }
        let identifiers = (plist["NSStoreModelVersionIdentifiers"] as? [Any] ?? []).map { "\($0)" }
        let framework = plist["NSPersistenceFrameworkVersion"].map { "\($0)" }
        let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            .map { row in
                EntityRow(
                    number: row[0] ?? 0, name: row[1] ?? "", parentNumber: row[2] ?? 0, maxKey: row[3] ?? 0)
            }
        var columns: [String: Set<String>] = [:]
        for table in tables {
            let names = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.quotedDatabaseIdentifier))")
                .map { ($0["name"] as String? ?? "").uppercased() }
            columns[table.uppercased()] = Set(names)
        }
        return (Set(hashes.keys), identifiers, framework, rows, columns)
    }
}
