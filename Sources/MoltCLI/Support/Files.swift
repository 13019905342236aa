import Foundation
import Molt

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading the command line's input files, and copying stores.
enum Files {
    /// The URL of a path given on the command line, relative to the current directory.
    static func url(_ path: String) -> URL {
        URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
    }

    /// Reads and validates a schema snapshot (the JSON `Schema.snapshotJSON()` writes).
    ///
    /// - Throws: ``CLIFailure`` when the file is missing; ``MoltError`` (``MoltError/Code/invalidSchema``) naming the
    ///   file when it is not valid JSON or the schema does not validate.
    static func schema(at path: String) throws -> Schema {
        let url = url(path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CLIFailure(.badInput, "There is no schema snapshot at \(url.path). Check the path.")
        }
        do {
            return try Schema(snapshotJSON: data)
        } catch var error as MoltError {
            error.message = "\(url.lastPathComponent): \(error.message)"
            throw error
        }
    }

    /// The URL of a store given on the command line, refused early when it is an empty file or a folder (which
    /// SQLite would take for a new database).
    ///
    /// - Throws: ``CLIFailure`` (bad input) for an empty file or a folder; ``MoltError`` when there is no file.
    static func existingStoreURL(_ path: String) throws -> URL {
        if StoreAddress.isPostgres(path) {
            throw CLIFailure(
                .badInput,
                "This command works on an SQLite store file, and \(StoreAddress.redacted(path)) is a PostgreSQL database: a PostgreSQL store needs no recovery or file check (a failed migration rolls back in the server). Give the path of a store file."
            )
        }
        let url = url(path)
        // One stat(2): FileManager's attributesOfItem also looks up the owner's and group's names (reading
        // /etc/passwd and /etc/group) and the extended attributes, ~1 ms of every command that opens a store.
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw MoltError(.storeNotFound, "There is no store at \(url.path). Check the path.")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw CLIFailure(.badInput, "\(url.path) is a folder, not a Molt store. Give the path of the store's file.")
        }
        if info.st_size == 0 {
            throw CLIFailure(
                .badInput,
                "The file at \(url.path) is empty: it is not a Molt store. Choose another path; nothing was written.")
        }
        return url
    }

    /// The store given on the command line: a `postgres://` URL, or a file refused early by
    /// ``existingStoreURL(_:)``.
    static func existingStoreLocation(_ text: String) throws -> StoreLocation {
        if StoreAddress.isPostgres(text) { return try StoreAddress.location(text) }
        return .file(try existingStoreURL(text))
    }

    /// What the store at `path` says about itself (version, schema, hash, history; no object counts), read in
    /// one read-only transaction that writes nothing.
    static func existingStore(at path: String) throws -> StoreInfo {
        try storeInfo(try existingStoreLocation(path), countingObjects: false)
    }

    /// What the store at `location` says about itself, strictly read-only: a journal or log left by a dead writer
    /// is reported (``MoltError/Code/needsRecovery``), never recovered.
    static func storeInfo(_ location: StoreLocation, countingObjects: Bool) throws -> StoreInfo {
        try Store.reading(at: location) { snapshot, _ in try snapshot.info(countingObjects: countingObjects) }
    }

    /// A consistent copy of the store at `source` in a new file at `destination` (SQLite's online backup, read
    /// through a read-only opening that writes nothing to the source).
    static func backUpStore(_ source: URL, to destination: URL) throws {
        let store = try Store.openReadOnly(at: source)
        defer { try? store.close() }
        try store.backup(to: destination)
    }

    /// The options to open an existing store for writing with: it keeps its own journal mode
    /// (``Store/Options/JournalMode-swift.enum/preserve``), so that a rollback-journal store is never switched to WAL.
    static func existingStoreOptions() -> Store.Options {
        var options = Store.Options()
        options.journalMode = .preserve
        return options
    }

    /// Removes a store and the files SQLite keeps beside it.
    static func removeStore(_ url: URL) {
        SQLFiles.remove(url.path)
    }

    /// A new, empty temporary folder.
    static func temporaryFolder(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The most memory this process has held resident so far, in bytes.
    static func peakResidentMemory() -> Int {
        var usage = rusage()
        #if canImport(Glibc)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        #if canImport(Darwin)
        return Int(usage.ru_maxrss)
        #else
        return Int(usage.ru_maxrss) * 1024
        #endif
    }
}
