import Foundation
import GRDB
import Molt
import MoltAdoption
import Testing

/// A process adopting a real Core Data store (7,995 posts and 7,995 colors) is killed with SIGKILL at moments spread
/// over the adoption: each time, the path holds either the original, byte for byte and readable as a Core Data
/// store, or a complete Molt store; and the next opening finishes the work with every object there.
@Suite(
    "Adoption killed mid-way",
    .enabled(if: ForeignStores.isPresent, "../shared/foreign-stores is absent beside the package"))
struct AdoptionCrashTests {
    static let model = "wibosco-progressive/model/CoreDataMigration_Example.xcdatamodeld"

    @Test("SIGKILL at 12 moments: the original or a complete Molt store, never anything between")
    func killedAdoption() throws {
        let v4 = try ForeignStores.schema(model: Self.model, version: 4)
        // One whole run first, to spread the kills over its length on this machine.
        let whole = try Self.timedRun(schema: v4)
        var outcomes: [String: Int] = [:]
        for round in 0..<12 {
            let directory = TemporaryDirectory()
            let url = try ForeignStores.copy(
                "wibosco-progressive/CoreDataMigration_Example_3.sqlite", to: directory, as: "Posts.sqlite")
            let original = ForeignStores.bytes(of: url)
            let schemaURL = directory.file("4.json")
            try v4.snapshotJSON().write(to: schemaURL)
            let process = try Self.launch(url, schemaURL)
            // Up to 1.6 times the measured run: under load a later run may be slower than the measured one.
            usleep(UInt32(whole * 1_600_000 * Double(round + 1) / 12))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            // Right after the kill, with no recovery yet: the original as it was, or a Molt store.
            let whatIsThere: String
            if ForeignStores.bytes(of: url)[""] == original[""] {
                #expect(try ForeignFileKind.isCoreData(url))
                whatIsThere = "original"
            } else if FileManager.default.fileExists(atPath: url.path) {
                #expect(try Store.inspect(at: url).version == 4)
                whatIsThere = "adopted"
            } else {
                // Killed inside the swap: the original is in the work folder, marked done; the opening finishes.
                #expect(
                    FileManager.default.fileExists(atPath: directory.file(".Posts.sqlite.molt-adoption/READY").path))
                whatIsThere = "swapping"
            }
            outcomes[whatIsThere, default: 0] += 1
            let store = try Store.open(
                at: url, schema: v4, options: Store.Options().adopting(.coreData(model: ForeignStores.url(Self.model))))
            let counts = try store.read { (try $0.count("Post"), try $0.count("Color")) }
            #expect(counts == (7995, 7995), "after a kill at round \(round) (\(whatIsThere)): \(counts)")
            try store.close()
            #expect(!FileManager.default.fileExists(atPath: directory.file(".Posts.sqlite.molt-adoption").path))
            #expect(
                ForeignStores.bytes(of: directory.file("Posts.sqlite.adoption-backup/Posts.sqlite"))[""] == original[""]
            )
        }
        // The first moments come before the commit whatever the load; the later ones usually after it (which ones
        // depends on the machine: the campaign's `adoption sigkill` rows report the spread).
        #expect(outcomes["original", default: 0] > 0)
        print("adoption kills: \(outcomes) over a run of \(whole) s")
    }

    private static func launch(_ url: URL, _ schemaURL: URL) throws -> Process {
        let process = Process()
        process.executableURL = try Worker.binary()
        process.arguments = [
            "open", url.path, schemaURL.path, "wal", "--adopt-coredata", ForeignStores.url(model).path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The seconds a whole adoption takes in a worker, from its launch.
    private static func timedRun(schema: Schema) throws -> Double {
        let directory = TemporaryDirectory()
        let url = try ForeignStores.copy(
            "wibosco-progressive/CoreDataMigration_Example_3.sqlite", to: directory, as: "Posts.sqlite")
        let schemaURL = directory.file("4.json")
        try schema.snapshotJSON().write(to: schemaURL)
        let start = Date()
        let process = try launch(url, schemaURL)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return Date().timeIntervalSince(start)
    }
}
