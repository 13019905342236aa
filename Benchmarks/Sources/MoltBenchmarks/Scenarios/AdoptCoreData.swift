import Foundation
import GRDB
import Molt
import MoltAdoption

/// Adoption of a Core Data store of N posts in 1,000 folders (issue 23), in Swift and with `molt adopt` (the whole
/// process, from spawn to exit): `Store.open` with `.adopting(.coreData(model:))` on the store in place — the
/// store read in place, the copy (one `INSERT … SELECT` per entity and per to-many), the proof in SQL, the swap —
/// against what an engineer would write by hand: the Core Data store attached to an empty store of Molt's layout and one `INSERT … SELECT` per table of
/// that layout (`Folder`, `Post`, and the join table `Folder_posts` of `Folder.posts`, whose rows Molt keeps
/// beside the `folder` column), in one transaction (target: ≤ 1.3×). Both results hold the same rows (checked
/// each round).
///
/// The Core Data store is made by ``CoreDataLayoutStore``, as Core Data lays one out (`Z_PK`, `Z_ENT`, `Z_OPT`,
/// `Z` columns, dates in seconds since 2001, `Z_PRIMARYKEY`, `Z_METADATA` with its binary property list).
struct AdoptCoreData: Scenario {
    let name = "adopt-coredata"
    let summary = "Adoption of a Core Data store of 1M posts in place vs a hand-written INSERT … SELECT copy"

    func run(_ runner: Runner) throws -> [Comparison] {
        let count = runner.largeCount
        let folder = runner.folder.appendingPathComponent("adopt-coredata")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let model = try CoreDataLayoutStore.writeModel(in: folder)
        let template = folder.appendingPathComponent("template.sqlite")
        try CoreDataLayoutStore.write(posts: count, folders: 1_000, to: template)
        let schema = try CoreDataAdoption(model: model).matchedVersion(of: template).schema
        let emptyMolt = folder.appendingPathComponent("empty-molt.sqlite")
        try Store.open(at: emptyMolt, schema: schema).close()
        // Molt's layout keeps both sides of `Folder.posts` ↔ `Post.folder`: the `folder` column and the join table.
        let same = SameResult(tables: ["Folder", "Post", "Folder_posts"])

        let moltJob = Runner.Job(count: 0) { url, stopwatch in
            try Fixture.copy(template, to: url)
            let store = try stopwatch.time {
                try Store.open(
                    at: url, schema: schema,
                    options: Store.Options().adopting(.coreData(model: model, original: .removed)))
            }
            try store.close()
            try same.check(url)
        }
        // `molt adopt`, the whole process timed from spawn to exit: what a user runs from a terminal or a script.
        let molt = try ChildProcess.moltBinary()
        let snapshot = folder.appendingPathComponent("blog-v0.json")
        try schema.snapshotJSON().write(to: snapshot)
        let cliJob = Runner.Job(count: 0) { url, stopwatch in
            try Fixture.copy(template, to: url)
            try stopwatch.timeProcess(
                molt,
                [
                    "adopt", url.path, "--from", "coredata", "--model", model.path, "--to", snapshot.path,
                    "--remove-original",
                ])
            try same.check(url)
        }
        let baselineJob = Runner.Job(count: 0) { url, stopwatch in
            try Fixture.copy(emptyMolt, to: url)
            let queue = try DatabaseQueue(path: url.path, configuration: Fixture.configuration)
            try stopwatch.time {
                try queue.writeWithoutTransaction { db in
                    // As Molt's copy runs: links checked by the copy, not row by row by SQLite (which looks up
                    // every join row's post, out of order, and took 11–18 s of the 1M run).
                    try db.execute(sql: "PRAGMA foreign_keys = OFF")
                    // As Molt writes a new store: a rollback journal (of nothing, the file being empty), then WAL.
                    try db.execute(sql: "PRAGMA journal_mode = DELETE")
                    try db.execute(sql: "ATTACH DATABASE ? AS cd", arguments: [template.path])
                    try db.inTransaction(.immediate) {
                        try db.execute(sql: "INSERT INTO Folder (_id, name) SELECT Z_PK, ZNAME FROM cd.ZFOLDER")
                        try db.execute(
                            sql: """
                                INSERT INTO Post (_id, title, count, date, folder)
                                SELECT Z_PK, ZTITLE, ZCOUNT, ZDATE + 978307200, ZFOLDER FROM cd.ZPOST
                                """)
                        try db.execute(
                            sql: """
                                INSERT INTO Folder_posts (owner, target)
                                SELECT ZFOLDER, Z_PK FROM cd.ZPOST WHERE ZFOLDER IS NOT NULL
                                """)
                        return .commit
                    }
                    try db.execute(sql: "DETACH DATABASE cd")
                    try db.execute(sql: "PRAGMA foreign_keys = ON")
                    try db.execute(sql: "PRAGMA journal_mode = WAL")
                }
            }
            try queue.close()
            try same.check(url)
        }
        let scratch = folder.appendingPathComponent("round.sqlite")
        let m = try runner.measure([moltJob, baselineJob, cliJob], repetitions: runner.repetitions) { _ in scratch }
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: scratch.path + ".adoption-backup"))
        let label = Runner.label(count)
        log("  \(label): adoption \(perObject(m[0], count)), INSERT … SELECT \(perObject(m[1], count)) per object")
        return [
            Comparison(
                scenario: name, label: "adopt a Core Data store of \(label) posts",
                baselineDescription: "ATTACH + INSERT … SELECT per table", molt: m[0], baseline: m[1],
                target: .atMost(1.3)),
            Comparison(
                scenario: name, label: "molt adopt (CLI process) of \(label) posts",
                baselineDescription: "ATTACH + INSERT … SELECT per table", molt: m[2], baseline: m[1],
                target: .atMost(1.3)),
        ]
    }
}

