import Foundation
import GRDBSQLite
import Molt

/// What the file where a Molt store should be holds, found without writing to it.
enum ForeignFile: Equatable, CustomStringConvertible {
    case missing, molt, coreData, otherSQLite, realm, notSQLite

    var description: String {
        switch self {
        case .missing: "there is no file"
        case .molt: "it is a Molt store"
        case .coreData: "it is a Core Data store"
        case .otherSQLite: "it is an SQLite database without Core Data's tables"
        case .realm: "it is a Realm file"
        case .notSQLite: "it is not an SQLite database"
        }
    }

    /// Reads the SQLite header (and, when it does not say, the table names through a read-only connection).
    static func kind(at url: URL) throws -> ForeignFile {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return .missing }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        try? handle.close()
        if header.isEmpty { return .missing }
        // Realm's header: two top refs, then the mnemonic "T-DB" (RealmFileHeader reads the rest).
        if header.count >= 24, header[16..<20] == Data("T-DB".utf8) { return .realm }
        guard header.count == 100, header.prefix(16) == Data("SQLite format 3\0".utf8) else { return .notSQLite }
        let applicationID = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if Store.isMoltFile(applicationID: applicationID) { return .molt }
        let connection = try ReadOnlySQLite(url)
        defer { connection.close() }
        let tables = try connection.tableNames()
        if Store.isMoltFile(tables: tables) { return .molt }
        if tables.contains("Z_METADATA") && tables.contains("Z_PRIMARYKEY") { return .coreData }
        return .otherSQLite
    }

    /// The store at `url` as an adoption reads it, written nowhere: SQLite's `quick_check` of its pages starts
    /// on a thread of its own, and the adoption reads meanwhile, then waits for the check before it commits
    /// (``AdoptionSource/checked()``).
    ///
    /// A store that is only its file (no `-wal`, no `-journal`) is read in place, read-only and immutable (SQLite
    /// takes no lock and writes no file beside it); the adoption runs while its old engine is not writing to it,
    /// as when the app that used it opens its store with Molt. Any other store is read from a private copy at
    /// `copy`: made with SQLite's backup through a read-only connection (with what its `-wal` holds), or, for a
    /// store in rollback mode left with a `-journal` (its engine stopped in the middle of a save), by copying
    /// the file and its journal as they are and letting SQLite roll the save back in the copy, as the store's
    /// own engine would at its next opening: the file alone holds part of the save.
    static func source(of url: URL, copyingTo copy: URL) throws -> AdoptionSource {
        let files = FileManager.default
        let journal = url.path + "-journal"
        if files.fileExists(atPath: url.path + "-wal") {
            let connection = try ReadOnlySQLite(url)
            defer { connection.close() }
            try connection.backup(to: copy)
        } else if files.fileExists(atPath: journal) {
            try copyRollingBack(url, to: copy)
        } else if let uri = ReadOnlySQLite.immutableURI(of: url), let state = FileState(of: url) {
            return AdoptionSource(path: uri, file: url, original: url, readInPlace: state)
        } else {
            let connection = try ReadOnlySQLite(url)
            defer { connection.close() }
            try connection.backup(to: copy)
        }
        return AdoptionSource(path: copy.path, file: copy, original: url)
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

/// A foreign store as an adoption reads it (``ForeignFile/source(of:copyingTo:)``): its file in place, or a private
/// copy; and SQLite's `quick_check` of its pages, which runs while the adoption reads.
struct AdoptionSource {
    /// What SQLite opens or attaches to read the store: the private copy's path, or a `file:` URI of the
    /// original, read-only and immutable.
    let path: String
    /// The file read: the original or its private copy.
    let file: URL
    /// The store, for messages.
    let original: URL
    /// For a store read in place: its file as it was when the adoption began, which must not change.
    private let readInPlace: FileState?
    private let check: BackgroundWork<[String]>

    init(path: String, file: URL, original: URL, readInPlace: FileState? = nil) {
        self.path = path
        self.file = file
        self.original = original
        self.readInPlace = readInPlace
        check = BackgroundWork("Molt adoption page check") {
            // Immutable: the file holds every page read (a store without -wal, or a private copy beside which the
            // adoption's own readers may open a -wal of nothing, whose locks would make this check wait or fail).
            let checked = try ReadOnlySQLite(file, immutable: true)
            defer { checked.close() }
            return try checked.pageProblems()
        }
    }

    /// A file that is not SQLite (a Realm file), read in place: its reader checks its structure as it reads, so
    /// there are no pages to check; ``checked()`` still refuses it when it changed while it was read.
    init(notSQLite url: URL) throws {
        guard let state = FileState(of: url) else {
            throw MoltError(.storeNotFound, "There is no file at \(url.path) to adopt. Check the path.")
        }
        path = url.path
        file = url
        original = url
        readInPlace = state
        check = BackgroundWork("Molt adoption check") { [] }
    }

    /// Waits for the check of the store's pages; for a store read in place, checks that nothing wrote to it
    /// meanwhile.
    ///
    /// - Throws: `MoltError/Code/corruptStore` for a store whose pages SQLite's `quick_check` finds damaged:
    ///   a damaged store is refused rather than adopted, as a damaged Molt store is refused rather than migrated.
    ///   `MoltError/Code/locked` for a store read in place that another process wrote to (or began to) while
    ///   it was read: what was read may mix two states of it.
    func checked() throws {
        let problems = try check.value()
        guard problems.isEmpty else {
            throw MoltError(
                .corruptStore,
                "The store at \(original.path) is damaged (quick_check: \(problems.prefix(3).joined(separator: "; "))), so it was not adopted; it was left as it was. Restore it from a backup, or let its own engine repair it first."
            )
        }
        if let readInPlace {
            let files = FileManager.default
            let companion = ["-wal", "-journal"].first { files.fileExists(atPath: original.path + $0) }
            guard companion == nil, FileState(of: original) == readInPlace else {
                throw MoltError(
                    .locked,
                    "The store at \(original.path) was written to while it was adopted (\(companion.map { "a \($0) file appeared" } ?? "its file changed")): another process has it open with its own engine. Nothing was adopted and what that process wrote was left as it wrote it. Close that process (the app or extension still using its old engine) and open the store again."
                )
            }
        }
    }

    /// Runs `body`, which reads the store; when it throws, a damaged store is refused as damaged (what
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

/// What shows that an SQLite file was written: its header (whose change counter every commit in rollback mode
/// increments), its size and its modification date.
struct FileState: Equatable {
    var header: Data
    var size: Int
    var modified: Date?

    init?(of url: URL) {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100),
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let size = (attributes[.size] as? NSNumber)?.intValue
        else { return nil }
        self.header = header
        self.size = size
        modified = attributes[.modificationDate] as? Date
    }
}
