import Foundation
import GRDB
import Molt

/// What the file where a Molt store should be holds, found without writing to it.
enum ForeignFile: Equatable {
    case missing, molt, coreData, otherSQLite, notSQLite

    /// Molt stamps its stores' SQLite header with this application id ("MOLT").
    private static let moltApplicationID: UInt32 = 0x4D4F_4C54

    /// Reads the SQLite header (and, when it does not say, the table names through a read-only connection).
    static func kind(at url: URL) throws -> ForeignFile {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return .missing }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        try? handle.close()
        if header.isEmpty { return .missing }
        guard header.count == 100, header.prefix(16) == Data("SQLite format 3\0".utf8) else { return .notSQLite }
        let applicationID = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if applicationID == moltApplicationID { return .molt }
        var configuration = Configuration()
        configuration.readonly = true
        let tables: Set<String>
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? queue.close() }
            tables = Set(try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master") })
        } catch {
            throw MoltError(
                .corruptStore,
                "The file at \(url.path) cannot be read as an SQLite database (\(error)). Nothing was adopted and it was left as it was. Restore it from a backup."
            )
        }
        if tables.contains("_molt_metadata") { return .molt }
        if tables.contains("Z_METADATA") && tables.contains("Z_PRIMARYKEY") { return .coreData }
        return .otherSQLite
    }

    /// A consistent copy of the SQLite database at `url` (with what its `-wal` holds) at `copy`, made through
    /// a read-only connection with SQLite's backup: the original's file and `-wal` are not written.
    static func copy(_ url: URL, to copy: URL) throws {
        var configuration = Configuration()
        configuration.readonly = true
        do {
            let source = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? source.close() }
            let destination = try DatabaseQueue(path: copy.path)
            defer { try? destination.close() }
            try source.backup(to: destination)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw MoltError(
                .diskFull,
                "There is no room on the disk for a copy of the store at \(url.path), which adoption reads from. Nothing was adopted and the store was left as it was. Free some space and open it again."
            )
        } catch {
            throw MoltError(
                .corruptStore,
                "The store at \(url.path) could not be read whole (\(error)). Nothing was adopted and it was left as it was. Restore it from a backup."
            )
        }
    }
}
