import Foundation
import GRDB
import Molt
import MoltAdoption
import Testing

/// Adoption of a SwiftData store (`default.store`, Core Data's format) by an app that has no Core Data model file:
/// its SwiftData classes are declared again as Molt models, and the store is matched against those schemas.
@Suite("Adopting SwiftData stores")
struct SwiftDataAdoptionTests {
    /// The app's SwiftData classes as Molt models: `Trip` (with a photo kept in external storage) and its stays.
    static let v1 = Schema(version: 1) {
        Entity("Trip") {
            Attribute("name", .string)
            Attribute("start", .date)
            Attribute("budget", .decimal, isOptional: true)
            Attribute("photo", .data, isOptional: true)
            Relationship("stays", toMany: "Stay", inverse: "trip", deleteRule: .cascade)
        }
        Entity("Stay") {
            Attribute("hotel", .string)
            Attribute("nights", .int32)
            Relationship("trip", to: "Trip", inverse: "stays")
        }
    }
    /// The next version adds a note to each trip.
    static let v2: Schema = {
        var schema = v1.withVersion(2)
        let trip = schema.entities.firstIndex { $0.name == "Trip" }!
        schema.entities[trip].attributes.append(Attribute("notes", .string, isOptional: true))
        return schema
    }()

    @Test("matched against the app's Molt schemas, adopted in place and walked to version 2: every value and link")
    func adoptsAndWalks() throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory)
        let options = try Store.Options().migrating(with: MigrationPlan(schemas: [Self.v1, Self.v2]))
            .adopting(.swiftData(matching: [Self.v1], externalStorage: ["Trip.photo"]))
        let store = try Store.open(at: url, schema: Self.v2, options: options)
        defer { try? store.close() }
        let trips = try store.read { try $0.fetch("Trip") }.sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        #expect(trips.map(\.id) == [1, 2, 3])
        #expect(trips.map { $0["name"] } == [.string("Lisbon"), .string("Kyoto"), .string("Oslo")])
        #expect(trips[0]["start"].date == Date(timeIntervalSinceReferenceDate: 700_000_000.25))
        #expect(trips[0]["photo"] == .data(Data([0x89, 0x50, 0x4E, 0x47])))
        #expect(trips[1]["photo"] == .data(SwiftDataStore.externalPhoto))
        #expect(trips[2]["photo"] == .null)
        #expect(trips[0]["budget"] == .decimal(Decimal(string: "1234.5")!))
        #expect(trips[0]["notes"] == .null)
        let stays = try store.read { try $0.fetch("Stay") }
        #expect(stays.count == 3)
        for stay in stays {
            let trip = try #require(try store.read { try $0.destination("trip", of: stay) })
            #expect(trip.id == (stay.id == 3 ? 2 : 1))
            let listed = try store.read { try $0.destinations("stays", of: trip) }.map(\.id)
            #expect(listed.contains(stay.id))
        }
        #expect(stays.first { $0.id == 2 }?["nights"] == .int(4))
        let adoption = try #require(try Store.inspect(at: url).adoption)
        #expect(adoption.engine == "Core Data")
        #expect(adoption.objectCounts == ["Trip": 3, "Stay": 3])
        #expect(try Store.inspect(at: url).version == 2)
    }

    @Test("a photo column of marked values, not named as external storage, is refused and the store left as it was")
    func refusesUndeclaredExternalStorage() throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory, photos: false)
        try SwiftDataStore.execute(url, "UPDATE ZTRIP SET ZPHOTO = x'0189504E47' WHERE Z_PK IN (1, 2)")
        let before = ForeignStores.bytes(of: url)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        let error = try #require(throws: MoltError.self) {
            try Store.open(
                at: url, schema: Self.v1, options: Store.Options().adopting(.swiftData(matching: [Self.v1])))
        }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("'Trip.photo'") && error.message.contains("--external-storage Trip.photo"))
        #expect(ForeignStores.bytes(of: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == files)
    }

    @Test("schemas that do not describe the store are refused naming the closest and what differs")
    func refusesSchemasThatDiffer() throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory)
        let before = ForeignStores.bytes(of: url)
        let error = try #require(throws: MoltError.self) {
            try Store.open(
                at: url, schema: Self.v2,
                options: Store.Options().adopting(.swiftData(matching: [Self.v2], externalStorage: ["Trip.photo"])))
        }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("the Molt schemas given (versions 2)"), "\(error.message)")
        #expect(error.message.contains("Trip"), "\(error.message)")
        #expect(ForeignStores.bytes(of: url) == before)
    }

    @Test("a name in externalStorage that is not a data attribute is refused before anything is read")
    func refusesUnknownExternalStorageName() throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory)
        let error = try #require(throws: MoltError.self) {
            try Store.open(
                at: url, schema: Self.v1,
                options: Store.Options().adopting(.swiftData(matching: [Self.v1], externalStorage: ["Trip.name"])))
        }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("'Trip.name'"))
    }

    @Test("the target is chosen from the version matched on the adoption's own copy; its refusal leaves the store")
    func targetFromMatchedVersion() throws {
        let directory = TemporaryDirectory()
        let url = try SwiftDataStore.write(in: directory)
        let before = ForeignStores.bytes(of: url)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        let adoption = CoreDataAdoption.swiftData(matching: [Self.v1], externalStorage: ["Trip.photo"])
        var matched: [Int] = []
        do {
            _ = try adoption.adopt(at: .file(url), options: Store.Options()) { version in
                matched.append(version.schema.version)
                throw MoltError(.invalidPlan, "no plan from version \(version.schema.version)")
            }
            Issue.record("adopted although the target refused")
        } catch let error as MoltError {
            #expect(error.message == "no plan from version 1")
        }
        #expect(matched == [1])
        #expect(ForeignStores.bytes(of: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == files)
        let plan = try MigrationPlan(schemas: [Self.v1, Self.v2])
        let report = try #require(
            try adoption.adopt(at: .file(url), options: Store.Options()) { version in
                matched.append(version.schema.version)
                return (Self.v2, Store.Options().migrating(with: plan))
            })
        #expect(matched == [1, 1])
        #expect(report.comparison.agrees)
        #expect(try Store.inspect(at: url).version == 2)
    }
}

