import Foundation
import Molt
import Testing

/// The order of a model folder's versions, read from what the files say: each version's identifier
/// (`userDefinedModelVersionIdentifier`) when every version has its own, the numbers in their names otherwise;
/// `.xccurrentversion` plays no part (Core Data builds with any version). Asked for (`--version-order`) only when
/// the files cannot tell or tell two orders.
@Suite("The order of a Core Data model's versions")
struct ModelVersionOrderTests {
    /// CoreDataPlus's real folder, whose `.xccurrentversion` names its first version, `SampleModel`.
    static let cars = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(
            "shared/foreign-stores/coredataplus-cars/model/SampleModel.xcdatamodeld")

    /// Writes an `.xcdatamodeld` whose versions (name, identifier) each hold entity `Note` with attribute `text`
    /// and one more optional attribute per version before it in the list, `current` named by `.xccurrentversion`.
    static func model(
        _ versions: [(name: String, identifier: String)], current: String, in dir: TemporaryDirectory
    )
        throws -> URL
    {
        let folder = dir.file("App.xcdatamodeld")
        for (index, version) in versions.enumerated() {
            let url = folder.appendingPathComponent("\(version.name).xcdatamodel")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            let own = (0...index).map { "<attribute name=\"field\($0)\" optional=\"YES\" attributeType=\"String\"/>" }
            let contents = """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="21512" systemVersion="21G115" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="\(version.identifier)">
                    <entity name="Note" syncable="YES"><attribute name="text" attributeType="String"/>\(own.joined())</entity>
                </model>
                """
            try Data(contents.utf8).write(to: url.appendingPathComponent("contents"))
        }
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(current).xcdatamodel</string></dict></plist>
            """
        try Data(plist.utf8).write(to: folder.appendingPathComponent(".xccurrentversion"))
        return folder
    }

    /// The Core Data versions `coredata-versions.txt` lists, in the snapshots' order.
    static func listed(in dir: URL) throws -> [String] {
        try String(contentsOf: dir.appendingPathComponent("coredata-versions.txt"), encoding: .utf8)
            .split(separator: "\n").map { String($0.split(separator: "\t")[1]) }
    }

    @Test(
        "CoreDataPlus's folder, whose .xccurrentversion names its first version, converts in its versions' order and adopts",
        .enabled(if: FileManager.default.fileExists(atPath: cars.path), "../shared/foreign-stores is absent"))
    func realFolder() throws {
        let dir = TemporaryDirectory()
        let out = dir.file("snapshots")
        let run = try Molt.run([
            "convert-model", Self.cars.path, "--out", out.path, "--hierarchies", "--approximate", "all",
        ])
        #expect(run.status == 0, "\(run)")
        #expect(try Self.listed(in: out) == ["SampleModel", "SampleModel2", "SampleModel3"])
        // Version 2 renames ExpensiveSportCar to LuxuryCar: its snapshot says so.
        let v2 = try Schema(snapshotJSON: Data(contentsOf: out.appendingPathComponent("2.json")))
        #expect(v2.entity(named: "LuxuryCar")?.originalName == "ExpensiveSportCar")
        // The V1 store adopts with the whole folder as its model (its walk through the rename to version 2:
        // CoreDataPlusRenameWalkTests).
        let store = dir.file("cars.sqlite")
        try FileManager.default.copyItem(
            at: Self.cars.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "SampleModel_V1.sqlite"), to: store)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.path)
        let adopted = try Molt.run([
            "adopt", store.path, "--model", Self.cars.path, "--to", out.path, "--to-version", "1",
        ])
        #expect(adopted.status == 0, "\(adopted)")
        #expect(adopted.stdout.contains("Core Data model version 'SampleModel' → Molt version 1"), "\(adopted)")
    }

    @Test("version identifiers order versions whose names cannot, whatever .xccurrentversion names")
    func identifiers() throws {
        let dir = TemporaryDirectory()
        let model = try Self.model(
            [("Launch", "1"), ("Sharing", "2.10"), ("Sync", "2.9")], current: "Launch", in: dir)
        let run = try Molt.run(["convert-model", model.path, "--out", dir.file("out").path])
        #expect(run.status == 0, "\(run)")
        #expect(try Self.listed(in: dir.file("out")) == ["Launch", "Sync", "Sharing"])
    }

    @Test("names of several stems without identifiers are refused naming the candidates and the option; it orders them")
    func cannotTell() throws {
        let dir = TemporaryDirectory()
        let model = try Self.model([("Launch", ""), ("Sharing", ""), ("Sync", "")], current: "Sync", in: dir)
        let refused = try Molt.run(["convert-model", model.path, "--out", dir.file("out").path])
        #expect(refused.status == 3, "\(refused)")
        #expect(
            refused.stderr
                == "error: App.xcdatamodeld: the order of the versions 'Launch', 'Sharing', 'Sync' cannot be told from their files: The model's versions have names of different stems ('Launch', 'Sharing', 'Sync'), so their order cannot be read from their numbers. Convert the versions one by one (molt convert-model VERSION.xcdatamodel), in the order they shipped. Not every version has an identifier of its own (userDefinedModelVersionIdentifier) to order them by either. Give the order in which they shipped, oldest first: `molt convert-model MODEL --out DIR --version-order \"Launch,Sharing,Sync\"` (the same option for `molt adopt --model`).\n"
        )
        #expect(!FileManager.default.fileExists(atPath: dir.file("out").path))
        let ordered = try Molt.run([
            "convert-model", model.path, "--out", dir.file("out").path, "--version-order", "Launch, Sync,Sharing",
        ])
        #expect(ordered.status == 0, "\(ordered)")
        #expect(try Self.listed(in: dir.file("out")) == ["Launch", "Sync", "Sharing"])
    }

    @Test("identifiers and names that tell two orders are refused naming both; an order that misses a version too")
    func disagreeing() throws {
        let dir = TemporaryDirectory()
        let model = try Self.model([("Model", "2"), ("Model 2", "1")], current: "Model 2", in: dir)
        let refused = try Molt.run(["convert-model", model.path, "--out", dir.file("out").path])
        #expect(refused.status == 3, "\(refused)")
        #expect(
            refused.stderr
                == "error: App.xcdatamodeld: the versions' identifiers (userDefinedModelVersionIdentifier) order them 'Model 2', 'Model', but the numbers in their names order them 'Model', 'Model 2': molt cannot tell which order they shipped in. Give the order in which they shipped, oldest first: `molt convert-model MODEL --out DIR --version-order \"Model,Model 2\"` (the same option for `molt adopt --model`).\n"
        )
        let wrong = try Molt.run([
            "convert-model", model.path, "--out", dir.file("out").path, "--version-order", "Model,Model 3",
        ])
        #expect(wrong.status == 3, "\(wrong)")
        #expect(
            wrong.stderr
                == "error: App.xcdatamodeld: the version order names no version 'Model 3', leaves out 'Model 2'; the model's versions are 'Model', 'Model 2'. List each of them once, oldest first.\n"
        )
        let empty = try Molt.run([
            "convert-model", model.path, "--out", dir.file("out").path, "--version-order", "Model,,Model 2",
        ])
        #expect(empty.status != 0)
        #expect(empty.stderr.contains("--version-order lists an empty name"), "\(empty)")
        let ordered = try Molt.run([
            "convert-model", model.path, "--out", dir.file("out").path, "--version-order", "Model 2,Model",
        ])
        #expect(ordered.status == 0, "\(ordered)")
        #expect(try Self.listed(in: dir.file("out")) == ["Model 2", "Model"])
    }
}
