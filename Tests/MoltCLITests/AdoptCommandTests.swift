import Foundation
import Molt
import Testing

/// `molt adopt` on a real Core Data store (`../shared/foreign-stores/wibosco-progressive`), with the snapshots
/// `molt convert-model` writes for its model: dry run, rehearsal, adoption in place, and a second run.
@Suite(
    "molt adopt",
    .enabled(
        if: FileManager.default.fileExists(atPath: WiboscoStores.folder.path),
        "../shared/foreign-stores is absent beside the package"))
struct AdoptCommandTests {
    static let folder = WiboscoStores.folder
    static let model = folder.appendingPathComponent("model/CoreDataMigration_Example.xcdatamodeld").path

    /// A writable copy of the version-3 store and the model's snapshots, in a temporary folder.
    private func prepare(_ dir: TemporaryDirectory) throws -> (store: String, snapshots: String) {
        let store = dir.url.appendingPathComponent("Posts.sqlite")
        try FileManager.default.copyItem(
            at: Self.folder.appendingPathComponent("CoreDataMigration_Example_3.sqlite"), to: store)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.path)
        let snapshots = dir.url.appendingPathComponent("snapshots").path
        let converted = try Molt.run(["convert-model", Self.model, "--out", snapshots, "--approximate", "all"])
        try #require(converted.status == 0, "\(converted)")
        return (store.path, snapshots)
    }

    @Test("--dry-run and --rehearse name the model version and the steps and leave the store as it was")
    func dryRunAndRehearsal() throws {
        let dir = TemporaryDirectory()
        let (store, snapshots) = try prepare(dir)
        let before = FileManager.default.contents(atPath: store)
        let dry = try Molt.run(["adopt", store, "--model", Self.model, "--to", snapshots, "--dry-run"])
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.stdout.contains("'CoreDataMigration_Example 3' → Molt version 3"))
        #expect(dry.stdout.contains("3 → 4 (inferred)"))
        let rehearsal = try Molt.run(["adopt", store, "--model", Self.model, "--to", snapshots, "--rehearse", "--json"])
        #expect(rehearsal.status == 0, "\(rehearsal)")
        let report = try JSONSerialization.jsonObject(with: Data(rehearsal.stdout.utf8)) as? [String: Any]
        let lines = report?["comparison"] as? [[String: Any]] ?? []
        #expect(lines.map { $0["adopted"] as? Int } == [7995, 7995])
        #expect(lines.allSatisfy { $0["valuesAndLinksEqual"] as? Bool == true })
        #expect(report?["written"] as? Bool == false)
        #expect(FileManager.default.contents(atPath: store) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == ["Posts.sqlite", "snapshots"])
    }

    @Test("--schema instead of --model (a SwiftData app has no model file): the snapshot that describes the store")
    func adoptsMatchingSnapshots() throws {
        let dir = TemporaryDirectory()
        let (store, snapshots) = try prepare(dir)
        let run = try Molt.run(["adopt", store, "--schema", snapshots, "--to", snapshots])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("Molt schema version 3 → Molt version 3"), "\(run.stdout)")
        #expect(run.stdout.contains("values and links equal"))
        let info = try Molt.run(["info", store])
        #expect(info.stdout.contains("Version:     4"), "\(info.stdout)")
        let mixed = try Molt.run(["adopt", store, "--model", Self.model, "--schema", snapshots, "--to", snapshots])
        #expect(mixed.status == 2, "\(mixed)")
        let stray = try Molt.run([
            "adopt", store, "--model", Self.model, "--external-storage", "Post.photo", "--to", snapshots,
        ])
        #expect(stray.status == 2 && stray.stderr.contains("--external-storage is for --from coredata with --schema"))
    }

    @Test("with neither --model nor --schema, the model the store carries (Z_MODELCACHE) is read, adopted as version 0")
    func adoptsWithStoredModel() throws {
        let dir = TemporaryDirectory()
        let (store, snapshots) = try prepare(dir)
        // A folder walk needs the store's version among its snapshots: the recovered model goes to one snapshot.
        let target = snapshots + "/4.json"
        let dry = try Molt.run(["adopt", store, "--to", target, "--dry-run"])
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.stdout.contains("the model in Z_MODELCACHE → Molt version 0"), "\(dry.stdout)")
        let run = try Molt.run(["adopt", store, "--to", target])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("values and links equal"))
        let info = try Molt.run(["info", store])
        #expect(info.stdout.contains("Version:     4"), "\(info.stdout)")
    }

    @Test(
        "An adoption in place reaches the target, keeps the original, and shows in molt info; a second run does nothing"
    )
    func adoptsInPlace() throws {
        let dir = TemporaryDirectory()
        let (store, snapshots) = try prepare(dir)
        let before = FileManager.default.contents(atPath: store)
        let run = try Molt.run(["adopt", store, "--model", Self.model, "--to", snapshots])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("Color: 7995 original, 7995 adopted, values and links equal"))
        #expect(FileManager.default.contents(atPath: store + ".adoption-backup/Posts.sqlite") == before)
        #expect(try Store.version(at: URL(fileURLWithPath: store)) == 4)
        let info = try Molt.run(["info", store])
        #expect(info.stdout.contains("Adopted:     from Core Data (CoreDataMigration_Example 3"))
        let again = try Molt.run(["adopt", store, "--model", Self.model, "--to", snapshots])
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("nothing to adopt"))
    }

    @Test(
        "A run after a kill that left an adoption done but not swapped in finishes it and says so (exit 0)",
        arguments: [false, true])
    func finishesInterruptedAdoption(originalMoved: Bool) throws {
        let dir = TemporaryDirectory()
        let (store, snapshots) = try prepare(dir)
        // An adopted store, made aside by a whole run.
        let aside = TemporaryDirectory()
        let (asideStore, _) = try prepare(aside)
        let adopted = try Molt.run(["adopt", asideStore, "--model", Self.model, "--to", snapshots])
        try #require(adopted.status == 0, "\(adopted)")
        // The state a kill leaves once the adoption is done (`READY` written) and before the swap: the work folder
        // beside the store (`.Posts.sqlite.molt-adoption/`) holds the adopted store.
        let before = FileManager.default.contents(atPath: store)
        let work = dir.url.appendingPathComponent(".Posts.sqlite.molt-adoption")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: asideStore, toPath: work.appendingPathComponent("adopted.sqlite").path)
        FileManager.default.createFile(atPath: work.appendingPathComponent("READY").path, contents: Data())
        if originalMoved {
            // Killed between the swap's moves: the original in the work folder, nothing at the store's path yet.
            let moved = work.appendingPathComponent("original")
            try FileManager.default.createDirectory(at: moved, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: store, toPath: moved.appendingPathComponent("Posts.sqlite").path)
        }

        let run = try Molt.run(["adopt", store, "--model", Self.model, "--to", snapshots])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("There is nothing more to adopt"), "\(run.stdout)")
        #expect(try Store.version(at: URL(fileURLWithPath: store)) == 4)
        #expect(FileManager.default.contents(atPath: store + ".adoption-backup/Posts.sqlite") == before)
        #expect(!FileManager.default.fileExists(atPath: work.path))
    }

    /// A writable copy of a store of `../shared/foreign-stores` in `dir`, and its model (`model`, a path in that
    /// folder) converted by `molt convert-model --hierarchies` into `dir/snapshots`.
    static func converted(
        _ file: String, model: String, in dir: TemporaryDirectory
    ) throws -> (store: URL, model: String, snapshots: String) {
        let shared = Self.folder.deletingLastPathComponent()
        let store = dir.file(URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent + ".sqlite")
        try FileManager.default.copyItem(at: shared.appendingPathComponent(file), to: store)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.path)
        let modelPath = shared.appendingPathComponent(model).path
        let snapshots = dir.file("snapshots").path
        let converted = try Molt.run([
            "convert-model", modelPath, "--out", snapshots, "--hierarchies", "--approximate", "all",
        ])
        try #require(converted.status == 0, "\(converted)")
        return (store, modelPath, snapshots)
    }

    @Test("convert-model --hierarchies writes Core Data's sub-entities as Molt's, as adopt reads them")
    func convertsHierarchies() throws {
        let dir = TemporaryDirectory()
        let model = Self.folder.deletingLastPathComponent()
            .appendingPathComponent("coredataplus-cars/model/SampleModel.xcdatamodeld/SampleModel.xcdatamodel").path
        let run = try Molt.run(["convert-model", model, "--out", dir.url.path, "--hierarchies", "--approximate", "all"])
        #expect(run.status == 0, "\(run)")
        let schema = try Schema(snapshotJSON: Data(contentsOf: dir.file("1.json")))
        #expect(schema.entity(named: "ExpensiveSportCar")?.parent == "SportCar")
        #expect(schema.entity(named: "SportCar")?.parent == "Car")
        #expect(!run.stdout.contains("[inheritance]"))
    }

    @Test("An adopted hierarchy exports and imports back to the same file: every object once, as its own entity")
    func hierarchyRoundTrip() throws {
        let dir = TemporaryDirectory()
        let (store, model, snapshots) = try Self.converted(
            "coredataplus-cars/SampleModel_V1.sqlite",
            model: "coredataplus-cars/model/SampleModel.xcdatamodeld/SampleModel.xcdatamodel", in: dir)
        let adopted = try Molt.run(["adopt", store.path, "--model", model, "--to", snapshots])
        #expect(adopted.status == 0, "\(adopted)")
        let first = try Molt.run(["export", store.path])
        #expect(first.status == 0, "\(first)")
        try Data(first.stdout.utf8).write(to: dir.file("cars.json"))
        let data = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
        let entities = data?["entities"] as? [String: [Any]] ?? [:]
        #expect(entities.mapValues(\.count) == ["Car": 115, "SportCar": 5, "ExpensiveSportCar": 5, "Person": 20])
        let copy = dir.file("Copy.sqlite").path
        let imported = try Molt.run(["import", copy, "--schema", snapshots + "/1.json", dir.file("cars.json").path])
        #expect(imported.status == 0, "\(imported)")
        let second = try Molt.run(["export", copy])
        #expect(second.stdout == first.stdout)
    }

    @Test("Wire's messages, whose siblings declare the same properties, adopt, export and import back to the same file")
    func siblingsRoundTrip() throws {
        let dir = TemporaryDirectory()
        let (store, model, snapshots) = try Self.converted(
            "wire/store2-101-0.wiredatabase", model: "wire/model/zmessaging.xcdatamodeld", in: dir)
        let adopted = try Molt.run(["adopt", store.path, "--model", model, "--to", snapshots])
        #expect(adopted.status == 0, "\(adopted)")
        let first = try Molt.run(["export", store.path])
        #expect(first.status == 0, "\(first)")
        try Data(first.stdout.utf8).write(to: dir.file("wire.json"))
        let data = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
        let entities = data?["entities"] as? [String: [Any]] ?? [:]
        #expect(entities["SystemMessage"]?.count == 21)
        #expect(entities["ClientMessage"]?.count == 3)
        let newest = try #require(
            try FileManager.default.contentsOfDirectory(atPath: snapshots).compactMap(
                SnapshotFolder.version(ofFileNamed:)
            )
            .max())
        // Its clients hold fewer than their minimum counts (Core Data's, kept by the adoption: see
        // `wireMinimumCounts`), and an import inserts them: refused, as any write that inserts them is.
        let refused = try Molt.run([
            "import", dir.file("Refused.sqlite").path, "--schema", snapshots + "/\(newest).json",
            dir.file("wire.json").path,
        ])
        #expect(refused.status == 1, "\(refused)")
        #expect(
            refused.stderr.contains(
                "Relationship 'UserClient.ignoredByClients' must hold at least 1 object, so nothing was written: 8 'UserClient' objects (_id 1, 2, 3, …) have no 'ignoredByClients' when the write ends."
            ), "\(refused)")
        // The same version without those minimums takes them back, to the same file.
        let relaxed = dir.file("relaxed.json")
        let snapshot = try String(contentsOfFile: snapshots + "/\(newest).json", encoding: .utf8)
        try Data(snapshot.replacing(#/,\s*"minimumCount"\s*:\s*\d+/#, with: "").utf8).write(to: relaxed)
        let copy = dir.file("Copy.sqlite").path
        let imported = try Molt.run(["import", copy, "--schema", relaxed.path, dir.file("wire.json").path])
        #expect(imported.status == 0, "\(imported)")
        let second = try Molt.run(["export", copy])
        #expect(second.stdout == first.stdout)
    }

    @Test(
        "A Wire store whose objects break a minimum count Core Data added (and checks only at save) adopts, listing them; info shows them and check STORE lists them as sound"
    )
    func wireMinimumCounts() throws {
        let dir = TemporaryDirectory()
        let (store, model, snapshots) = try Self.converted(
            "wire/store2-101-0.wiredatabase", model: "wire/model/zmessaging.xcdatamodeld", in: dir)
        // UserClient's trust and ignore pairs, required from Wire 1.27 on: Core Data left the clients it knew of
        // before without them.
        let lines = [
            "8 'UserClient' objects (_id 1, 2, 3, …) hold fewer than 1 'ignoredByClients'",
            "11 'UserClient' objects (_id 2, 3, 4, …) hold fewer than 1 'ignoredClients'",
            "12 'UserClient' objects (_id 1, 2, 3, …) hold fewer than 1 'trustedByClients'",
            "12 'UserClient' objects (_id 1, 2, 3, …) hold fewer than 1 'trustedClients'",
        ].map {
            $0
                + " (Core Data checks minimum counts only at save); Molt keeps them and checks them when they are written"
        }
        let adopted = try Molt.run(["adopt", store.path, "--model", model, "--to", snapshots])
        #expect(adopted.status == 0, "\(adopted)")
        let adoptLines = adopted.stdout.split(separator: "\n").map(String.init)
        #expect(adoptLines.filter { $0.hasPrefix("  short: ") } == lines.map { "  short: \($0)" }, "\(adopted)")
        let json = try Molt.run(["info", store.path, "--json"])
        let info = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((info?["adoptedFrom"] as? [String: Any])?["underMinimumCount"] as? [String] == lines, "\(json)")
        let text = try Molt.run(["info", store.path])
        let infoLines = text.stdout.split(separator: "\n").map(String.init)
        #expect(infoLines.filter { $0.hasPrefix("  short:") } == lines.map { "  short:     \($0)" }, "\(text)")
        // Not damage: check STORE says the store is sound and lists them, exit 0.
        let check = try Molt.run(["check", store.path])
        #expect(check.status == 0, "\(check)")
        #expect(
            check.stdout.contains(
                "  kept under a minimum count (as Core Data keeps them; writes that change them must meet it): the relationship 'UserClient.ignoredByClients' is under its minimum count of 1: 8 'UserClient' objects (_id 1, 2, 3, …) have no 'ignoredByClients'"
            ), "\(check)")
        let checkJSON = try Molt.run(["check", store.path, "--json"])
        let checked = try JSONSerialization.jsonObject(with: Data(checkJSON.stdout.utf8)) as? [String: Any]
        #expect((checked?["underMinimumCount"] as? [String])?.count == 4, "\(checkJSON)")
    }

    @Test("A missing external-storage file is refused (exit 3); --missing-external-data null adopts it as null, listed")
    func missingExternalData() throws {
        let dir = TemporaryDirectory()
        let (store, model, snapshots) = try Self.converted(
            "wire/store1-25.wiredatabase", model: "wire/model/zmessaging.xcdatamodeld", in: dir)
        // Wire 1.25, kept at its version (WireShortOwnersWalkTests walks it to the newest).
        let before = FileManager.default.contents(atPath: store.path)
        let refused = try Molt.run(["adopt", store.path, "--model", model, "--to", snapshots, "--to-version", "1"])
        #expect(refused.status == 3, "\(refused)")
        #expect(refused.stderr.contains("--missing-external-data null"), "\(refused)")
        #expect(FileManager.default.contents(atPath: store.path) == before)
        // A rehearsal takes the option too, and leaves the store as it was.
        let rehearsal = try Molt.run([
            "adopt", store.path, "--model", model, "--to", snapshots, "--to-version", "1", "--missing-external-data",
            "null", "--rehearse",
        ])
        #expect(rehearsal.status == 0, "\(rehearsal)")
        #expect(FileManager.default.contents(atPath: store.path) == before)
        let adopted = try Molt.run([
            "adopt", store.path, "--model", model, "--to", snapshots, "--to-version", "1", "--missing-external-data",
            "null",
        ])
        #expect(adopted.status == 0, "\(adopted)")
        #expect(adopted.stdout.contains("external-storage file was missing, adopted as null"), "\(adopted)")
        let info = try Molt.run(["info", store.path])
        #expect(info.stdout.contains("external-storage file was missing"), "\(info)")
    }

    @Test("A model without the store's version is refused with exit 3, naming the difference; nothing is written")
    func refusesWrongModel() throws {
        let dir = TemporaryDirectory()
        let (store, snapshots) = try prepare(dir)
        let before = FileManager.default.contents(atPath: store)
        let first = Self.model + "/CoreDataMigration_Example.xcdatamodel"
        let run = try Molt.run(["adopt", store, "--model", first, "--to", snapshots])
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("No version of the Core Data model"))
        #expect(FileManager.default.contents(atPath: store) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == ["Posts.sqlite", "snapshots"])
    }
}

