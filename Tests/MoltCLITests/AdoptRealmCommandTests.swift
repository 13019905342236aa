import Foundation
import Molt
import Testing

/// `molt adopt --from realm` on the memo app's Realm file (`../shared/foreign-stores/realm/memo_v0.realm`): no
/// model needed, adopted without migrating or walked on with `--to`, a property renamed, and refusals.
@Suite(
    "molt adopt --from realm",
    .enabled(if: FileManager.default.fileExists(atPath: RealmFiles.memos.path), "needs ../shared/foreign-stores"))
struct AdoptRealmCommandTests {
    static let memos = RealmFiles.memos

    @Test("without a model or --to: adopted at the file's own schema, every memo proven, recorded as from Realm")
    func adoptsWithoutModel() throws {
        let dir = TemporaryDirectory()
        let store = dir.url.appendingPathComponent("memos.sqlite").path
        let dry = try Molt.run(["adopt", Self.memos.path, "--from", "realm", "--into", store, "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("Realm schema version 0 → Molt version 0"), "\(dry)")
        #expect(!FileManager.default.fileExists(atPath: store))
        let run = try Molt.run(["adopt", Self.memos.path, "--from", "realm", "--into", store])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("UserMemo: 300 original, 300 adopted, values and links equal"), "\(run.stdout)")
        let info = try Molt.run(["info", store])
        #expect(info.stdout.contains("Realm"), "\(info.stdout)")
        // A second run finds a Molt store: nothing to adopt.
        let again = try Molt.run(["adopt", Self.memos.path, "--from", "realm", "--into", store])
        #expect(again.status == 0 && again.stdout.contains("nothing to adopt"), "\(again)")
    }

    @Test("--to walks the adopted store on; --rename gives a property another name")
    func walksAndRenames() throws {
        let dir = TemporaryDirectory()
        let first = dir.url.appendingPathComponent("first.sqlite").path
        let adopted = try Molt.run([
            "adopt", Self.memos.path, "--from", "realm", "--into", first, "--rename", "UserMemo.memoTitle=headline",
        ])
        #expect(adopted.status == 0, "\(adopted)")
        let snapshot = try Molt.run(["schema", first])
        var v1 = try Schema(snapshotJSON: Data(snapshot.stdout.utf8))
        #expect(v1.entity(named: "UserMemo")?.attribute(named: "headline") != nil)
        v1 = Schema(
            version: 1,
            entities: v1.entities.map { entity in
                var entity = entity
                entity.attributes.append(Attribute("tag", .string, isOptional: true))
                return entity
            })
        let target = dir.url.appendingPathComponent("1.json")
        try v1.snapshotJSON().write(to: target)
        let walked = dir.url.appendingPathComponent("walked.sqlite").path
        let run = try Molt.run([
            "adopt", Self.memos.path, "--from", "realm", "--into", walked, "--rename", "UserMemo.memoTitle=headline",
            "--to", target.path,
        ])
        #expect(run.status == 0 && run.stdout.contains("then 0 → 1"), "\(run)")
        #expect(try Molt.run(["info", walked]).stdout.contains("Version:     1"))
    }

    @Test("options that are not for a Realm file, and a file with a property Molt has no form for, are refused")
    func refusals() throws {
        let dir = TemporaryDirectory()
        let store = dir.url.appendingPathComponent("x.sqlite").path
        let model = try Molt.run(["adopt", Self.memos.path, "--from", "realm", "--model", "M.xcdatamodeld"])
        #expect(model.status == 2 && model.stderr.contains("not for --from realm"), "\(model)")
        let rename = try Molt.run(["adopt", Self.memos.path, "--rename", "a=b"])
        #expect(rename.status == 2 && rename.stderr.contains("--rename is for --from realm"), "\(rename)")
        let all = Self.memos.deletingLastPathComponent().appendingPathComponent("alltypes.realm").path
        let unsupported = try Molt.run(["adopt", all, "--from", "realm", "--into", store])
        #expect(unsupported.status != 0 && unsupported.stderr.contains("'anyCol'"), "\(unsupported)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}

/// The memo app's Realm file at schema version 0, in `../shared/foreign-stores/realm/`.
enum RealmFiles {
    static let memos = WiboscoStores.folder.deletingLastPathComponent().appendingPathComponent("realm/memo_v0.realm")
}
