// Issue 23: an app that shipped on Core Data switches to Molt. Its users' stores are Core Data's; the first Molt
// release adopts them where they are (a real store Core Data wrote: 1,001 posts, model version 1), then walks two
// Molt versions: v2 renames `color` to `hexColor` and adds a view count (inferred), v3 derives a title from the
// post's identifier (a custom stage).
import Foundation
import MoltAdoption
import MoltMacros

enum CoreDataAdoptionExample {
    /// The Molt schema of the Core Data model's first version, as `molt convert-model` writes it.
    enum V1: VersionedSchema {
        static let version = 1
        static let models: [any PersistentModel.Type] = [Post.self]
        @Model struct Post {
            var color: String?
            var date: Date?
            var postID: String?
        }
    }

    enum V2: VersionedSchema {
        static let version = 2
        static let models: [any PersistentModel.Type] = [Post.self]
        @Model struct Post {
            @Attribute(originalName: "color") var hexColor: String?
            var date: Date?
            var postID: String?
            var views: Int = 0
        }
    }

    enum V3: VersionedSchema {
        static let version = 3
        static let models: [any PersistentModel.Type] = [Post.self]
        @Model struct Post {
            var hexColor: String?
            var date: Date?
            var postID: String?
            var views: Int = 0
            var title: String = ""
        }
    }

    enum BlogPlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [V1.self, V2.self, V3.self]
        static var stages: [MigrationStage] {
            [
                .custom(from: 2, to: 3) { migration in
                    try migration.enumerateObjects(ofType: "Post") { old, new in
                        new["title"] = .string("Post \(old["postID"].string?.prefix(8) ?? "?")")
                    }
                }
            ]
        }
    }

    /// `../shared/foreign-stores/wibosco-progressive` beside the repository (test data kept outside it).
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/foreign-stores/wibosco-progressive")

    static func run(_ check: Checker) throws {
        let original = fixtures.appendingPathComponent("CoreDataMigration_Example_1.sqlite")
        guard FileManager.default.fileExists(atPath: original.path) else {
            print("  skipped: \(fixtures.path) is absent (the real Core Data store this example adopts)")
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-example-adoption-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The app's store, where Core Data left it.
        let url = folder.appendingPathComponent("Blog.sqlite")
        try FileManager.default.copyItem(at: original, to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)

        // The first Molt release: adopt, then walk v1 → v2 → v3, in one opening.
        let model = fixtures.appendingPathComponent("model/CoreDataMigration_Example.xcdatamodeld")
        let store = try Store.open(
            at: url, plan: BlogPlan.self, options: Store.Options().adopting(.coreData(model: model)))
        try store.read { objects in
            check.expect(try objects.count(V3.Post.self), 1001, "every post came over")
            let first = try objects.fetch(V3.Post.self, orderBy: [.ascending(\.date)], limit: 1000)
            check.expect(first.allSatisfy { $0.hexColor?.count == 6 }, true, "colors kept, renamed to hexColor")
            check.expect(first.allSatisfy { $0.views == 0 && $0.title.hasPrefix("Post ") }, true, "v2 and v3 ran")
            let post = try objects.model(V3.Post.self, id: 1)
            check.expect(post?.postID, "F3848AF4-92F0-45B1-9748-51782253BEC0", "Z_PK 1 is _id 1")
            check.expect(post?.hexColor, "6343E2", "its color")
            check.expect(
                post?.date?.timeIntervalSince1970,
                Date(timeIntervalSinceReferenceDate: 526914238.20319).timeIntervalSince1970,
                "its date, seconds since 2001 read as a Date")
        }
        try store.close()
        let info = try Store.inspect(at: url)
        check.expect(info.adoption?.engine, "Core Data", "the store says where it came from")
        check.expect(info.history.map(\.toVersion), [3], "one migration run after the adoption, to v3")
        check.expect(
            FileManager.default.fileExists(
                atPath: folder.appendingPathComponent("Blog.sqlite.adoption-backup/Blog.sqlite").path),
            true, "the original is kept as a backup")

        // The next launch opens the Molt store: nothing is adopted twice.
        let again = try Store.open(
            at: url, plan: BlogPlan.self, options: Store.Options().adopting(.coreData(model: model)))
        check.expect(again.outcome, .opened, "a second launch just opens")
        try again.close()
    }
}
