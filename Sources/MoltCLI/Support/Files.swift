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

    /// Checks that `path` holds a Molt store and returns what it says about itself, without writing anything.
    ///
    /// - Throws: ``CLIFailure`` for an empty file; ``MoltError`` when there is no file, it is not a Molt store, or it
    ///   is damaged.
    static func existingStore(at path: String) throws -> StoreInfo {
        if StoreAddress.isPostgres(path) { return try Store.inspect(at: try StoreAddress.location(path)) }
        let url = url(path)
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int, size == 0 {
            throw CLIFailure(.badInput, "The file at \(url.path) is empty: it is not a Molt store. Choose another path; nothing was written.")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CLIFailure(.badInput, "\(url.path) is a folder, not a Molt store. Give the path of the store's file.")
        }
        return try Store.inspect(at: url)
    }

    /// The options to open an existing store with: its own journal mode, so that opening it never switches a
    /// rollback-journal store to WAL (which would rewrite its header).
    static func options(forStoreAt url: URL) -> Store.Options {
        var options = Store.Options()
        options.journalMode = isWAL(url) ? .wal : .rollback
        return options
    }

    /// Whether the SQLite file at `url` is in WAL mode (bytes 18 and 19 of its header are 2).
    static func isWAL(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header[header.startIndex + 18] == 2
    }

    /// The SQLite files of a store: the file itself and, when present, its write-ahead log.
    static func companions(of url: URL) -> [URL] {
        [url, URL(fileURLWithPath: url.path + "-wal")].filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Copies a store and its write-ahead log (if any) to `destination`, replacing what is there.
    static func copyStore(_ source: URL, to destination: URL) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: destination.path + suffix)
        }
        do {
            try FileManager.default.copyItem(at: source, to: destination)
            let wal = URL(fileURLWithPath: source.path + "-wal")
            if FileManager.default.fileExists(atPath: wal.path) {
                try FileManager.default.copyItem(at: wal, to: URL(fileURLWithPath: destination.path + "-wal"))
            }
        } catch {
            throw CLIFailure(.failure, "Could not copy \(source.path) to \(destination.path): \(error.localizedDescription)")
        }
    }

    /// Removes a store and the files SQLite keeps beside it.
    static func removeStore(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    /// A new, empty temporary folder.
    static func temporaryFolder(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
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
