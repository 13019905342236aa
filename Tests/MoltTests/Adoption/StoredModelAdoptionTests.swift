import Foundation
import Molt
import MoltAdoption
import Testing

/// Core Data keeps a compiled copy of the model in every store it saves (`Z_MODELCACHE`). A store whose app gives
/// neither its model file nor Molt schemas is adopted with that copy: it must say what the model file says, for
/// every real store of `../shared/foreign-stores/` that has both, and adopt with the proof.
@Suite(
    "Adopting with the model a Core Data store carries",
    .enabled(if: ForeignStores.isPresent, "../shared/foreign-stores is absent beside the package"))
struct StoredModelAdoptionTests {
    /// Stores that carry a model cache, with the model file that made them, when the fixtures have it.
    static let stores: [(store: String, model: String?)] = [
        (
            "wibosco-progressive/CoreDataMigration_Example_1.sqlite",
            "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"
        ),
        (
            "wibosco-progressive/CoreDataMigration_Example_2.sqlite",
            "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"
        ),
        (
            "wibosco-progressive/CoreDataMigration_Example_3.sqlite",
            "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"
        ),
        (
            "wibosco-progressive/CoreDataMigration_Example_WAL.sqlite",
            "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"
        ),
        (
            "coredataplus-cars/SampleModel_V1.sqlite",
            "coredataplus-cars/model/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"
        ),
        (
            "coredataplus-cars/SampleModel_V2.sqlite",
            "coredataplus-cars/model/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"
        ),
        ("apptentive/ATDataModelv6.sqlite", "apptentive/model/ATDataModel.xcdatamodeld"),
        ("coredataplus-books/SampleModel2_V1.sqlite", nil),
        ("coredataplus-books/SampleModel2_V2.sqlite", nil),
    ]

    @Test("the model in Z_MODELCACHE is the model file's version that wrote the store, in all that is stored")
    func cacheMatchesModelFile() throws {
        for (path, model) in Self.stores {
            guard let model else { continue }
            let directory = TemporaryDirectory()
            let url = try ForeignStores.copy(path, to: directory, as: "Store.sqlite")
            let recovered = try CoreDataStoreFile(source: url.path, originalPath: url.path).storedModel()
            let matched = try CoreDataHistory(at: ForeignStores.url(model)).models.filter { version in
                version.storedDifference(from: recovered) == nil
            }
            #expect(!matched.isEmpty, "\(path)")
            let named = try CoreDataAdoption(model: ForeignStores.url(model)).matchedVersion(of: url).version
            #expect(matched.contains { $0.name == named }, "\(path): recovered \(matched.map(\.name)), store \(named)")
        }
    }

    @Test("every store with a model cache adopts with it, proven, with the objects the model file adopts")
    func adoptsWithStoredModel() throws {
        for (path, model) in Self.stores {
            let directory = TemporaryDirectory()
            let url = try ForeignStores.copy(path, to: directory, as: "Store.sqlite")
            let adoption = CoreDataAdoption(describedBy: .storedModel(version: 1))
            let schema = try adoption.matchedVersion(of: url).schema
            #expect(schema.version == 1)
            let report = try #require(try adoption.adopt(at: .file(url), schema: schema, options: Store.Options()))
            #expect(report.comparison.agrees, "\(path)")
            // Every one holds objects but Apptentive's v6, which is empty.
            #expect(report.record.objectCounts.values.reduce(0, +) > 0 || path.hasSuffix("v6.sqlite"), "\(path)")
            guard let model else { continue }
            let other = TemporaryDirectory()
            let again = try ForeignStores.copy(path, to: other, as: "Store.sqlite")
            let byFile = CoreDataAdoption(model: ForeignStores.url(model))
            let fileReport = try #require(
                try byFile.adopt(
                    at: .file(again), schema: try byFile.matchedVersion(of: again).schema, options: Store.Options()))
            #expect(report.record.objectCounts == fileReport.record.objectCounts, "\(path)")
        }
    }

    @Test("a store without a model cache, or with a damaged one, is refused naming what to give instead")
    func refusesWithoutUsableCache() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy("apptentive/ATDataModelv1.sqlite", to: directory, as: "Store.sqlite")
        let before = ForeignStores.bytes(of: url)
        let adoption = CoreDataAdoption(describedBy: .storedModel(version: 1))
        let missing = try #require(throws: MoltError.self) { try adoption.matchedVersion(of: url) }
        #expect(missing.message.contains("carries no copy of its model") && missing.message.contains("--model"))
        let damaged = TemporaryDirectory()
        let other = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_1.sqlite", to: damaged, as: "Store.sqlite")
        try SwiftDataStore.execute(other, "UPDATE Z_MODELCACHE SET Z_CONTENT = substr(Z_CONTENT, 1, 200)")
        let cut = try #require(throws: MoltError.self) {
            try adoption.adopt(at: .file(other), schema: Schema(version: 1) {}, options: Store.Options())
        }
        #expect(cut.message.contains("Z_MODELCACHE") && cut.message.contains("damaged"), "\(cut.message)")
        #expect(ForeignStores.bytes(of: url) == before)
    }

    @Test("a model version with the store's tables but another type than the store was saved with is refused")
    func refusesVersionThatReadsValuesOtherwise() throws {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_1.sqlite", to: directory, as: "Posts.sqlite")
        // The app's first version, with Post.date declared a Double: the same REAL column, read 31 years off.
        let model = directory.file("Model.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        let original = ForeignStores.url(
            "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example.xcdatamodel/contents"
        )
        let contents = try String(contentsOf: original, encoding: .utf8)
            .replacingOccurrences(
                of: #"name="date" optional="YES" attributeType="Date""#,
                with: #"name="date" optional="YES" attributeType="Double""#)
        try contents.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let before = ForeignStores.bytes(of: url)
        let error = try #require(throws: MoltError.self) {
            try CoreDataAdoption(model: model).matchedVersion(of: url)
        }
        #expect(error.code == .invalidSchema)
        #expect(
            error.message.contains(
                "'Post.date' is Double (optional) in Model, Date (optional) in the model in Z_MODELCACHE"),
            "\(error.message)")
        #expect(ForeignStores.bytes(of: url) == before)
    }
}
