import Foundation
import MoltTesting

/// The memo app of seed 000, with folders, at the versions the kit's tests migrate between.
enum Memo {
    static let folder = Entity("Folder") {
        Attribute("name", .string)
        Relationship("memos", toMany: "UserMemo", inverse: "folder")
    }

    /// v0: the first release.
    static let v0 = Schema(version: 0) {
        folder
        Entity("UserMemo", primaryKey: "objectID") {
            Attribute("objectID", .uuid)
            Attribute("memoTitle", .string)
            Attribute("memoDate", .date)
            Attribute("memoContent", .string, isOptional: true)
            Attribute("favorite", .bool, default: false)
            Relationship("folder", to: "Folder", inverse: "memos")
        }
    }

    /// v1: adds `count`.
    static let v1 = Schema(version: 1) {
        folder
        Entity("UserMemo", primaryKey: "objectID") {
            Attribute("objectID", .uuid)
            Attribute("memoTitle", .string)
            Attribute("memoDate", .date)
            Attribute("memoContent", .string, isOptional: true)
            Attribute("favorite", .bool, default: false)
            Attribute("count", .int, default: 0)
            Relationship("folder", to: "Folder", inverse: "memos")
        }
    }

    /// v2: removes `count` again.
    static let v2 = v0.withVersion(2)

    /// v3: renames `memoTitle` to `title`, keeping the data.
    static let v3 = Schema(version: 3) {
        folder
        Entity("UserMemo", primaryKey: "objectID") {
            Attribute("objectID", .uuid)
            Attribute("title", .string, originalName: "memoTitle")
            Attribute("memoDate", .date)
            Attribute("memoContent", .string, isOptional: true)
            Attribute("favorite", .bool, default: false)
            Relationship("folder", to: "Folder", inverse: "memos")
        }
    }

    /// v3 as a careless developer writes it: `title` added as optional without `originalName`, so Molt infers
    /// that `memoTitle` was removed and its values are lost.
    static let v3Lossy = Schema(version: 3, deleting: [.property("memoTitle", of: "UserMemo")]) {
        folder
        Entity("UserMemo", primaryKey: "objectID") {
            Attribute("objectID", .uuid)
            Attribute("title", .string, isOptional: true)
            Attribute("memoDate", .date)
            Attribute("memoContent", .string, isOptional: true)
            Attribute("favorite", .bool, default: false)
            Relationship("folder", to: "Folder", inverse: "memos")
        }
    }

    /// v4: a required `memoDescription` without a default: it needs a custom stage from 3 to 4.
    static let v4 = Schema(version: 4) {
        folder
        Entity("UserMemo", primaryKey: "objectID") {
            Attribute("objectID", .uuid)
            Attribute("title", .string)
            Attribute("memoDate", .date)
            Attribute("memoContent", .string, isOptional: true)
            Attribute("favorite", .bool, default: false)
            Attribute("memoDescription", .string)
            Relationship("folder", to: "Folder", inverse: "memos")
        }
    }

    static let all = [v0, v1, v2, v3]

    static let day = Date(timeIntervalSince1970: 1_700_000_000)
    static let ids = (0..<3).map { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0)")! }

    /// The attributes of a fixture of `old`'s version that version 2 removes with their values: `count`, which
    /// "groceries" holds at version 1. A run from version 1 declares it in its expectation.
    static func dropped(_ old: FixtureObject) -> Set<String> {
        old.entity == "UserMemo" && old.version == 1 ? ["count"] : []
    }

    /// Two memos in one folder, in the schema of `version` (0…4).
    static func fixtures(at version: Int) -> [Fixture] {
        let title = version >= 3 ? "title" : "memoTitle"
        var groceries: [String: Value] = [
            "objectID": .uuid(ids[0]), title: "Milk", "memoDate": .date(day), "favorite": true,
        ]
        var work: [String: Value] = [
            "objectID": .uuid(ids[1]), title: "Report", "memoDate": .date(day), "memoContent": "Q3",
        ]
        if version == 1 { groceries["count"] = 3 }
        if version >= 4 {
            groceries["memoDescription"] = "Milk"
            work["memoDescription"] = "Report"
        }
        return [
            Fixture("Folder", "home", ["name": "Home"]),
            Fixture("UserMemo", "groceries", groceries, links: ["folder": "home"]),
            Fixture("UserMemo", "work", work, links: ["folder": "home"]),
        ]
    }
}

/// A temporary folder, removed when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("molt-kit-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String = "store.sqlite") -> URL { url.appendingPathComponent(name) }

    /// A snapshots folder inside, that never records unless told to.
    func snapshots(recordMode: SchemaSnapshots.RecordMode = .never) -> SchemaSnapshots {
        SchemaSnapshots(directory: url.appendingPathComponent("__Schemas__"), recordMode: recordMode)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
