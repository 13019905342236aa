import Foundation
import GRDB
import Molt
import MoltAdoption
import Testing

/// wibosco's app (`../shared/foreign-stores/wibosco-progressive`) ships four model versions; its step 2 → 3 splits
/// each post's `hexColor` into a `Color` object that the post requires, which its Core Data app did with a mapping
/// model and custom code (as its step 1 → 2 renamed `color` to `hexColor` with another mapping model). Here a store at
/// version 1 is adopted and walked to version 4 by the app's Molt plan: the rename (1 → 2, `originalName`) and the
/// added Boolean (3 → 4) inferred, the split a custom stage; every post keeps its color, read from the original with
/// plain SQLite.
@Suite(
    "wibosco's model history walked with its color stage",
    .enabled(if: ForeignStores.isPresent, "../shared/foreign-stores is absent beside the package"))
struct WiboscoColorStageTests {
    static let model = "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"

    /// The app's plan: its four versions as `molt convert-model` writes them, with what its two mapping models
    /// did: 1 → 2 maps `color` to `hexColor` (in Molt, the attribute's original name), 2 → 3 makes the colors.
    static func plan() throws -> MigrationPlan {
        var schemas = try (1...4).map { try ForeignStores.schema(model: model, version: $0) }
        let post = try #require(schemas[1].entities.firstIndex { $0.name == "Post" })
        let hex = try #require(schemas[1].entities[post].attributes.firstIndex { $0.name == "hexColor" })
        schemas[1].entities[post].attributes[hex].originalName = "color"
        // convert-model, which cannot see the mapping model, declared `color` deleted: the rename replaces that.
        schemas[1].deletions.removeAll { $0.entity == "Post" && $0.property == "color" }
        return try MigrationPlan(
            schemas: schemas,
            stages: [
                .custom(from: 2, to: 3) { migration in
                    try migration.enumerateOldObjects(ofType: "Post") { old in
                        let color = try migration.create(
                            "Color", value: ["colorID": .string("color-\(old.id)"), "hex": old["hexColor"]])
                        guard let post = try migration.new.object("Post", id: old.id) else { return }
                        try migration.new.set("color", of: post, to: color)
                    }
                }
            ])
    }

    @Test("a version-1 store adopted and walked to 4: each post with a Color of its old hex, hidden false")
    func walk() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_1.sqlite", to: directory, as: "Posts.sqlite")
        // The original's colors, by Z_PK, read with plain SQLite before the adoption.
        let queue = try DatabaseQueue(path: url.path)
        let original = try queue.read { db in
            try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT Z_PK, ZCOLOR FROM ZPOST").map {
                    ($0["Z_PK"] as Int64, $0["ZCOLOR"] as String?)
                })
        }
        try queue.close()
        #expect(original.count == 1_001)
        let v4 = try ForeignStores.schema(model: Self.model, version: 4)
        let store = try Store.open(
            at: url, schema: v4,
            options: Store.Options().migrating(with: try Self.plan()).adopting(
                .coreData(model: ForeignStores.url(Self.model))))
        defer { try? store.close() }
        #expect(try Store.inspect(at: url).version == 4)
        try store.read { (objects: Objects) throws in
            #expect(try objects.count("Color") == 1_001)
            for post in try objects.fetch("Post") {
                let color = try #require(try objects.destination("color", of: post), "post \(post.id ?? 0)")
                #expect(color["hex"] == (original[post.id ?? 0]!.map(Value.string) ?? .null), "post \(post.id ?? 0)")
                #expect(post["hide"] == false)
            }
        }
    }
}