/// A Core Data store written as Core Data lays one out, for a model of two entities: `Folder(name)` and
/// `Post(title, count, date, folder)` with `Folder.posts` its inverse.
enum CoreDataLayoutStore {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
            <entity name="Folder" representedClassName="Folder" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <relationship name="posts" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Post" inverseName="folder" inverseEntity="Post"/>
            </entity>
            <entity name="Post" representedClassName="Post" syncable="YES">
                <attribute name="count" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="date" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="title" attributeType="String"/>
                <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="posts" inverseEntity="Folder"/>
            </entity>
        </model>
        """

    /// Writes `Blog.xcdatamodeld/Blog.xcdatamodel/contents`; returns the `.xcdatamodeld` folder.
    static func writeModel(in folder: URL) throws -> URL {
        let model = folder.appendingPathComponent("Blog.xcdatamodeld")
        let version = model.appendingPathComponent("Blog.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: version.appendingPathComponent("contents"))
        return model
    }

    static func write(posts: Int, folders: Int, to url: URL) throws {
        Fixture.remove(url)
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZFOLDER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
                    CREATE TABLE ZPOST ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOUNT INTEGER, ZFOLDER INTEGER, ZDATE TIMESTAMP, ZTITLE VARCHAR );
                    CREATE INDEX ZPOST_ZFOLDER_INDEX ON ZPOST (ZFOLDER);
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
                    """)
            let folder = try db.makeStatement(sql: "INSERT INTO ZFOLDER VALUES (?, 1, 1, ?)")
            for id in 1...folders { try folder.execute(arguments: [id, "Folder \(id)"]) }
            let post = try db.makeStatement(sql: "INSERT INTO ZPOST VALUES (?, 2, 1, ?, ?, ?, ?)")
            for id in 1...posts {
                try post.execute(arguments: [
                    id, id % 997, id % folders + 1, 600_000_000.0 + Double(id) * 0.001, "Post number \(id)",
                ])
            }
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Folder', 0, ?), (2, 'Post', 0, ?)",
                arguments: [folders, posts])
            let metadata: [String: Any] = [
                "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1344,
                "NSStoreModelVersionHashes": ["Folder": Data(count: 32), "Post": Data(count: 32)],
                "NSStoreModelVersionIdentifiers": [""], "NSStoreModelVersionHashesVersion": 3,
            ]
            let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
            try db.execute(
                sql: "INSERT INTO Z_METADATA VALUES (1, ?, ?)", arguments: [UUID().uuidString, plist])
        }
        try queue.close()
    }
}
