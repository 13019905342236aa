import Foundation
import Molt

/// What the file where a Molt store should be holds, found without writing to it.
enum ForeignFile: Equatable, CustomStringConvertible {
    case missing, molt, coreData, otherSQLite, notSQLite

    var description: String {
        switch self {
        case .missing: "there is no file"
        case .molt: "it is a Molt store"
        case .coreData: "it is a Core Data store"
        case .otherSQLite: "it is an SQLite database without Core Data's tables"
        case .notSQLite: "it is not an SQLite database"
        }
    }

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
        let connection = try ReadOnlySQLite(url)
        defer { connection.close() }
        let tables = try connection.tableNames()
        if tables.contains("_molt_metadata") { return .molt }
        if tables.contains("Z_METADATA") && tables.contains("Z_PRIMARYKEY") { return .coreData }
        return .otherSQLite
    }

    /// A consistent copy of the SQLite database at `url` (with what its `-wal` holds) at `copy`, made through
    /// a read-only connection with SQLite's backup: nothing of the original is written.
    ///
    /// - Throws: `MoltError/Code/corruptStore` for a store whose pages SQLite's `quick_check` finds damaged:
    ///   a damaged store is refused rather than adopted, as a damaged Molt store is refused rather than migrated.
    static func copy(_ url: URL, to copy: URL) throws {
        let connection = try ReadOnlySQLite(url)
        defer { connection.close() }
        try connection.backup(to: copy)
        let checked = try ReadOnlySQLite(copy)
        defer { checked.close() }
        let problems = try checked.pageProblems()
        guard problems.isEmpty else {
            throw MoltError(
                .corruptStore,
                "The store at \(url.path) is damaged (quick_check: \(problems.prefix(3).joined(separator: "; "))), so it was not adopted; it was left as it was. Restore it from a backup, or let its own engine repair it first."
            )
        }
    }
}
