import Foundation
import Molt
import MoltAdoption
import Testing

/// Every Core Data store of `../shared/foreign-stores/` with the model that made it: each is adopted with every
/// value proven equal, or refused for a reason a user can act on, and a refused original is left byte for byte.
///
/// Hierarchies (CoreDataPlus' cars, Apptentive's, Wire's `Message` and its 6 sub-entities) are adopted as Molt
/// hierarchies, sibling sub-entities that declare the same property (Wire's `delivered`, Apptentive's
/// `pendingState` from v2 on) each with a column. Refused: three Wire stores whose external-storage files were
/// not kept with them, and an Apptentive copy whose link holds an object of an entity its model does not allow.
/// Wire's later stores break their model's minimum counts (Core Data migrated them past releases that added
/// required to-many relationships, and checks minimum counts only at save): they adopt, the record listing the
/// objects under them.
@Suite(
    "Every real Core Data store adopts or is refused with a reason",
    .enabled(if: ForeignStores.isPresent, "../shared/foreign-stores is absent beside the package"))
struct EveryForeignStoreTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var store: String
        var model: String
        /// Nil when the store adopts; else a piece of the refusal's message.
        var refusal: String?
        /// The relationships, `Entity.relationship`, that the adoption record lists objects under the minimum count
        /// of.
        var short: [String] = []
        var testDescription: String { store }
    }

    static let cases: [Case] = [
        Case(
            store: "wibosco-progressive/CoreDataMigration_Example_1.sqlite",
            model: "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"),
        Case(
            store: "wibosco-progressive/CoreDataMigration_Example_2.sqlite",
            model: "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"),
        Case(
            store: "wibosco-progressive/CoreDataMigration_Example_3.sqlite",
            model: "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"),
        Case(
            store: "wibosco-progressive/CoreDataMigration_Example_WAL.sqlite",
            model: "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"),
        Case(
            store: "coredataplus-cars/SampleModel_V1.sqlite",
            model: "coredataplus-cars/model/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"),
        Case(
            store: "coredataplus-cars/SampleModel_V2.sqlite",
            model: "coredataplus-cars/model/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"),
        Case(
            store: "apptentive/ATDataModelv1.sqlite", model: "apptentive/model/ATDataModel.xcdatamodeld"),
        Case(
            store: "apptentive/ATDataModelv2.sqlite", model: "apptentive/model/ATDataModel.xcdatamodeld"),
        Case(
            store: "apptentive/ATDataModelv3.sqlite", model: "apptentive/model/ATDataModel.xcdatamodeld"),
        Case(
            store: "apptentive/ATDataModelv4.sqlite", model: "apptentive/model/ATDataModel.xcdatamodeld"),
        Case(store: "apptentive/ATDataModelv5.sqlite", model: "apptentive/model/ATDataModel.xcdatamodeld"),
        Case(store: "apptentive/ATDataModelv6.sqlite", model: "apptentive/model/ATDataModel.xcdatamodeld"),
        Case(
            store: "apptentive/v2WALDatabase/ATDataModel.sqlite", model: "apptentive/model/ATDataModel.xcdatamodeld"),
        Case(
            store: "apptentive/v3WALDatabase/ATDataModel.sqlite", model: "apptentive/model/ATDataModel.xcdatamodeld"),
        Case(
            store: "apptentive/v2CorruptDatabase/ATDataModel.sqlite",
            model: "apptentive/model/ATDataModel.xcdatamodeld", refusal: "nor one of its sub-entities in the model"),
        Case(
            store: "apptentive/sdk-3.5.0-container/ATDataModel.sqlite",
            model: "apptentive/model/ATDataModel.xcdatamodeld"),
        Case(
            store: "wire/store1-25.wiredatabase", model: "wire/model/zmessaging.xcdatamodeld",
            refusal: "A value kept outside the store is missing"),
        Case(
            store: "wire/store2-6.wiredatabase", model: "wire/model/zmessaging.xcdatamodeld",
            refusal: "A value kept outside the store is missing"),
        Case(
            store: "wire/store2-31-0.wiredatabase", model: "wire/model/zmessaging.xcdatamodeld",
            refusal: "A value kept outside the store is missing"),
        // Core Data migrated these past releases that added required to-many relationships, and left them empty
        // for the objects that existed: kept, and listed in the record.
        Case(
            store: "wire/store2-80-0.wiredatabase", model: "wire/model/zmessaging.xcdatamodeld",
            short: Self.wireShort["2.80"]!),
        Case(
            store: "wire/store2-101-0.wiredatabase", model: "wire/model/zmessaging.xcdatamodeld",
            short: Self.wireShort["2.101"]!),
    ]

    /// Per Wire store, the to-many relationships whose minimum count its objects break, in the schema's order: the
    /// `UserClient` ones since 1.27 (`ignoredByClients`, and the trust and ignore pairs), `participantRoles` of
    /// `Conversation` and `User` in 2.80 (added as required by 2.78.0, and dropped again later).
    static let wireShort: [String: [String]] = {
        let clients = [
            "UserClient.ignoredByClients", "UserClient.ignoredClients", "UserClient.trustedByClients",
            "UserClient.trustedClients",
        ]
        return [
            "1.25": [], "2.6": clients, "2.31.0": clients,
            "2.80": ["Conversation.participantRoles", "User.participantRoles"] + clients, "2.101": clients,
        ]
    }()

    /// Expects `record` to list exactly the relationships `short` (`Entity.relationship`), each with the objects'
    /// count and first identifiers, and the reason.
    static func expectShort(_ short: [String], in record: AdoptionRecord) {
        #expect(record.underMinimumCount.count == short.count, "\(record.underMinimumCount)")
        for (label, line) in zip(short, record.underMinimumCount) {
            let (entity, relationship) = (label.prefix { $0 != "." }, label.drop { $0 != "." }.dropFirst())
            #expect(line.contains(" '\(entity)' objects (_id "), "\(label): \(line)")
            #expect(
                line.hasSuffix(
                    " hold fewer than 1 '\(relationship)' (Core Data checks minimum counts only at save); Molt keeps them and checks them when they are written"
                ), "\(label): \(line)")
        }
    }

    @Test(
        "Wire's stores whose external-storage files were not kept adopt with those values as null when asked, each listed",
        arguments: ["wire/store1-25.wiredatabase", "wire/store2-6.wiredatabase", "wire/store2-31-0.wiredatabase"])
    func missingExternalFilesAsNull(_ path: String) throws {
        let directory = TemporaryDirectory()
        let name = URL(fileURLWithPath: path).lastPathComponent
        let url = try ForeignStores.copy(path, to: directory, as: name)
        var adoption = CoreDataAdoption(model: ForeignStores.url("wire/model/zmessaging.xcdatamodeld"))
        adoption.missingExternalData = .adoptedAsNull
        let target = try adoption.matchedVersion(of: url).schema
        let report = try #require(try adoption.adopt(at: .file(url), schema: target, options: Store.Options()))
        #expect(report.comparison.agrees)
        let line = try #require(report.record.leftOut.first { $0.contains("external-storage file was missing") })
        let count = try #require(Int(line.prefix { $0.isNumber }))
        #expect(count > 0)
        #expect(line.components(separatedBy: "; ").count == count)
        #expect(line.contains(" of object ") && line.contains(": file "))
        #expect(try Store.inspect(at: url).adoption?.leftOut.contains(line) == true)
        // 2.6 and 2.31.0 also break a minimum count their model added after 1.25: kept, and listed.
        let version = String(name.dropFirst("store".count).prefix { $0 != "." }).replacingOccurrences(
            of: "-", with: ".")
        Self.expectShort(Self.wireShort[version] ?? ["?"], in: report.record)
        #expect(try Store.inspect(at: url).adoption?.underMinimumCount == report.record.underMinimumCount)
    }

    @Test("Adopts with the proof, or refuses leaving the original as it was", arguments: cases)
    func adoptOrRefuse(_ item: Case) throws {
        let directory = TemporaryDirectory()
        let name = URL(fileURLWithPath: item.store).lastPathComponent
        let url = try ForeignStores.copy(item.store, to: directory, as: name)
        let before = ForeignStores.bytes(of: url)
        let adoption = CoreDataAdoption(model: ForeignStores.url(item.model))
        let target = try adoption.matchedVersion(of: url).schema
        if let refusal = item.refusal {
            let error = try #require(throws: MoltError.self) {
                try adoption.adopt(at: .file(url), schema: target, options: Store.Options())
            }
            #expect(error.message.contains(refusal), "\(error)")
            #expect(error.message.contains("left as it was"))
            #expect(ForeignStores.bytes(of: url) == before)
            // No file was added beside the store (a -shm it came with stays).
            let companions = ["-wal", "-shm"].filter {
                FileManager.default.fileExists(atPath: ForeignStores.url(item.store).path + $0)
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
                    == ([name] + companions.map { name + $0 }).sorted())
            return
        }
        let report = try #require(try adoption.adopt(at: .file(url), schema: target, options: Store.Options()))
        #expect(report.comparison.agrees)
        #expect(!report.comparison.lines.isEmpty)
        Self.expectShort(item.short, in: report.record)
        // The adopted store is a Molt store at the matched version, with the original's objects.
        let info = try Store.inspect(at: url)
        #expect(info.version == target.version)
        #expect(info.objectCounts.filter { $0.value > 0 } == report.record.objectCounts.filter { $0.value > 0 })
    }
}
