import Foundation
import Testing

/// Apptentive's SDK (`../shared/foreign-stores/apptentive`): six Core Data model versions with a hierarchy of
/// messages under `ATRecord`, and a store written at each. Every store adopts and walks to the newest model with
/// the history `molt convert-model --hierarchies` writes; converted flat, the refusal says to add `--hierarchies`.
@Suite(
    "molt adopt: Apptentive's stores walk to its newest model",
    .enabled(if: FileManager.default.fileExists(atPath: ApptentiveStores.folder.path), "needs ../shared"))
struct ApptentiveWalkTests {
    static let folder = ApptentiveStores.folder
    static let model = folder.appendingPathComponent("model/ATDataModel.xcdatamodeld").path

    /// The model's history converted into `dir/name`, with `--hierarchies` or flat.
    static func converted(_ dir: TemporaryDirectory, hierarchies: Bool) throws -> String {
        let out = dir.url.appendingPathComponent(hierarchies ? "tree" : "flat").path
        let run = try Molt.run(
            ["convert-model", model, "--out", out, "--approximate", "all"] + (hierarchies ? ["--hierarchies"] : []))
        try #require(run.status == 0, "\(run)")
        return out
    }

    @Test("each of the six stores adopts at its version and walks to 6, every object proven", arguments: 1...6)
    func walks(version: Int) throws {
        let dir = TemporaryDirectory()
        let snapshots = try Self.converted(dir, hierarchies: true)
        let store = Self.folder.appendingPathComponent("ATDataModelv\(version).sqlite").path
        let into = dir.url.appendingPathComponent("adopted.sqlite").path
        let run = try Molt.run(["adopt", store, "--model", Self.model, "--to", snapshots, "--into", into])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("→ Molt version \(version)"), "\(run.stdout)")
        #expect(!run.stdout.contains("VALUES OR LINKS DIFFER"))
        #expect(try Molt.run(["info", into]).stdout.contains("Version:     6"))
    }

    @Test("snapshots converted flat are refused before anything is written, naming --hierarchies")
    func flatSnapshots() throws {
        let dir = TemporaryDirectory()
        let snapshots = try Self.converted(dir, hierarchies: false)
        let into = dir.url.appendingPathComponent("adopted.sqlite").path
        let store = Self.folder.appendingPathComponent("ATDataModelv1.sqlite").path
        let run = try Molt.run(["adopt", store, "--model", Self.model, "--to", snapshots, "--into", into])
        #expect(run.status != 0 && run.stderr.contains("`--hierarchies`"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: into))
    }
}

/// Apptentive's stores and model, in `../shared/foreign-stores/apptentive/`.
enum ApptentiveStores {
    static let folder = WiboscoStores.folder.deletingLastPathComponent().appendingPathComponent("apptentive")
}
