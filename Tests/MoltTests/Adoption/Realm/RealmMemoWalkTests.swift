import Foundation
import Molt
import Testing

@testable import MoltAdoption

/// Seed 000's memo app end to end: a Realm file at each schema version 0–5 is adopted and walked to version 6 by
/// the app's own migration block, ported to `MigrationPlan.realm`, and the result agrees with the file Realm
/// itself migrated to version 6 (`memo_v6.realm`), read independently of the adoption.
@Suite(
    "Realm files: the memo app walked to its newest version",
    .enabled(if: ForeignStores.isPresent, "needs ../shared/foreign-stores"))
struct RealmMemoWalkTests {
    /// The memo app's newest schema, as the app declares it in Molt (an `ObjectId` key is its hex digits).
    static let v6 = Schema(version: 6) {
        Entity("UserMemo", primaryKey: "objectID") {
            Attribute("objectID", .string)
            Attribute("title", .string)
            Attribute("memoDate", .date)
            Attribute("memoSubtitle", .string, isOptional: true)
            Attribute("memoContent", .string, isOptional: true)
            Attribute("favorite", .bool)
            Attribute("memoDescription", .string)
            Attribute("count", .double)
        }
    }

    /// The seed's `Realm.Configuration(schemaVersion: 6) { migration, oldSchemaVersion in … }`, line for line. Where
    /// the seed reads a property an older file does not have (`title` before version 3, `count` before 5), the
    /// port reads the one that file has: Realm would stop there with "Invalid property name".
    static let plan = MigrationPlan.realm(schema: v6) { migration, oldSchemaVersion in
        if oldSchemaVersion < 3 {
            try migration.renameProperty(onType: "UserMemo", from: "memoTitle", to: "title")
        }
        if oldSchemaVersion < 4 {
            try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                let title = old[oldSchemaVersion < 3 ? "memoTitle" : "title"].string
                let date = old["memoDate"].date
                new["memoDescription"] = .string(
                    "안녕하세요 \(String(describing: title))은 \(String(describing: date))에 작성되었습니다")
            }
        }
        if oldSchemaVersion < 5 {
            try migration.enumerateObjects(ofType: "UserMemo") { _, new in new["count"] = 100 }
        }
        if oldSchemaVersion < 6, oldSchemaVersion >= 5 {
            try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                new["count"] = .double(Double(old["count"].int ?? 0))
            }
        }
    }

    /// `memo_v6.realm`'s memos by ObjectId: title, description and count, read with the file reader alone.
    static func realmMigrated() throws -> [String: [RealmValue]] {
        let file = try RealmFile(at: RealmAdoptionTests.url("memo_v6.realm"))
        let table = try #require(file.table(named: "class_UserMemo"))
        let columns = try ["objectID", "title", "memoDescription", "count"].map { name in
            try #require(table.columns.firstIndex { $0.name == name })
        }
        var memos: [String: [RealmValue]] = [:]
        try file.forEachObject(in: table) { memo in
            memos[memo.values[columns[0]].description] = columns.dropFirst().map { memo.values[$0] }
        }
        return memos
    }

    @Test("adopted at version N, walked to 6 by the Realm-form plan", arguments: 0...5)
    func walk(from version: Int) throws {
        let directory = TemporaryDirectory()
        let location = StoreLocation.file(directory.file("memos.sqlite"))
        let store = try Store.open(
            at: location, schema: Self.v6,
            options: Store.Options().migrating(with: Self.plan).adopting(
                .realm(from: RealmAdoptionTests.url("memo_v\(version).realm"))))
        defer { try? store.close() }
        let info = try Store.inspect(at: location)
        #expect(info.version == 6)
        #expect(info.adoption?.adoptedAtVersion == version)
        let migrated = try Self.realmMigrated()
        try store.read { (objects: Objects) throws in
            let memos = try objects.fetch("UserMemo")
            #expect(memos.count == 300 + 4 * version)
            var agreeing = 0
            for memo in memos {
                let description = try #require(memo["memoDescription"].string)
                if version < 4 {
                    #expect(memo["count"] == .double(100))
                    #expect(description.hasPrefix("안녕하세요 Optional(\"\(memo["title"].string ?? "")\")은 Optional("))
                }
                // The memos Realm migrated too, with the same title, agree with Realm's result to the byte.
                let objectID = "ObjectId(\(memo["objectID"].string ?? ""))"
                guard let realm = migrated[objectID], realm[0] == .string(memo["title"].string ?? "") else { continue }
                #expect(realm[1] == .string(description), "\(objectID)")
                #expect(realm[2] == .double(memo["count"].double ?? -1), "\(objectID)")
                agreeing += 1
            }
            // Each version deletes one memo and edits one, and the ones added after version N have their own values.
            #expect(agreeing >= 300 + 4 * version - 2 * (6 - version))
        }
    }

    @Test("the file Realm migrated to version 6 adopts at 6: no step to walk")
    func newest() throws {
        let directory = TemporaryDirectory()
        let location = StoreLocation.file(directory.file("memos.sqlite"))
        let store = try Store.open(
            at: location, schema: Self.v6,
            options: Store.Options().migrating(with: Self.plan).adopting(
                .realm(from: RealmAdoptionTests.url("memo_v6.realm"))))
        defer { try? store.close() }
        #expect(try Store.inspect(at: location).history.count <= 1)
        #expect(try store.read { try $0.count("UserMemo") } == 324)
    }
}
