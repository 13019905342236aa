import Foundation
import Testing
@testable import Molt

/// Seed 000: the Realm memo app, `UserMemo` from each of versions 0…5 to version 6.
@Suite("Seed 000: the memo app from every version to 6")
struct Seed000MemoTests {
    static func schema(_ version: Int) -> Schema {
        Schema(version: version) {
            Entity("UserMemo", primaryKey: "objectID") {
                Attribute("objectID", .uuid)
                if version >= 3 {
                    Attribute("title", .string, originalName: "memoTitle")
                } else {
                    Attribute("memoTitle", .string)
                }
                Attribute("memoDate", .date)
                Attribute("memoSubtitle", .string, isOptional: true)
                Attribute("memoContent", .string, isOptional: true)
                Attribute("favorite", .bool, default: false)
                if version == 1 { Attribute("count", .int, default: 0) }
                if version >= 4 { Attribute("memoDescription", .string) }
                if version == 5 { Attribute("count", .int, isOptional: true) }
                if version >= 6 { Attribute("count", .double) }
            }
        }
    }

    static func describe(_ title: String, _ date: Value) -> String { "안녕하세요 \(title)은 \(date)에 작성되었습니다" }

    static let plan = try! MigrationPlan(
        schemas: (0...6).map(schema),
        stages: [
            .custom(from: 3, to: 4) { migration in
                try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                    new["memoDescription"] = .string(describe(old["title"].string ?? "", old["memoDate"]))
                }
            },
            .custom(from: 4, to: 5) { migration in
                try migration.enumerateObjects(ofType: "UserMemo") { _, new in new["count"] = 100 }
            },
            .custom(from: 5, to: 6) { migration in
                try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                    new["count"] = .double(old["count"].double ?? 0)
                }
            },
        ])

    struct Memo: Equatable {
        var id: UUID, title: String, date: Date, subtitle: String?, content: String?, favorite: Bool
    }

    static func memos(_ n: Int) -> [Memo] {
        (0..<n).map { (i: Int) -> Memo in
            let date = Date(timeIntervalSince1970: Double(1_600_000_000 + i * 60))
            let subtitle: String? = i % 3 == 0 ? nil : "sub \(i)"
            let content: String? = i % 2 == 0 ? "content \(i)" : nil
            return Memo(
                id: UUID(), title: "memo \(i)", date: date, subtitle: subtitle, content: content, favorite: i % 5 == 0)
        }
    }

    /// Writes the memos into a new store at `version`, with the values that version's users would have.
    static func makeStore(at url: StoreLocation, version: Int, memos: [Memo], kind: StoreKind) throws {
        let store = try Store.open(at: url, schema: schema(version), options: kind.options)
        try store.write { objects in
            for memo in memos {
                var values: [String: Value] = [
                    "objectID": .uuid(memo.id), version >= 3 ? "title" : "memoTitle": .string(memo.title),
                    "memoDate": .date(memo.date), "memoSubtitle": memo.subtitle.map(Value.string) ?? .null,
                    "memoContent": memo.content.map(Value.string) ?? .null, "favorite": .bool(memo.favorite),
                ]
                if version == 1 { values["count"] = 7 }
                if version >= 4 { values["memoDescription"] = .string("written at v\(version)") }
                if version == 5 { values["count"] = memo.favorite ? nil : 42 }
                try objects.insert("UserMemo", values)
            }
        }
        try store.close()
    }

    @Test(
        "a store of every version reaches version 6 with every value as the stages say", arguments: Array(0...5),
        StoreKind.durable)
    func everyVersion(start: Int, kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let memos = Self.memos(40)
        try Self.makeStore(at: url, version: start, memos: memos, kind: kind)

        let store = try Store.open(at: url, schema: Self.schema(6), options: kind.options.migrating(with: Self.plan))
        let migrated = try store.read { try $0.fetch("UserMemo") }
        #expect(migrated.count == memos.count)
        for memo in memos {
            let object = try #require(try store.read { try $0.object("UserMemo", primaryKey: .uuid(memo.id)) })
            #expect(object["title"] == .string(memo.title))
            #expect(object["memoDate"] == .date(memo.date))
            #expect(object["memoSubtitle"] == (memo.subtitle.map(Value.string) ?? .null))
            #expect(object["memoContent"] == (memo.content.map(Value.string) ?? .null))
            #expect(object["favorite"] == .bool(memo.favorite))
            let description = start >= 4 ? "written at v\(start)" : Self.describe(memo.title, .date(memo.date))
            #expect(object["memoDescription"] == .string(description))
            let count: Double = start == 5 ? (memo.favorite ? 0 : 42) : 100
            #expect(object["count"] == .double(count))
        }
        let history = try store.history()
        #expect(history.last?.fromVersion == start)
        #expect(history.last?.toVersion == 6)
        #expect(history.last?.steps.count == 6 - start)
    }

    @Test("the seed's Realm block, ported line by line, migrates a version-3 store", arguments: StoreKind.durable)
    func realmBlock(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let memos = Self.memos(10)
        try Self.makeStore(at: url, version: 0, memos: memos, kind: kind)
        let plan = MigrationPlan.realm(schema: Self.schema(6)) { migration, oldSchemaVersion in
            if oldSchemaVersion < 3 {
                try migration.renameProperty(onType: "UserMemo", from: "memoTitle", to: "title")
            }
            if oldSchemaVersion < 4 {
                try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                    new["memoDescription"] = .string(Self.describe(old["title"].string ?? "", old["memoDate"]))
                }
            }
            if oldSchemaVersion < 5 {
                try migration.enumerateObjects(ofType: "UserMemo") { _, new in new["count"] = 100 }
            }
            if oldSchemaVersion == 5 {
                try migration.enumerateObjects(ofType: "UserMemo") { old, new in new["count"] = old["count"] }
            }
        }
        let store = try Store.open(at: url, schema: Self.schema(6), options: kind.options.migrating(with: plan))
        for memo in memos {
            let object = try #require(try store.read { try $0.object("UserMemo", primaryKey: .uuid(memo.id)) })
            #expect(object["title"] == .string(memo.title))
            #expect(object["memoDescription"] == .string(Self.describe(memo.title, .date(memo.date))))
            #expect(object["count"] == .double(100))
        }
    }
}
