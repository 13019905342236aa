import Foundation
import Molt
import Testing

/// The kinds of store the suite runs its bodies on: in memory, a file in rollback mode, a WAL file.
enum PublicStoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory, rollback, wal

    /// The kinds a store can be reopened from, for migrations.
    static let fileKinds: [PublicStoreKind] = [.rollback, .wal]

    var testDescription: String { rawValue }

    var journalMode: Store.Options.JournalMode { self == .wal ? .wal : .rollback }

    /// A fresh, empty store of this kind at `schema`; its file (if any) lives in `folder`.
    func makeStore(_ schema: Schema, in folder: URL) throws -> Store {
        if self == .inMemory { return try Store.inMemory(schema: schema) }
        var options = Store.Options()
        options.journalMode = journalMode
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try Store.open(at: folder.appendingPathComponent("\(rawValue).sqlite"), schema: schema, options: options)
    }
}

/// A temporary folder, removed with the value.
final class ScratchFolder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("molt-public-models-\(UUID().uuidString)")
    deinit { try? FileManager.default.removeItem(at: url) }
}
