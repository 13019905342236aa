import Foundation
import GRDB
import Molt
import MoltAdoption
import Testing

/// The stores Core Data and GRDB wrote, in `../shared/foreign-stores/` beside the package (CI has it there): test
/// data kept outside the repository. Each test works on copies in a temporary folder.
enum ForeignStores {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/foreign-stores", isDirectory: true)

    static var isPresent: Bool { FileManager.default.fileExists(atPath: folder.path) }

    static func url(_ path: String) -> URL { folder.appendingPathComponent(path) }

    /// Copies the store at `path` with its `-wal` and `-shm` into `directory` as `name`, writable.
    @discardableResult
    static func copy(_ path: String, to directory: TemporaryDirectory, as name: String) throws -> URL {
        let destination = directory.file(name)
        for suffix in ["", "-wal", "-shm"] {
            let source = url(path + suffix)
            guard FileManager.default.fileExists(atPath: source.path) else { continue }
            let target = URL(fileURLWithPath: destination.path + suffix)
            try FileManager.default.copyItem(at: source, to: target)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
        }
        return destination
    }

    /// The bytes of a store's files (`""`, `-wal`), to prove an original was left as it was.
    static func bytes(of url: URL) -> [String: Data] {
        var result: [String: Data] = [:]
        for suffix in ["", "-wal"] {
            if let data = FileManager.default.contents(atPath: url.path + suffix) { result[suffix] = data }
        }
        return result
    }

    /// The Molt schema `molt convert-model` writes for the `number`-th version of the model at `model`.
    static func schema(model: String, version number: Int) throws -> Schema {
        try CoreDataHistory(at: url(model)).conversion(accepting: .all).schemas[number - 1]
    }

    /// The compressed model a Core Data store carries in `Z_MODELCACHE`, read with plain SQLite.
    static func modelCache(of url: URL) throws -> [UInt8]? {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1").map(Array.init)
        }
    }

    /// The rows of a Core Data table for one entity, by `Z_PK`, read with plain SQLite from the original.
    static func rows(of url: URL, table: String, entityNumber: Int) throws -> [Int64: Row] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            var rows: [Int64: Row] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) WHERE Z_ENT = ?", arguments: [entityNumber]) {
                rows[row["Z_PK"]] = row
            }
            return rows
        }
    }
}
