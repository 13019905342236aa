// Seed 000: a Realm memo app whose `UserMemo` goes through schema versions 0 to 6.
import Foundation
import MoltMacros

enum RealmMemoApp {
    enum V0: VersionedSchema {
        static let version = 0
        static let models: [any PersistentModel.Type] = [UserMemo.self]
        @Model struct UserMemo {
            @Attribute(.primaryKey) var objectID: UUID
            var memoTitle: String
            var memoDate: Date
            var memoSubtitle: String?
            var memoContent: String?
            var favorite: Bool = false
        }
    }

    /// v1 adds `count`.
    enum V1: VersionedSchema {
        static let version = 1
        static let models: [any PersistentModel.Type] = [UserMemo.self]
        @Model struct UserMemo {
            @Attribute(.primaryKey) var objectID: UUID
            var memoTitle: String
            var memoDate: Date
            var memoSubtitle: String?
            var memoContent: String?
            var favorite: Bool = false
            var count: Int = 0
        }
    }

    /// v2 removes it again: only the version changes.
    enum V2: VersionedSchema {
        static let version = 2
        static let models: [any PersistentModel.Type] = [UserMemo.self]
        @Model struct UserMemo {
            @Attribute(.primaryKey) var objectID: UUID
            var memoTitle: String
            var memoDate: Date
            var memoSubtitle: String?
            var memoContent: String?
            var favorite: Bool = false
        }
    }

    /// v3 renames `memoTitle` to `title`, keeping the data.
    enum V3: VersionedSchema {
        static let version = 3
        static let models: [any PersistentModel.Type] = [UserMemo.self]
        @Model struct UserMemo {
            @Attribute(.primaryKey) var objectID: UUID
            @Attribute(originalName: "memoTitle") var title: String
            var memoDate: Date
            var memoSubtitle: String?
            var memoContent: String?
            var favorite: Bool = false
        }
    }

    /// v4 adds `memoDescription`, computed from old values in a typed stage.
    enum V4: VersionedSchema {
        static let version = 4
        static let models: [any PersistentModel.Type] = [UserMemo.self]
        @Model struct UserMemo {
            @Attribute(.primaryKey) var objectID: UUID
            var title: String
            var memoDate: Date
            var memoSubtitle: String?
            var memoContent: String?
            var favorite: Bool = false
            var memoDescription: String
        }
    }

    /// v5 adds `count`, 100 for every existing memo.
    enum V5: VersionedSchema {
        static let version = 5
        static let models: [any PersistentModel.Type] = [UserMemo.self]
        @Model struct UserMemo {
            @Attribute(.primaryKey) var objectID: UUID
            var title: String
            var memoDate: Date
            var memoSubtitle: String?
            var memoContent: String?
            var favorite: Bool = false
            var memoDescription: String
            var count: Int = 100
        }
    }

    /// v6 turns `count` into a Double (converted) and makes `memoContent` required, "" where it was nil.
    enum V6: VersionedSchema {
        static let version = 6
        static let models: [any PersistentModel.Type] = [UserMemo.self]
        @Model struct UserMemo {
            @Attribute(.primaryKey) var objectID: UUID
            var title: String
            var memoDate: Date
            var memoSubtitle: String?
            var memoContent: String = ""
            var favorite: Bool = false
            var memoDescription: String
            var count: Double = 100
        }
    }

    enum MemoPlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [
            V0.self, V1.self, V2.self, V3.self, V4.self, V5.self, V6.self,
        ]
        static var stages: [MigrationStage] {
            [
                .custom(from: 3, to: 4) { migration in
                    try migration.enumerateObjects(V3.UserMemo.self, to: V4.UserMemo.self) { old in
                        V4.UserMemo(
                            objectID: old.objectID, title: old.title, memoDate: old.memoDate,
                            memoSubtitle: old.memoSubtitle,
                            memoContent: old.memoContent, favorite: old.favorite,
                            memoDescription: "\(old.title) - \(old.memoSubtitle ?? "")")
                    }
                }
            ]
        }
    }

    static func run(_ check: Checker) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-example-memo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let day = Date(timeIntervalSince1970: 1_600_000_000)
        let groceries = UUID(), diary = UUID()

        // A user who installed version 0 and never updated until version 6.
        let v0URL = folder.appendingPathComponent("v0.sqlite")
        let v0 = try Store.open(at: v0URL, schema: V0.schema)
        try v0.write { objects in
            try objects.insert(
                V0.UserMemo(
                    objectID: groceries, memoTitle: "Groceries", memoDate: day, memoSubtitle: "Milk",
                    memoContent: "2 litres", favorite: true))
            try objects.insert(
                V0.UserMemo(objectID: diary, memoTitle: "Diary", memoDate: day, memoSubtitle: nil, memoContent: nil))
        }
        try v0.close()
        check.expect(try Store.version(at: v0URL), 0, "schemaVersionAtURL reads version 0")

        let store = try Store.open(at: v0URL, plan: MemoPlan.self)
        let memos = try store.read { try $0.fetch(V6.UserMemo.self, orderBy: [.ascending(\.title)]) }
        check.expect(memos.map(\.objectID), [diary, groceries], "identities kept from v0 to v6")
        check.expect(memos.map(\.title), ["Diary", "Groceries"], "memoTitle renamed to title, data kept")
        check.expect(
            memos.map(\.memoDescription), ["Diary - ", "Groceries - Milk"], "memoDescription computed from old values")
        check.expect(memos.map(\.count), [100, 100], "count is 100 for existing memos, converted to Double")
        check.expect(memos.map(\.memoContent), ["", "2 litres"], "memoContent made required with a fallback")
        check.expect(memos.map(\.favorite), [false, true], "favorite kept")
        check.expect(memos.map(\.memoDate), [day, day], "dates kept")
        check.expect(try Store.version(at: v0URL), 6, "the store is at version 6")
        try store.close()

        // A user on version 2 reaches version 6 along the same plan.
        let v2URL = folder.appendingPathComponent("v2.sqlite")
        let v2 = try Store.open(at: v2URL, schema: V2.schema)
        try v2.write {
            try $0.insert(V2.UserMemo(objectID: groceries, memoTitle: "Plans", memoDate: day, memoSubtitle: "Trip"))
        }
        try v2.close()
        let fromV2 = try Store.open(at: v2URL, plan: MemoPlan.self)
        check.expect(
            try fromV2.read { try $0.fetch(V6.UserMemo.self).map(\.memoDescription) }, ["Plans - Trip"],
            "a v2 store reaches v6")
        try fromV2.close()
    }
}
