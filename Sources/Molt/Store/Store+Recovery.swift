import Foundation

extension Store {
    /// Applies or discards what a process that died while writing left beside the store at `url`: rolls back a
    /// rollback journal, copies a write-ahead log's committed changes into the file. It is what any writable
    /// opening of the store does first; `molt recover` runs it alone, for the read commands, which refuse such a
    /// store rather than change it.
    ///
    /// The recovery is rehearsed on a copy first (in the system's temporary folder): when its result would be a
    /// damaged store (a journal cut short, a log of another database), nothing is written and the error says so.
    ///
    /// ```swift
    /// if let done = try Store.recover(at: url) { print(done) }   // "rolled back the unfinished write …"
    /// ```
    ///
    /// - Returns: What was recovered, as a sentence; nil when there was nothing to recover (nothing is written).
    /// - Throws: ``MoltError/Code/corruptStore`` when recovering would leave a damaged store; other ``MoltError``s
    ///   from opening the file (``MoltError/Code/locked`` while another process writes).
    ///
    /// - Parameter scratch: The folder that holds the rehearsal's copy: the system's temporary folder (`TMPDIR`).
    package static func recover(
        at url: URL, waitingUpTo timeout: TimeInterval = Store.defaultWaitTimeout,
        rehearsingIn scratch: URL = FileManager.default.temporaryDirectory
    ) throws -> String? {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MoltError(.storeNotFound, "There is no store at \(url.path). Check the path.")
        }
        guard let found = SQLFiles.recoverableLeftover(at: url.path) else { return nil }
        let what: String
        switch found {
        case .journal: what = "rolled back the unfinished write recorded in \(url.path)-journal"
        case .log: what = "copied the committed changes of \(url.path)-wal into the store"
        }
        try rehearseRecovery(of: url, what: what, in: scratch)
        let database = try SQLFiles.open(path: url.path, busyTimeout: timeout)
        defer { try? database.close() }
        try database.recoverLeftovers()
        return what
    }

    /// Recovers a copy of the store and its companions, and throws when the result is not a sound store.
    private static func rehearseRecovery(of url: URL, what: String, in scratch: URL) throws {
        let folder = scratch.appendingPathComponent("molt-recover-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("store.sqlite")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (file, copy) in zip(SQLFiles.paths(of: url.path), SQLFiles.paths(of: copy.path))
            where FileManager.default.fileExists(atPath: file) {
                try FileManager.default.copyItem(atPath: file, toPath: copy)
            }
        } catch {
            throw copyFailure(error, of: url, in: scratch)
        }
        var problems: [String]
        do {
            let database = try SQLFiles.open(path: copy.path)
            defer { try? database.close() }
            try database.recoverLeftovers()
            problems = try database.quickCheck(full: false, tables: nil)
            // SQLite replays any log whose frames hold, even another database's: the result must still be the
            // store its metadata describes.
            if problems.isEmpty { problems = try shapeProblems(afterRecovering: database) }
        } catch let error as MoltError where error.code == .corruptStore || error.code == .ioError {
            problems = [error.message]
        }
        guard !problems.isEmpty else { return }
        throw MoltError(
            .corruptStore,
            "The store at \(url.path) cannot be recovered: once SQLite \(what), the store would be damaged (\(problems.prefix(3).joined(separator: "; "))). Nothing was written. Restore it from a backup."
        )
    }

    /// The error when the rehearsal's copy cannot be made: what failed, that nothing was written, and where
    /// to make room.
    private static func copyFailure(_ error: any Error, of url: URL, in scratch: URL) -> MoltError {
        let nsError = error as NSError
        let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError
        let outOfSpace =
            (error as? CocoaError)?.code == .fileWriteOutOfSpace
            || (underlying?.domain == NSPOSIXErrorDomain && underlying?.code == Int(ENOSPC))
        let reason = outOfSpace ? "there is no space left there" : nsError.localizedDescription
        return MoltError(
            outOfSpace ? .diskFull : .ioError,
            "Molt rehearses a recovery on a copy of the store before it writes to \(url.path), and the copy in \(scratch.path) failed (\(reason)). Nothing was written. Make room there for a copy of the store, or point TMPDIR to a folder that has it, and recover again.",
            cause: error)
    }

    /// Why a recovered copy is not the store its metadata describes (tables, columns, references and indexes of
    /// the recorded schema), if it is not.
    private static func shapeProblems(afterRecovering database: any SQLDatabase) throws -> [String] {
        try database.read { db in
            guard let metadata = try StoreMetadata.read(db) else { return ["it would no longer be a Molt store"] }
            do {
                try StoreValidator.validate(db, against: metadata.schema, checkingLinksOf: [])
                return []
            } catch let error as MoltError where error.code == .validationFailed {
                return [
                    "its tables would not match the schema of version \(metadata.schema.version) it records, as when the journal or log beside it belongs to another database"
                ]
            }
        }
    }
}
