import Foundation
import MoltMacros
import Testing

/// The kinds of store the typed suites run their bodies on: in memory, a file in rollback mode, a WAL file.
enum TypedStoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory, rollback, wal

    var testDescription: String { rawValue }

    /// A fresh, empty store of this kind at `schema`; its file (if any) lives in `folder`.
    func makeStore(_ schema: Schema, in folder: URL) throws -> Store {
        var options = Store.Options()
        switch self {
        case .inMemory: return try Store.inMemory(schema: schema)
        case .rollback: options.journalMode = .rollback
        case .wal: options.journalMode = .wal
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try Store.open(at: folder.appendingPathComponent("\(rawValue).sqlite"), schema: schema, options: options)
    }
}

/// A temporary folder, removed with the value.
final class ScratchFolder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("molt-macros-\(UUID().uuidString)")
    deinit { try? FileManager.default.removeItem(at: url) }
}
