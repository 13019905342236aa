import Foundation
import Molt

/// The files of an adoption in place, and the one step that swaps the adopted store in.
///
/// The work happens in a folder beside the store, `.<name>.molt-adoption/`: a copy of the original to read from (when it is not read in place),
/// and the new store (`adopted.sqlite`). Until the new store is complete, migrated, validated and closed, the
/// original is not touched; then an empty file `READY` is written (and flushed), and from that moment the adoption
/// is done: the original's files (its `-wal` and `-shm`, Core Data's `.<name>_SUPPORT` folder) move into the work
/// folder, the new store moves to the original's path, and the original's files become the backup
/// (`<name>.adoption-backup/`) or are removed. A crash before `READY` leaves the original as it was and the work
/// folder is removed at the next opening; a crash after it is finished by the next opening (``recover()``).
package struct InPlaceSwap {
    package let url: URL
    package let keepsBackup: Bool

    package init(url: URL, keepsBackup: Bool) {
        self.url = url
        self.keepsBackup = keepsBackup
    }

    package var folder: URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).molt-adoption")
    }
    package var adopted: URL { folder.appendingPathComponent("adopted.sqlite") }
    var copy: URL { folder.appendingPathComponent("original-copy.sqlite") }
    package var ready: URL { folder.appendingPathComponent("READY") }
    package var moved: URL { folder.appendingPathComponent("original", isDirectory: true) }
    /// Where the original's files are kept after a successful adoption, when kept.
    package var backup: URL {
        url.deletingLastPathComponent().appendingPathComponent("\(url.lastPathComponent).adoption-backup")
    }

    /// The original's files: the store, its journal files, Core Data's external-data folder and the files Realm
    /// keeps beside its file (`.lock`, `.note`, `.management/`).
    var originalFiles: [URL] {
        let stem = url.deletingPathExtension().lastPathComponent
        return [url]
            + ["-wal", "-shm", "-journal", ".lock", ".note", ".management"].map {
                URL(fileURLWithPath: url.path + $0)
            } + [url.deletingLastPathComponent().appendingPathComponent(".\(stem)_SUPPORT", isDirectory: true)]
    }

    private var files: FileManager { .default }

    /// Finishes an adoption that reached `READY`, or removes one that did not (its original is untouched).
    package func recover() throws {
        guard files.fileExists(atPath: folder.path) else { return }
        if files.fileExists(atPath: ready.path) {
            try rollForward()
        } else {
            try files.removeItem(at: folder)
        }
    }

    /// Starts a fresh work folder.
    func prepare() throws {
        if files.fileExists(atPath: folder.path) { try files.removeItem(at: folder) }
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Marks the adoption done and swaps the new store in.
    func commit() throws {
        for companion in ["-wal", "-shm", "-journal"] where files.fileExists(atPath: adopted.path + companion) {
            throw MoltError(
                .ioError,
                "The adopted store was not closed cleanly (\(adopted.lastPathComponent)\(companion) remains), so it was not swapped in; the original was left as it was. Open the store again to retry."
            )
        }
        guard files.createFile(atPath: ready.path, contents: Data()) else {
            throw MoltError(
                .diskFull,
                "The adoption could not mark itself done in \(folder.path); the original was left as it was. Free some space and open the store again."
            )
        }
        try Self.flush(ready)
        try Self.flush(folder)
        try rollForward()
    }

    /// Each step looks at what an interrupted run already did, so that the next opening finishes any state: while
    /// `adopted.sqlite` is in the work folder, the files at the store's path are the original's; once it has moved,
    /// the file there is the adopted store and must stay.
    private func rollForward() throws {
        if files.fileExists(atPath: adopted.path) {
            try files.createDirectory(at: moved, withIntermediateDirectories: true)
            for file in originalFiles where files.fileExists(atPath: file.path) {
                try files.moveItem(at: file, to: moved.appendingPathComponent(file.lastPathComponent))
            }
            try files.moveItem(at: adopted, to: url)
            try Self.flush(url.deletingLastPathComponent())
        }
        if keepsBackup, files.fileExists(atPath: moved.path) {
            // An earlier backup (a store adopted, restored from it, adopted again) is never overwritten.
            var destination = backup
            var number = 2
            while files.fileExists(atPath: destination.path) {
                destination = URL(fileURLWithPath: backup.path + "-\(number)")
                number += 1
            }
            try files.moveItem(at: moved, to: destination)
        }
        try files.removeItem(at: folder)
    }

    /// Flushes a file or a folder's entries to the disk.
    private static func flush(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        _ = fsync(descriptor)
    }
}
