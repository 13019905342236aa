import Foundation
import GRDB
import Molt
import MoltAdoption
import Testing

/// Adoption of real Core Data stores (`../shared/foreign-stores/wibosco-progressive`: four model versions, an
/// attribute renamed, an entity split out with a one-to-one relationship, a store whose rows are only in its
/// `-wal`), in place, with every value compared with the original read by plain SQLite.
@Suite(
    "Adopting Core Data stores",
    .enabled(if: ForeignStores.isPresent, "../shared/foreign-stores is absent beside the package"))
struct CoreDataAdoptionTests {
    static let model = "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"

    static func options() -> Store.Options {
        Store.Options().adopting(.coreData(model: ForeignStores.url(model)))
    }

    @Test("A version-1 store is adopted in place at version 1: every post's values, its identity, the backup")
    func adoptsInPlace() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_1.sqlite", to: directory, as: "Posts.sqlite")
        let originalBytes = ForeignStores.bytes(of: url)
        let v1 = try ForeignStores.schema(model: Self.model, version: 1)
        let store = try Store.open(at: url, schema: v1, options: Self.options())
        defer { try? store.close() }
        let original = try ForeignStores.rows(
            of: directory.file("Posts.sqlite.adoption-backup/Posts.sqlite"), table: "ZPOST", entityNumber: 1)
        #expect(original.count == 1001)
        let posts = try store.read { try $0.fetch("Post") }
        #expect(posts.count == 1001)
        for post in posts {
            let row = try #require(original[post.id ?? -1])
            #expect(post["postID"] == (row["ZPOSTID"] as String?).map(Value.string) ?? .null)
            #expect(post["color"] == (row["ZCOLOR"] as String?).map(Value.string) ?? .null)
            let seconds: Double? = row["ZDATE"]
            #expect(
                post["date"].date?.timeIntervalSince1970
                    == seconds.map { Date(timeIntervalSinceReferenceDate: $0).timeIntervalSince1970 })
        }
        // The original's files are kept, byte for byte, in the backup folder; nothing else is left beside.
        #expect(
            ForeignStores.bytes(of: directory.file("Posts.sqlite.adoption-backup/Posts.sqlite"))[""]
                == originalBytes[""])
        #expect(!FileManager.default.fileExists(atPath: directory.file(".Posts.sqlite.molt-adoption").path))
        let info = try Store.inspect(at: url)
        let adoption = try #require(info.adoption)
        #expect(adoption.engine == "Core Data")
        #expect(adoption.objectCounts == ["Post": 1001])
        #expect(adoption.sourceVersions.first == "CoreDataMigration_Example")
        #expect(adoption.leftOut.contains { $0.hasPrefix("Z_MODELCACHE") })
    }

    @Test("A version-3 store (an entity split out, one-to-one) is adopted and walked on to version 4")
    func adoptsAndMigrates() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_3.sqlite", to: directory, as: "Posts.sqlite")
        let v4 = try ForeignStores.schema(model: Self.model, version: 4)
        let store = try Store.open(at: url, schema: v4, options: Self.options())
        defer { try? store.close() }
        // The adoption wrote version 3 and migrated it to 4 before the opening: the store opens as it is, and its
        // history says both.
        #expect(store.outcome == .opened)
        let info = try Store.inspect(at: url)
        #expect(info.adoption?.adoptedAtVersion == 3)
        #expect(info.history.map { [$0.fromVersion, $0.toVersion] } == [[3, 4]])
        let backup = directory.file("Posts.sqlite.adoption-backup/Posts.sqlite")
        let posts = try ForeignStores.rows(of: backup, table: "ZPOST", entityNumber: 2)
        let colors = try ForeignStores.rows(of: backup, table: "ZCOLOR", entityNumber: 1)
        #expect(posts.count == 7995 && colors.count == 7995)
        try store.read { (objects: Objects) throws in
            for post in try objects.fetch("Post") {
                let row = try #require(posts[post.id ?? -1])
                #expect(post["postID"] == (row["ZPOSTID"] as String?).map(Value.string) ?? .null)
                let color: Int64? = row["ZCOLOR"]
                #expect(try objects.destinations("color", of: post).map(\.id) == (color.map { [$0] } ?? []))
            }
            for color in try objects.fetch("Color") {
                let row = try #require(colors[color.id ?? -1])
                #expect(color["hex"] == (row["ZHEX"] as String?).map(Value.string) ?? .null)
                let post: Int64? = row["ZPOST"]
                #expect(try objects.destinations("post", of: color).map(\.id) == (post.map { [$0] } ?? []))
            }
        }
    }

    @Test("A store whose rows are only in its -wal is adopted whole")
    func adoptsWALStore() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_WAL.sqlite", to: directory, as: "Posts.sqlite")
        let v4 = try ForeignStores.schema(model: Self.model, version: 4)
        let store = try Store.open(at: url, schema: v4, options: Self.options())
        defer { try? store.close() }
        #expect(try store.read { try $0.count("Post") } == 84)
        #expect(try store.read { try $0.count("Color") } == 84)
        #expect(
            FileManager.default.fileExists(atPath: directory.file("Posts.sqlite.adoption-backup/Posts.sqlite-wal").path)
        )
    }

    @Test("An adopted store is not adopted again: the next opening opens it")
    func adoptsOnce() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_2.sqlite", to: directory, as: "Posts.sqlite")
        let v2 = try ForeignStores.schema(model: Self.model, version: 2)
        try Store.open(at: url, schema: v2, options: Self.options()).close()
        let again = try Store.open(at: url, schema: v2, options: Self.options())
        defer { try? again.close() }
        #expect(again.outcome == .opened)
        #expect(try again.read { try $0.count("Post") } == 5979)
    }

    @Test("A model that lacks the store's version is refused naming what differs; the original is unchanged")
    func refusesWrongModel() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_2.sqlite", to: directory, as: "Posts.sqlite")
        let before = ForeignStores.bytes(of: url)
        let onlyFirst = ForeignStores.url("\(Self.model)/CoreDataMigration_Example.xcdatamodel")
        let v1 = try ForeignStores.schema(model: Self.model, version: 1)
        let error = try #require(throws: MoltError.self) {
            try Store.open(at: url, schema: v1, options: Store.Options().adopting(.coreData(model: onlyFirst)))
        }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("ZCOLOR") && error.message.contains("'Post'"))
        #expect(error.message.contains("left as it was"))
        #expect(ForeignStores.bytes(of: url) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.file(".Posts.sqlite.molt-adoption").path))
        #expect(!FileManager.default.fileExists(atPath: directory.file("Posts.sqlite.adoption-backup").path))
    }

    @Test("A Core Data hierarchy (Car ← SportCar ← ExpensiveSportCar in one table) becomes a Molt hierarchy")
    func adoptsHierarchy() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy("coredataplus-cars/SampleModel_V1.sqlite", to: directory, as: "Cars.sqlite")
        let adoption = CoreDataAdoption(
            model: ForeignStores.url("coredataplus-cars/model/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"))
        let schema = try adoption.matchedVersion(of: url).schema
        #expect(schema.entity(named: "SportCar")?.parent == "Car")
        #expect(schema.entity(named: "ExpensiveSportCar")?.parent == "SportCar")
        let store = try Store.open(at: url, schema: schema, options: Store.Options().adopting(adoption))
        defer { try? store.close() }
        try store.read { (objects: Objects) throws in
            // A fetch of the parent holds every car, each as its own entity, with its Z_PK.
            let cars = try objects.fetch("Car")
            #expect(cars.count == 125)
            #expect(
                Dictionary(cars.map { ($0.entity, 1) }, uniquingKeysWith: +) == [
                    "Car": 115, "SportCar": 5, "ExpensiveSportCar": 5,
                ])
            let mclaren = try #require(cars.first { $0.id == 14 })
            #expect(
                mclaren.entity == "ExpensiveSportCar" && mclaren["maker"] == "McLaren" && mclaren["model"] == "570GT")
            // A person's cars, a relationship to the parent, hold sub-entities' objects.
            let owner = try #require(try objects.object("Person", id: 13))
            #expect(try objects.destinations("cars", of: owner).map(\.id).contains(21))
        }
    }

    @Test("A row whose Z_ENT no entity of the model has is refused, never left behind; nothing is written")
    func refusesUnclaimedRows() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_1.sqlite", to: directory, as: "Posts.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "UPDATE ZPOST SET Z_ENT = 7 WHERE Z_PK IN (1, 2)") }
        try queue.close()
        let before = ForeignStores.bytes(of: url)
        let v1 = try ForeignStores.schema(model: Self.model, version: 1)
        let error = try #require(throws: MoltError.self) {
            try Store.open(at: url, schema: v1, options: Self.options())
        }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("Table ZPOST has 2 row(s) of entity number 7"))
        #expect(ForeignStores.bytes(of: url) == before)
    }

    @Test("A damaged store (zeros over a page) is refused as damaged; nothing is written")
    func refusesDamagedStore() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_3.sqlite", to: directory, as: "Posts.sqlite")
        var bytes = try Data(contentsOf: url)
        bytes.replaceSubrange(4096..<8192, with: Data(count: 4096))
        try bytes.write(to: url)
        let v4 = try ForeignStores.schema(model: Self.model, version: 4)
        let error = try #require(throws: MoltError.self) {
            try Store.open(at: url, schema: v4, options: Self.options())
        }
        #expect(error.code == .corruptStore)
        #expect(error.message.contains("is damaged (quick_check: "))
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["Posts.sqlite"])
    }

    @Test("A failing plan walk after the copy leaves the original as it was")
    func refusalAfterCopyKeepsOriginal() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_1.sqlite", to: directory, as: "Posts.sqlite")
        let before = ForeignStores.bytes(of: url)
        // Version 2 renames color → hexColor; a target that makes a new required attribute without default
        // cannot be reached from objects that exist.
        var target = try ForeignStores.schema(model: Self.model, version: 2)
        target.entities[0].attributes.append(Attribute("rating", .int))
        #expect(throws: MoltError.self) {
            try Store.open(at: url, schema: target, options: Self.options())
        }
        #expect(ForeignStores.bytes(of: url) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.file(".Posts.sqlite.molt-adoption").path))
        #expect(try ForeignFileKind.isCoreData(url))
    }

    @Test("An adoption that stopped before it was done is dropped; one that was done is finished")
    func recoversInterruptedAdoption() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_1.sqlite", to: directory, as: "Posts.sqlite")
        let before = ForeignStores.bytes(of: url)
        let work = directory.file(".Posts.sqlite.molt-adoption")
        // Killed mid-copy: a work folder without READY, holding a partial store.
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: work.appendingPathComponent("adopted.sqlite"))
        let v1 = try ForeignStores.schema(model: Self.model, version: 1)
        let store = try Store.open(at: url, schema: v1, options: Self.options())
        #expect(try store.read { try $0.count("Post") } == 1001)
        try store.close()
        #expect(ForeignStores.bytes(of: directory.file("Posts.sqlite.adoption-backup/Posts.sqlite")) == before)

        // Killed after READY, with the original already moved aside: the next opening puts the new store in.
        let second = TemporaryDirectory()
        let url2 = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_1.sqlite", to: second, as: "Posts.sqlite")
        let work2 = second.file(".Posts.sqlite.molt-adoption")
        try FileManager.default.createDirectory(
            at: work2.appendingPathComponent("original"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: url, to: work2.appendingPathComponent("adopted.sqlite"))
        try FileManager.default.moveItem(at: url2, to: work2.appendingPathComponent("original/Posts.sqlite"))
        FileManager.default.createFile(atPath: work2.appendingPathComponent("READY").path, contents: Data())
        let finished = try Store.open(at: url2, schema: v1, options: Self.options())
        defer { try? finished.close() }
        #expect(try finished.read { try $0.count("Post") } == 1001)
        #expect(FileManager.default.fileExists(atPath: second.file("Posts.sqlite.adoption-backup/Posts.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: work2.path))
    }

    @Test("A Core Data store is adopted into PostgreSQL with the same proof; the file is not changed")
    func adoptsIntoPostgres() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_3.sqlite", to: directory, as: "Posts.sqlite")
        let before = ForeignStores.bytes(of: url)
        let location = try StoreKind.postgres.location(in: directory)
        let v4 = try ForeignStores.schema(model: Self.model, version: 4)
        let adoption = CoreDataAdoption(model: ForeignStores.url(Self.model), from: url)
        let report = try #require(try adoption.adopt(at: location, schema: v4, options: Store.Options()))
        #expect(report.comparison.agrees)
        #expect(report.comparison.lines.map(\.adoptedCount) == [7995, 7995])
        let store = try Store.open(at: location, schema: v4)
        defer { try? store.close() }
        #expect(try store.read { try $0.count("Post") } == 7995)
        #expect(ForeignStores.bytes(of: url) == before)
        // Adopted once: a second adoption finds the Molt store and does nothing.
        #expect(try adoption.adopt(at: location, schema: v4, options: Store.Options()) == nil)
    }
}

/// Whether a file is still a Core Data store (its Z_METADATA table readable).
enum ForeignFileKind {
    static func isCoreData(_ url: URL) throws -> Bool {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try db.tableExists("Z_METADATA") }
    }
}
