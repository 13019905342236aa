import Foundation
import GRDBSQLite
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

    /// A consistent copy of the SQLite database at `url` (with what its `-wal` holds) at `copy`: nothing of the
    /// original is written. SQLite's `quick_check` of the copy's pages starts on a thread of its own: the adoption
    /// reads the copy meanwhile, and waits for the check before it commits (``PrivateCopy/checked()``).
    ///
    /// The copy is made through a read-only connection with SQLite's backup, except for a store in rollback mode
    /// left with a `-journal` (its engine stopped in the middle of a save): a read of the file alone would see
    /// the half-written save, so the file and its journal are copied as they are, and SQLite rolls the save back
    /// in the copy, as the store's own engine would at its next opening.
    static func copy(_ url: URL, to copy: URL) throws -> PrivateCopy {
        let files = FileManager.default
        let journal = url.path + "-journal"
        if !files.fileExists(atPath: url.path + "-wal"),
            let size = (try? files.attributesOfItem(atPath: journal))?[.size] as? NSNumber, size.intValue > 0
        {
            try copyRollingBack(url, to: copy)
        } else {
            let connection = try ReadOnlySQLite(url)
            defer { connection.close() }
            try connection.backup(to: copy)
        }
        return PrivateCopy(url: copy, original: url)
    }

    /// Copies the store at `url` and its `-journal` byte for byte, then opens the copy, which rolls back the save
    /// the journal holds (when it is one SQLite must roll back).
    private static func copyRollingBack(_ url: URL, to copy: URL) throws {
        do {
            try FileManager.default.copyItem(at: url, to: copy)
            try FileManager.default.copyItem(atPath: url.path + "-journal", toPath: copy.path + "-journal")
        } catch {
            let full = (error as? CocoaError)?.code == .fileWriteOutOfSpace
            throw MoltError(
                full ? .diskFull : .ioError,
                "A private copy of the store at \(url.path) and its journal cannot be made at \(copy.path) (\(error.localizedDescription)). Nothing was adopted and the store was left as it was.\(full ? " Free some space and open it again." : "")"
            )
        }
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        // The first read of a database with a hot journal rolls it back.
        guard sqlite3_open_v2(copy.path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
            sqlite3_exec(handle, "SELECT count(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK
        else {
            throw MoltError(
                .corruptStore,
                "The store at \(url.path) was left in the middle of a save (its -journal remains), and the save could not be rolled back in a private copy (\(handle.map { String(cString: sqlite3_errmsg($0)) } ?? "")). Nothing was adopted and the store was left as it was. Open it once with the app's own engine, which rolls the save back, then adopt it."
            )
        }
    }
}

/// A private copy of a foreign store (``ForeignFile/copy(_:to:)``), and SQLite's `quick_check` of its pages, which
/// runs while the adoption reads the copy.
struct PrivateCopy {
    /// The copy's file.
    let url: URL
    /// The store it is a copy of, for messages.
    let original: URL
    private let check: BackgroundWork<[String]>

    init(url: URL, original: URL) {
        self.url = url
        self.original = original
        check = BackgroundWork("Molt adoption page check") {
            let checked = try ReadOnlySQLite(url)
            defer { checked.close() }
            return try checked.pageProblems()
        }
    }

    /// Waits for the check of the copy's pages.
    ///
    /// - Throws: `MoltError/Code/corruptStore` for a store whose pages SQLite's `quick_check` finds damaged:
    ///   a damaged store is refused rather than adopted, as a damaged Molt store is refused rather than migrated.
    func checked() throws {
        let problems = try check.value()
        guard problems.isEmpty else {
            throw MoltError(
                .corruptStore,
                "The store at \(original.path) is damaged (quick_check: \(problems.prefix(3).joined(separator: "; "))), so it was not adopted; it was left as it was. Restore it from a backup, or let its own engine repair it first."
            )
        }
    }

    /// Runs `body`, which reads the copy; when it throws, a damaged store is refused as damaged (what
    /// ``checked()`` throws) rather than for what reading its damage made fail.
    func reading<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            try checked()
            throw error
        }
    }
}
