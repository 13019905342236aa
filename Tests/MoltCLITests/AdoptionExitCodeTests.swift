import Foundation
import Testing

/// Every refusal of `molt adopt` exits with the status `molt --help` gives its kind: a store that does not agree
/// with the model given (rows of an entity the model has not, a link to an object of another entity, a table
/// the model does not know) is bad input (3), as a model that matches no version is; 5 is for a migration
/// step that needs a stage, a mapping or a declared deletion.
@Suite(
    "molt adopt: each refusal's exit status is the one its kind has in molt --help",
    .enabled(
        if: FileManager.default.fileExists(atPath: WiboscoStores.folder.path),
        "../shared/foreign-stores is absent beside the package"))
struct AdoptionExitCodeTests {
    static let foreignStores = WiboscoStores.folder.deletingLastPathComponent()

    /// The help's line for `status`, which the refusal's status must be listed with.
    static func helpLine(_ status: Int32) throws -> String {
        let help = try Molt.run(["--help"])
        return try #require(help.stdout.split(separator: "\n").first { $0.hasPrefix("  \(status)  ") }.map(String.init))
    }

    /// A writable copy of a store file and its side files in a folder of its own.
    static func copy(_ path: String, in dir: TemporaryDirectory) throws -> URL {
        let source = foreignStores.appendingPathComponent(path)
        let folder = dir.file("store")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal", "-shm"]
        where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: url.path + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path + suffix)
        }
        return url
    }

    /// A copy of one of wibosco's stores edited by `sql` (as another tool would), and the model's snapshots.
    static func editedWibosco(
        _ file: String, _ sql: String, in dir: TemporaryDirectory
    ) throws -> (store: URL, model: String, snapshots: String) {
        let store = try copy("wibosco-progressive/\(file)", in: dir)
        let edit = try Molt.run(["-c", "sqlite3 '\(store.path)' '\(sql)'"], shell: true)
        try #require(edit.status == 0, "\(edit)")
        let model = foreignStores.appendingPathComponent(
            "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"
        ).path
        let snapshots = dir.file("snapshots").path
        let converted = try Molt.run(["convert-model", model, "--out", snapshots, "--approximate", "all"])
        try #require(converted.status == 0, "\(converted)")
        return (store, model, snapshots)
    }

    @Test("a store that links an object of an entity the model does not allow there: exit 3, nothing written")
    func linkToAnotherEntity() throws {
        let dir = TemporaryDirectory()
        let store = try Self.copy("apptentive/v2CorruptDatabase/ATDataModel.sqlite", in: dir)
        let model = Self.foreignStores.appendingPathComponent("apptentive/model/ATDataModel.xcdatamodeld").path
        let snapshots = dir.file("snapshots").path
        let converted = try Molt.run(
            ["convert-model", model, "--out", snapshots, "--hierarchies", "--approximate", "all"])
        try #require(converted.status == 0, "\(converted)")
        let before = try snapshotOfFiles(in: dir.file("store"))
        let result = try Molt.run(["adopt", store.path, "--model", model, "--to", snapshots])
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("nor one of its sub-entities in the model"), "\(result)")
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.split(separator: "\n").count == 1, "\(result)")
        #expect(try Self.helpLine(3).contains("bad input"))
        #expect(try snapshotOfFiles(in: dir.file("store")) == before)
    }

    @Test("rows of an entity number the model has not: exit 3, nothing written")
    func rowsOfAnUnknownEntity() throws {
        let dir = TemporaryDirectory()
        let (store, model, snapshots) = try Self.editedWibosco(
            "CoreDataMigration_Example_1.sqlite", "UPDATE ZPOST SET Z_ENT = 7 WHERE Z_PK IN (1, 2)", in: dir)
        let before = try Data(contentsOf: store)
        // A dry run reads the store's metadata only; the adoption and its rehearsal read every row.
        for extra in [["--rehearse"], []] {
            let result = try Molt.run(["adopt", store.path, "--model", model, "--to", snapshots] + extra)
            #expect(result.status == 3, "\(extra): \(result)")
            #expect(result.stderr.contains("Table ZPOST has 2 row(s) of entity number 7"), "\(result)")
            #expect(try Data(contentsOf: store) == before)
        }
    }

    @Test(
        "a one-to-one whose two sides disagree (two posts name one color): exit 3, naming the objects, nothing written")
    func oneToOneDisagrees() throws {
        let dir = TemporaryDirectory()
        let (store, model, snapshots) = try Self.editedWibosco(
            "CoreDataMigration_Example_3.sqlite",
            "UPDATE ZPOST SET ZCOLOR = (SELECT ZCOLOR FROM ZPOST WHERE Z_PK = 1) WHERE Z_PK = 2", in: dir)
        let before = try Data(contentsOf: store)
        let result = try Molt.run(["adopt", store.path, "--model", model, "--to", snapshots])
        #expect(result.status == 3, "\(result)")
        #expect(
            result.stderr.contains("'Color.post' and its inverse 'Post.color' disagree")
                && result.stderr.contains("'Post' _id 2"), "\(result)")
        #expect(try Data(contentsOf: store) == before)
    }
}