/// `molt adopt --from sqlite` on a database that GRDB's or FMDB's users have: plain tables, `user_version`.
@Suite("molt adopt --from sqlite")
struct AdoptSQLiteCommandTests {
    @Test("A database read as a schema snapshot, with a mapping file, adopted in place; a bad row is refused")
    func adoptsDatabase() throws {
        let dir = TemporaryDirectory()
        let database = dir.file("app.db").path
        let sql = """
            PRAGMA user_version = 2;
            CREATE TABLE folder (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL, folder_ref INTEGER REFERENCES folder(id));
            INSERT INTO folder VALUES (3, 'Inbox');
            INSERT INTO note VALUES (10, 'Hello', 3), (11, 'Loose', NULL);
            """
        let created = try Molt.run(["-c", "sqlite3 \"$0\" \"$1\"", database, sql], shell: true)
        try #require(created.status == 0, "\(created)")
        let schema = Schema(version: 1) {
            Entity("Folder") {
                Attribute("title", .string)
                Relationship("notes", toMany: "Note", inverse: "folder")
            }
            Entity("Note") {
                Attribute("body", .string)
                Relationship("folder", to: "Folder", inverse: "notes")
            }
        }
        try schema.snapshotJSON().write(to: dir.file("1.json"))
        try Data(#"{"tables": [{"entity": "Note", "table": "note", "columns": {"folder": "folder_ref"}}]}"#.utf8)
            .write(to: dir.file("tables.json"))
        let arguments = [
            "adopt", database, "--from", "sqlite", "--schema", dir.file("1.json").path, "--tables",
            dir.file("tables.json").path, "--to", dir.file("1.json").path,
        ]
        let run = try Molt.run(arguments)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("Note: 2 original, 2 adopted, values and links equal"))
        let info = try Store.inspect(at: URL(fileURLWithPath: database))
        #expect(info.adoption?.sourceVersions == ["user_version 2"])
        #expect(info.objectCounts == ["Folder": 1, "Note": 2])
    }
}

/// `../shared/foreign-stores/wibosco-progressive` beside the package.
enum WiboscoStores {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/foreign-stores/wibosco-progressive")
}
