import Foundation
import GRDB
import Molt
import MoltAdoption

/// Adoption of a Core Data store of photos, each with a 1 MiB image kept in the external-data folder and a 1 MiB
/// original kept inline (issue 23: memory flat in rows and in blob size), at 200 and 1,000 rows (a store of 1 GiB
/// beside 1 GiB of files): `Store.open` adopting in place — the private copy, the copy in SQL (inline blobs by
/// `INSERT … SELECT`, external files read by the row path's conversion), the proof, the swap — against what an
/// engineer would write: the Core Data store attached to an empty store of Molt's layout, one `INSERT … SELECT`
/// that reads each external file through an SQL function, the new file moved over the store and the external-data
/// folder removed. Each run is in a worker process of its own (peak `VmHWM` over the timed part); both results
/// hold the same rows (checked after each round).
struct AdoptCoreDataBlobs: WorkerJobs {
    let name = "adopt-coredata-blobs"
    let summary = "Peak memory and time of adopting 200 and 1,000 Core Data photos of 2 × 1 MiB (external + inline)"

    static let blobBytes = 1 << 20

    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
            <entity name="Photo" representedClassName="Photo" syncable="YES">
                <attribute name="image" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="name" attributeType="String"/>
                <attribute name="original" optional="YES" attributeType="Binary"/>
            </entity>
        </model>
        """

    /// The model, the external files of `count` photos, and the empty Molt store, beside the stores of a run.
    static func model(in folder: URL) -> URL { folder.appendingPathComponent("Photos.xcdatamodeld") }
    static func externalFiles(in folder: URL, count: Int) -> URL {
        folder.appendingPathComponent("photos-external-\(count)", isDirectory: true)
    }
    static func emptyMolt(in folder: URL) -> URL { folder.appendingPathComponent("photos-empty-molt.sqlite") }

    /// The external-data folder Core Data keeps beside the store at `url`.
    static func externalData(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA", isDirectory: true)
    }

    static func fileName(_ id: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", id) }

    /// A Core Data store of `count` photos at `url`, its external files written once beside it.
    static func create(count: Int, at url: URL) throws {
        let folder = url.deletingLastPathComponent()
        let version = model(in: folder).appendingPathComponent("Photos.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: version.appendingPathComponent("contents"))
        let files = externalFiles(in: folder, count: count)
        try? FileManager.default.removeItem(at: files)
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        for id in 1...count {
            try Data(repeating: UInt8(id % 251), count: blobBytes).write(to: files.appendingPathComponent(fileName(id)))
        }
        Fixture.remove(url)
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZPHOTO ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZIMAGE BLOB, ZORIGINAL BLOB );
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
                    """)
            // The image: marker 2 and the external file's name; the original: the bytes, inline.
            let photo = try db.makeStatement(sql: "INSERT INTO ZPHOTO VALUES (?, 1, 1, ?, ?, zeroblob(?))")
            for id in 1...count {
                try photo.execute(arguments: [
                    id, "Photo \(id)", Data([2]) + Data(fileName(id).utf8) + Data([0]), blobBytes,
                ])
            }
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Photo', 0, ?)", arguments: [count])
            let metadata: [String: Any] = [
                "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1344,
                "NSStoreModelVersionHashes": ["Photo": Data(count: 32)],
                "NSStoreModelVersionIdentifiers": [""], "NSStoreModelVersionHashesVersion": 3,
            ]
            let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
            try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, ?, ?)", arguments: [UUID().uuidString, plist])
        }
        try queue.close()
        let empty = emptyMolt(in: folder)
        if !FileManager.default.fileExists(atPath: empty.path) {
            let schema = try CoreDataAdoption(model: model(in: folder)).matchedVersion(of: url).schema
            try Store.open(at: empty, schema: schema).close()
        }
    }

    /// Gives the store at `url` its external-data folder: hard links to the files written once (not timed).
    static func linkExternalFiles(of url: URL, count: Int) throws {
        let folder = externalData(of: url)
        try? FileManager.default.removeItem(at: folder.deletingLastPathComponent())
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files = externalFiles(in: url.deletingLastPathComponent(), count: count)
        for id in 1...count {
            try FileManager.default.linkItem(
                at: files.appendingPathComponent(fileName(id)), to: folder.appendingPathComponent(fileName(id)))
        }
    }

    func job(_ name: String, count: Int, runner: Runner) throws -> Runner.Job {
        switch name {
        case "molt":
            return Runner.Job(count: count) { url, stopwatch in
                try Self.linkExternalFiles(of: url, count: count)
                let model = Self.model(in: url.deletingLastPathComponent())
                let schema = try CoreDataAdoption(model: model).matchedVersion(of: url).schema
                let store = try stopwatch.time {
                    try Store.open(
                        at: url, schema: schema,
                        options: Store.Options().adopting(.coreData(model: model, original: .removed)))
                }
                try store.close()
            }
        case "sql":
            return Runner.Job(count: count) { url, stopwatch in
                try Self.linkExternalFiles(of: url, count: count)
                let adopted = url.deletingLastPathComponent().appendingPathComponent("photos-by-hand.sqlite")
                try Fixture.copy(Self.emptyMolt(in: url.deletingLastPathComponent()), to: adopted)
                let external = Self.externalData(of: url)
                // The bytes of an external-storage value: inline after marker 1, in the named file after marker 2.
                let read = DatabaseFunction("read_external", argumentCount: 1, pure: false) { values in
                    guard let stored = Data.fromDatabaseValue(values[0]), let marker = stored.first else { return nil }
                    guard marker == 2 else { return stored.dropFirst() }
                    let name = String(decoding: stored.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
                    return try Data(contentsOf: external.appendingPathComponent(name))
                }
                try stopwatch.time {
                    let queue = try DatabaseQueue(path: adopted.path, configuration: Fixture.configuration)
                    try queue.writeWithoutTransaction { db in
                        db.add(function: read)
                        try db.execute(sql: "PRAGMA journal_mode = DELETE")
                        try db.execute(sql: "ATTACH DATABASE ? AS cd", arguments: [url.path])
                        try db.inTransaction(.immediate) {
                            try db.execute(
                                sql: """
                                    INSERT INTO Photo (_id, name, image, original)
                                    SELECT Z_PK, ZNAME, read_external(ZIMAGE), ZORIGINAL FROM cd.ZPHOTO
                                    """)
                            return .commit
                        }
                        try db.execute(sql: "DETACH DATABASE cd")
                        try db.execute(sql: "PRAGMA journal_mode = WAL")
                    }
                    try queue.close()
                    guard rename(adopted.path, url.path) == 0 else {
                        throw BenchmarkError(description: "cannot move \(adopted.path) over \(url.path)")
                    }
                    try FileManager.default.removeItem(at: external.deletingLastPathComponent())
                }
            }
        default:
            throw BenchmarkError(description: "no job \(name) in \(self.name)")
        }
    }

    func run(_ runner: Runner) throws -> [Comparison] {
        let stores = TemplateStores(runner, name: "photos") { try Self.create(count: $0, at: $1) }
        var comparisons: [Comparison] = []
        for count in runner.quick ? [10, 40] : [200, 1_000] {
            let same = SameResult(tables: ["Photo"])
            let m = try stores.measure(
                [
                    runner.inWorker(self, "molt", count: count, capped: false, check: same.check),
                    runner.inWorker(self, "sql", count: count, capped: false, check: same.check),
                ], repetitions: runner.repetitions)
            let label = "\(count) photos of 2 × 1 MiB"
            let baseline = "ATTACH + INSERT … SELECT, external files read by an SQL function"
            comparisons += [
                Comparison(
                    scenario: name, label: "peak RSS, \(label)", baselineDescription: baseline,
                    molt: m[0].peaks, baseline: m[1].peaks, target: .atMost(mebibytes: 64)),
                // Reported: at this size the time is the disk's (2 GiB written, flushed and removed per round), and
                // the target for time is the one of `adopt-coredata`.
                Comparison(
                    scenario: name, label: "time, \(label)", baselineDescription: baseline, molt: m[0],
                    baseline: m[1], target: nil),
            ]
        }
        return comparisons
    }
}
