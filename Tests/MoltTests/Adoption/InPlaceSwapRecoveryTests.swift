import Foundation
import MoltAdoption
import Testing

/// The swap of an adoption in place, interrupted after `READY` at each of its steps: the next opening's recovery
/// finishes it from any of them, the adopted store at the store's path and the original kept whole as the backup.
@Suite("Adoption swap: recovery from every interrupted step")
struct InPlaceSwapRecoveryTests {
    /// How far the interrupted swap got.
    enum Step: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case markedReady, originalMoved, adoptedMoved, backupMoved
        var testDescription: String { rawValue }
    }

    @Test("recovery finishes the swap from the step a crash stopped it at", arguments: Step.allCases)
    func recovers(_ step: Step) throws {
        let dir = TemporaryDirectory()
        let url = dir.file("Posts.sqlite")
        let swap = InPlaceSwap(url: url, keepsBackup: true)
        let files = FileManager.default
        try Data("original".utf8).write(to: url)
        try Data("original wal".utf8).write(to: URL(fileURLWithPath: url.path + "-wal"))
        try files.createDirectory(at: swap.folder, withIntermediateDirectories: true)
        try Data("adopted".utf8).write(to: swap.adopted)
        try Data().write(to: swap.ready)
        if step != .markedReady {
            try files.createDirectory(at: swap.moved, withIntermediateDirectories: true)
            try files.moveItem(at: url, to: swap.moved.appendingPathComponent("Posts.sqlite"))
            try files.moveItem(
                at: URL(fileURLWithPath: url.path + "-wal"), to: swap.moved.appendingPathComponent("Posts.sqlite-wal"))
        }
        if step == .adoptedMoved || step == .backupMoved { try files.moveItem(at: swap.adopted, to: url) }
        if step == .backupMoved { try files.moveItem(at: swap.moved, to: swap.backup) }

        try swap.recover()
        #expect(try Data(contentsOf: url) == Data("adopted".utf8))
        #expect(!files.fileExists(atPath: url.path + "-wal"))
        #expect(try Data(contentsOf: swap.backup.appendingPathComponent("Posts.sqlite")) == Data("original".utf8))
        #expect(
            try Data(contentsOf: swap.backup.appendingPathComponent("Posts.sqlite-wal")) == Data("original wal".utf8))
        #expect(!files.fileExists(atPath: swap.folder.path))
    }
}
