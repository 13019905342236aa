import Foundation
import Molt

/// `molt check STORE`: the full check of a store file (``Store/verify()``), beside `molt check DIR`'s lint of a
/// folder of snapshots.
extension CheckCommand {
    /// Whether the argument names a file (a store) rather than a folder of snapshots.
    static func namesStoreFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: Files.url(path).path, isDirectory: &isDirectory)
            && !isDirectory.boolValue
    }

    /// Opens the store read-only (nothing is written) and checks every page, index, link and Molt's own tables.
    ///
    /// - Throws: ``MoltError/Code/corruptStore`` naming what is damaged; the errors of a read-only opening.
    func checkStore(_ path: String) throws {
        let url = try Files.existingStoreURL(path)
        let store = try Store.openReadOnly(at: url)
        defer { try? store.close() }
        let verification = try store.verify()
        let short = verification.underMinimumCount
        if output.json {
            struct Report: Encodable {
                var store: String, version: Int, sound: Bool
                /// Objects kept under a minimum count (absent when none), as an adoption or a migration kept them.
                var underMinimumCount: [String]?
            }
            try Terminal.json(
                Report(
                    store: url.path, version: store.schema.version, sound: true,
                    underMinimumCount: short.isEmpty ? nil : short))
        } else {
            let minimums =
                short.isEmpty
                ? "minimum count met" : "minimum count met but by the objects kept under it, listed below"
            Terminal.line(
                "\(url.path) is sound: every page, index and link checked (SQLite's integrity_check and foreign_key_check), every required relationship set and \(minimums), and Molt's metadata and history read; version \(store.schema.version)."
            )
            for line in short {
                Terminal.line(
                    "  kept under a minimum count (as Core Data keeps them; writes that change them must meet it): \(line)"
                )
            }
        }
    }
}
