import Foundation
import GRDBSQLite
import Molt

/// A connection to another engine's SQLite file that writes nothing beside it: a file without a `-wal` is opened
/// `immutable` (SQLite creates no `-wal` or `-shm` for it); one with a `-wal` is opened read-only, its `-shm`
/// mapped read-only (`readonly_shm`), and a `-shm` this connection had to create is removed when it closes. The original's bytes, and its set of files, stay as
/// they were.
final class ReadOnlySQLite {
    let url: URL
    private(set) var handle: OpaquePointer?
    private let createdSharedMemory: Bool

    /// A `file:` URI that opens the file at `url` read-only and immutable, for a connection (or an `ATTACH`) that
    /// reads a file without a `-wal` in place; nil when this SQLite does not read URIs in file names.
    static func immutableURI(of url: URL) -> String? {
        guard sqlite3_compileoption_used("USE_URI") == 1 else { return nil }
        return uri(of: url, ["mode": "ro", "immutable": "1"])
    }

    /// A `file:` URI of the file at `url` with `parameters` (its path escaped as URIs need).
    private static func uri(of url: URL, _ parameters: KeyValuePairs<String, String>) -> String {
        var components = URLComponents()
        components.scheme = "file"
        components.path = url.path
        components.queryItems = parameters.map { URLQueryItem(name: $0.key, value: $0.value) }
        return components.string ?? "file:\(url.path)"
    }

    /// Opens the file at `url`; `immutable` when the file is known to hold every committed page and not to be
    /// written (an adoption's private copy, beside which its other readers may have made an empty `-wal`): then
    /// no lock is taken even if a `-wal` is there.
    init(_ url: URL, immutable: Bool = false) throws {
        self.url = url
        let files = FileManager.default
        let hasLog = !immutable && files.fileExists(atPath: url.path + "-wal")
        let hasSharedMemory = files.fileExists(atPath: url.path + "-shm")
        createdSharedMemory = hasLog && !hasSharedMemory
        // A reader of a WAL store writes its `-shm` (it rebuilds the index of the `-wal` there): `readonly_shm`
        // maps the `-shm` read-only, and SQLite then reads the `-wal` into memory of its own.
        let uri = Self.uri(
            of: url,
            !hasLog ? ["immutable": "1"] : hasSharedMemory ? ["mode": "ro", "readonly_shm": "1"] : ["mode": "ro"])
        let code = sqlite3_open_v2(uri, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        guard code == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(code)"
            close()
            throw MoltError(
                .corruptStore,
                "The file at \(url.path) cannot be opened as an SQLite database (\(message)). Nothing was adopted and it was left as it was. Check the path, or restore it from a backup."
            )
        }
    }

    /// SQLite's `quick_check` of every page: the problems found, empty for a sound file.
    func pageProblems() throws -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "PRAGMA quick_check(5)", -1, &statement, nil) == SQLITE_OK else {
            throw failure("check its pages")
        }
        defer { sqlite3_finalize(statement) }
        var problems: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            // One problem may span lines, under a "*** in database main ***" heading: one line each, no heading.
            for line in String(cString: sqlite3_column_text(statement, 0)).split(separator: "\n")
            where line != "ok" && !line.hasPrefix("***") {
                problems.append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        return problems
    }

    /// The names of the file's tables; throws for a file that is not a database.
    func tableNames() throws -> Set<String> {
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(handle, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &statement, nil)
                == SQLITE_OK
        else { throw failure("read its tables") }
        defer { sqlite3_finalize(statement) }
        var names: Set<String> = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw failure("read its tables") }
            names.insert(String(cString: sqlite3_column_text(statement, 0)))
        }
        return names
    }

    /// Copies the whole database, with what its `-wal` holds, into a new file at `destination`.
    func backup(to destination: URL) throws {
        var target: OpaquePointer?
        defer { sqlite3_close_v2(target) }
        // A scratch file, read and removed by this adoption: written without a journal and without waiting for the
        // disk (a crash leaves a work folder that the next opening removes), which halves the copy's time on a
        // store of large values.
        guard sqlite3_open_v2(destination.path, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            sqlite3_exec(target, "PRAGMA synchronous = OFF; PRAGMA journal_mode = OFF", nil, nil, nil) == SQLITE_OK,
            let backup = sqlite3_backup_init(target, "main", handle, "main")
        else {
            throw MoltError(
                .ioError,
                "A private copy of the store at \(url.path) cannot be made at \(destination.path) (\(target.map { String(cString: sqlite3_errmsg($0)) } ?? "")). Nothing was adopted and the store was left as it was."
            )
        }
        let code = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        // A write the disk (or the process's file size limit) refused is the copy's, not the store's, fault.
        let written = sqlite3_extended_errcode(target)
        let diskFull = code == SQLITE_FULL || written & 0xFF == SQLITE_FULL || written & 0xFF == SQLITE_IOERR
        switch code {
        case SQLITE_DONE:
            // The copy of a store in WAL mode says so in its header: in rollback mode, the adoption's readers of
            // it (several connections at once) need no -wal, -shm or WAL locks.
            sqlite3_exec(target, "PRAGMA journal_mode = DELETE", nil, nil, nil)
            return
        case _ where diskFull:
            throw MoltError(
                .diskFull,
                "There is no room on the disk for a private copy of the store at \(url.path), which adoption reads from. Nothing was adopted and the store was left as it was. Free some space and open it again."
            )
        default:
            throw MoltError(
                .corruptStore,
                "The store at \(url.path) could not be read whole (\(String(cString: sqlite3_errstr(code)))). Nothing was adopted and it was left as it was. Restore it from a backup."
            )
        }
    }

    private func failure(_ what: String) -> MoltError {
        MoltError(
            .corruptStore,
            "Could not \(what) from the file at \(url.path) (\(String(cString: sqlite3_errmsg(handle)))): it is not an SQLite database, or it is damaged. Nothing was adopted and it was left as it was."
        )
    }

    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
        if createdSharedMemory { try? FileManager.default.removeItem(atPath: url.path + "-shm") }
    }

    deinit { close() }
}