/// A store laid out as SwiftData (Core Data) writes one for ``SwiftDataAdoptionTests/v1``: `default.store`, its
/// `Z_PRIMARYKEY` and `Z_METADATA`, dates in seconds since 2001, a decimal as a real, and a photo kept inline
/// (marker 1) or in `.default_SUPPORT/_EXTERNAL_DATA` (marker 2 and the file's name).
enum SwiftDataStore {
    static let externalPhoto = Data((0..<4096).map { UInt8($0 % 251) })

    static func write(in directory: TemporaryDirectory, photos: Bool = true) throws -> URL {
        let url = directory.file("default.store")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZSTAY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNIGHTS INTEGER, ZTRIP INTEGER, ZHOTEL VARCHAR );
                    CREATE TABLE ZTRIP ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSTART TIMESTAMP, ZBUDGET DECIMAL, ZNAME VARCHAR, ZPHOTO BLOB );
                    CREATE INDEX ZSTAY_ZTRIP_INDEX ON ZSTAY (ZTRIP);
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Stay', 0, 3), (2, 'Trip', 0, 3);
                    INSERT INTO ZSTAY VALUES (1, 1, 1, 2, 1, 'Alfama Inn'), (2, 1, 1, 4, 1, 'Belém Rooms'),
                        (3, 1, 1, 7, 2, 'Gion Ryokan');
                    """)
            let photoFile = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
            try db.execute(
                sql:
                    "INSERT INTO ZTRIP VALUES (1, 2, 1, 700000000.25, 1234.5, 'Lisbon', ?), (2, 2, 1, 710000000, NULL, 'Kyoto', ?), (3, 2, 1, 720000000, 99.99, 'Oslo', NULL)",
                arguments: [
                    photos ? Data([0x01, 0x89, 0x50, 0x4E, 0x47]) : nil,
                    photos ? Data([0x02]) + Data(photoFile.utf8) + Data([0x00]) : nil,
                ])
            let metadata: [String: Any] = [
                "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1414,
                "NSStoreModelVersionHashes": ["Stay": Data(count: 32), "Trip": Data(count: 32)],
                "NSStoreModelVersionIdentifiers": [""], "NSStoreModelVersionHashesVersion": 3,
            ]
            let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
            try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, ?, ?)", arguments: [UUID().uuidString, plist])
            if photos {
                let external = directory.url.appendingPathComponent(".default_SUPPORT/_EXTERNAL_DATA")
                try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
                try externalPhoto.write(to: external.appendingPathComponent(photoFile))
            }
        }
        try queue.close()
        return url
    }

    static func execute(_ url: URL, _ sql: String) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
    }
}
