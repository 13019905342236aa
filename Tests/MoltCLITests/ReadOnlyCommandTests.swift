import Foundation
import Testing

/// Commands that do not adopt or migrate write no byte of any file of a store, side files included: on a store
/// in WAL mode a reader rebuilds the index of the `-wal` in the `-shm`, which changed 12 bytes of a Core Data
/// store's `-shm` under `molt info`, every `molt adopt --dry-run`, `--rehearse`, `--into` and every refusal.
@Suite(
    "Read-only commands leave every file of a WAL store as it was",
    .enabled(
        if: FileManager.default.fileExists(atPath: WiboscoStores.folder.path),
        "../shared/foreign-stores is absent beside the package"))
struct ReadOnlyCommandTests {
    static let foreignStores = WiboscoStores.folder.deletingLastPathComponent()

    /// A store in WAL mode among the real ones: its folder's files, the store's name and its app's model.
    struct WALStore: Sendable, CustomTestStringConvertible {
        var files: [String]
        var store: String
        var model: String
        /// What to adopt it to, in the folder of the model's snapshots: a version's file, or the folder (the
        /// app's newest version).
        var target: String
        var testDescription: String { files[0] }
    }

    static let stores = [
        WALStore(
            files: [
                "apptentive/v2WALDatabase/ATDataModel.sqlite", "apptentive/v2WALDatabase/ATDataModel.sqlite-wal",
                "apptentive/v2WALDatabase/ATDataModel.sqlite-shm",
            ],
            store: "ATDataModel.sqlite", model: "apptentive/model/ATDataModel.xcdatamodeld", target: "2.json"),
        WALStore(
            files: [
                "apptentive/v3WALDatabase/ATDataModel.sqlite", "apptentive/v3WALDatabase/ATDataModel.sqlite-wal",
                "apptentive/v3WALDatabase/ATDataModel.sqlite-shm",
            ],
            store: "ATDataModel.sqlite", model: "apptentive/model/ATDataModel.xcdatamodeld", target: "3.json"),
        WALStore(
            files: [
                "wibosco-progressive/CoreDataMigration_Example_WAL.sqlite",
                "wibosco-progressive/CoreDataMigration_Example_WAL.sqlite-wal",
            ],
            store: "CoreDataMigration_Example_WAL.sqlite",
            model: "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld", target: ""),
    ]

    @Test("info, adopt --dry-run, --rehearse, --into and a refused adoption change no byte", arguments: stores)
    func noByteChanges(_ wal: WALStore) throws {
        let dir = TemporaryDirectory()
        let folder = dir.url.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in wal.files {
            let copy = folder.appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent)
            try FileManager.default.copyItem(at: Self.foreignStores.appendingPathComponent(file), to: copy)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.path)
        }
        let model = Self.foreignStores.appendingPathComponent(wal.model).path
        let snapshotFolder = dir.file("snapshots").path
        let converted = try Molt.run(
            ["convert-model", model, "--out", snapshotFolder, "--hierarchies", "--approximate", "all"])
        try #require(converted.status == 0, "\(converted)")
        // A model of another app: no version of it describes the store, so the adoption is refused.
        let otherModel = Self.foreignStores.appendingPathComponent(
            wal.model.hasPrefix("apptentive") ? Self.stores[2].model : Self.stores[0].model
        ).path
        let snapshots = wal.target.isEmpty ? snapshotFolder : snapshotFolder + "/" + wal.target
        let store = folder.appendingPathComponent(wal.store).path
        let before = try snapshotOfFiles(in: folder)
        let commands: [(arguments: [String], status: Int32)] = [
            (["info", store], 3),
            (["adopt", store, "--model", model, "--to", snapshots, "--dry-run"], 0),
            (["adopt", store, "--model", model, "--to", snapshots, "--rehearse"], 0),
            (["adopt", store, "--model", model, "--to", snapshots, "--into", dir.file("into.sqlite").path], 0),
            (["adopt", store, "--model", otherModel, "--to", snapshots, "--dry-run"], 3),
            (["adopt", store, "--model", otherModel, "--to", snapshots], 3),
        ]
        for (arguments, status) in commands {
            let result = try Molt.run(arguments)
            #expect(result.status == status, "molt \(arguments.joined(separator: " ")): \(result)")
            let after = try snapshotOfFiles(in: folder)
            #expect(after.keys.sorted() == before.keys.sorted(), "molt \(arguments.joined(separator: " "))")
            for (name, bytes) in before where after[name] != bytes {
                Issue.record("molt \(arguments.joined(separator: " ")) changed \(name)")
            }
        }
    }
}
