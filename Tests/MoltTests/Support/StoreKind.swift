import Foundation
import Molt

/// The kinds of store every suite runs its bodies on.
///
/// `allCases` holds every kind; suites whose feature needs a file (opening rules, migrations, crashes) run on
/// ``files``, the on-disk kinds.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case rollback, wal, memory

    /// The kinds backed by a file, in both journal modes.
    static let files: [StoreKind] = [.rollback, .wal]

    var testDescription: String { rawValue }

    var options: Store.Options {
        var options = Store.Options()
        options.journalMode = self == .wal ? .wal : .rollback
        return options
    }

    /// The worker's name for the journal mode.
    var journalArgument: String { self == .wal ? "wal" : "rollback" }

    /// A new, empty store of this kind at `schema`'s version (in `directory` for the file kinds).
    func makeStore(schema: Schema, in directory: TemporaryDirectory) throws -> Store {
        switch self {
        case .memory: return try Store.inMemory(schema: schema)
        case .rollback, .wal: return try Store.open(at: directory.file(), schema: schema, options: options)
        }
    }
}

import Testing

/// A temporary folder, removed when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("molt-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String = "store.sqlite") -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
