import Foundation
import Molt

/// The kinds of store every suite runs its bodies on.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case rollback, wal

    var testDescription: String { rawValue }

    var options: Store.Options {
        var options = Store.Options()
        options.journalMode = self == .wal ? .wal : .rollback
        return options
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
