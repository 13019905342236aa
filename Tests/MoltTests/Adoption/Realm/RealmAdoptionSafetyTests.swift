import Foundation
import Molt
import Testing

@testable import MoltAdoption

/// What an adoption of a Realm file refuses, and what it never does: write the original, crash on a damaged
/// file, or leave anything but the original or a complete Molt store when it is killed.
@Suite("Realm files: refusals, damage, kills", .enabled(if: ForeignStores.isPresent, "needs ../shared/foreign-stores"))
struct RealmAdoptionSafetyTests {
    /// Adopts the Realm file at `url` into a new file in `directory`; the error it throws, if any.
    static func refusal(_ url: URL, in directory: TemporaryDirectory, schema: Schema? = nil) -> MoltError? {
        let destination = directory.file("adopted-\(UUID().uuidString).sqlite")
        do {
            let adoption = RealmAdoption(schema: schema, from: url)
            let target = try adoption.matchedVersion(of: url).schema
            _ = try adoption.adopt(at: .file(destination), schema: target, options: Store.Options())
            return nil
        } catch let error as MoltError {
            // Nothing of a store is left where it would have been.
            #expect((try? Store.inspect(at: destination)) == nil)
            return error
        } catch {
            Issue.record("not a MoltError: \(error)")
            return nil
        }
    }

    @Test("what has no exact Molt form is refused naming the class and the property; the file is not written")
    func unsupportedProperty() throws {
        let url = RealmAdoptionTests.url("alltypes.realm")
        let before = try Data(contentsOf: url)
        let error = try #require(Self.refusal(url, in: TemporaryDirectory()))
        #expect(error.code == .unsupportedFormat)
        #expect(error.entity == "AllTypes" && error.property == "anyCol")
        #expect(error.message.contains("'AllTypes'") && error.message.contains("AnyRealmValue"))
        #expect(try Data(contentsOf: url) == before)
    }

    @Test(
        "older formats are refused naming their version; files with no object class say so",
        arguments: [
            ("test_upgrade_database_1000_10_to_11.realm", "format 10"), ("test_upgrade_database_11.realm", "format 11"),
            ("test_upgrade_database_20.realm", "format 20"), ("test_upgrade_database_1000_22.realm", "no object class"),
            ("resources__vacuum_no_history_type.realm", "no object class"),
        ])
    func unsupportedFiles(name: String, says: String) throws {
        let error = try #require(
            Self.refusal(ForeignStores.url("realm/realm-core-tests/" + name), in: TemporaryDirectory()))
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains(says), "\(error.message)")
    }

    @Test("a schema that describes the file otherwise is refused naming the property")
    func declaredMismatch() throws {
        let wrong = Schema(version: 1) {
            Entity("UserMemo", primaryKey: "objectID") {
                Attribute("objectID", .string)
                Attribute("memoTitle", .int)
                Attribute("memoDate", .date)
                Attribute("memoSubtitle", .string, isOptional: true)
                Attribute("memoContent", .string, isOptional: true)
                Attribute("favorite", .bool)
            }
        }
        let error = try #require(
            Self.refusal(RealmAdoptionTests.url("memo_v0.realm"), in: TemporaryDirectory(), schema: wrong))
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("'UserMemo.memoTitle' as int") && error.message.contains("string"))
    }

    @Test("an encrypted file (pages of noise, no header) is refused with the way to an unencrypted copy; noise too")
    func encryptedAndNoise() throws {
        let directory = TemporaryDirectory()
        var random = SystemRandomNumberGenerator()
        for (name, size) in [("encrypted.realm", 8_192), ("noise.realm", 1_000)] {
            let url = directory.file(name)
            try Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: url)
            let error = try #require(Self.refusal(url, in: directory))
            if size == 8_192 {
                #expect(error.code == .unsupportedFormat && error.message.contains("writeCopy"), "\(error)")
            } else {
                #expect(error.code == .corruptStore && error.message.contains("not a Realm file"), "\(error)")
            }
        }
    }

    @Test("a renaming that names no property is refused, not ignored")
    func unknownRenaming() throws {
        let directory = TemporaryDirectory()
        let destination = directory.file("memos.sqlite")
        let adoption = RealmAdoption(
            renaming: ["UserMemo.memoTitel": "headline"], from: RealmAdoptionTests.url("memo_v0.realm"))
        let error = try #require(throws: MoltError.self) {
            _ = try adoption.adopt(
                at: .file(destination), schema: Schema(version: 0, entities: []), options: Store.Options())
        }
        #expect(error.code == .invalidSchema && error.message.contains("'UserMemo.memoTitel'"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test("damaged copies (truncated, bytes flipped) are refused or adopted whole, never a crash; never written")
    func damagedCopies() throws {
        let original = try Data(contentsOf: RealmAdoptionTests.url("memo_v0.realm"))
        let directory = TemporaryDirectory()
        var random = SystemRandomNumberGenerator()
        var copies: [Data] = (1..<16).map { original.prefix(original.count * $0 / 16) }
        for _ in 0..<40 {
            var flipped = original
            let offset = Int.random(in: 24..<min(original.count, 16_384), using: &random)
            flipped[offset] ^= UInt8.random(in: 1...255, using: &random)
            copies.append(flipped)
        }
        var refused = 0
        for (index, bytes) in copies.enumerated() {
            let url = directory.file("damaged-\(index).realm")
            try bytes.write(to: url)
            if let error = Self.refusal(url, in: directory) {
                refused += 1
                #expect(!error.message.isEmpty)
            }
            #expect(try Data(contentsOf: url) == bytes)
        }
        // Every truncation is refused (the file states a larger size); a flip in free space may adopt whole.
        #expect(refused >= 15)
    }

    @Test("in place: the Molt store takes the file's path, the Realm file and its .lock are kept as the backup")
    func inPlace() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("default.realm")
        try FileManager.default.copyItem(at: RealmAdoptionTests.url("memo_v0.realm"), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        try Data().write(to: URL(fileURLWithPath: url.path + ".lock"))
        let original = try Data(contentsOf: url)
        let schema = try RealmAdoption().matchedVersion(of: url).schema
        let store = try Store.open(at: url, schema: schema, options: Store.Options().adopting(.realm()))
        #expect(try store.read { try $0.count("UserMemo") } == 300)
        try store.close()
        let backup = directory.file("default.realm.adoption-backup")
        #expect(try Data(contentsOf: backup.appendingPathComponent("default.realm")) == original)
        #expect(FileManager.default.fileExists(atPath: backup.appendingPathComponent("default.realm.lock").path))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".lock"))
        // Opened again: a Molt store, nothing more to adopt.
        let again = try Store.open(at: url, schema: schema, options: Store.Options().adopting(.realm()))
        #expect(try again.read { try $0.count("UserMemo") } == 300)
        try again.close()
    }

    @Test("SIGKILL at 4 moments of adopting 200,000 objects: the Realm file as it was, or a complete Molt store")
    func killed() throws {
        let source = RealmAdoptionTests.url("large_200k.realm")
        let schema = try RealmAdoption().matchedVersion(of: source).schema
        func prepared() throws -> (TemporaryDirectory, URL, URL) {
            let directory = TemporaryDirectory()
            let url = directory.file("Items.realm")
            try FileManager.default.copyItem(at: source, to: url)
            let schemaURL = directory.file("0.json")
            try schema.snapshotJSON().write(to: schemaURL)
            return (directory, url, schemaURL)
        }
        let (timedDirectory, timedURL, timedSchema) = try prepared()
        let start = Date()
        let output = Pipe()
        let timed = try Self.launch(timedURL, timedSchema, output: output)
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        timed.waitUntilExit()
        #expect(timed.terminationStatus == 0, "\(said)")
        let whole = Date().timeIntervalSince(start)
        withExtendedLifetime(timedDirectory) {}
        let original = try Data(contentsOf: source)
        var outcomes: [String: Int] = [:]
        for round in 0..<4 {
            let (directory, url, schemaURL) = try prepared()
            let process = try Self.launch(url, schemaURL)
            usleep(UInt32(whole * 1_400_000 * Double(round + 1) / 4))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let there = (try? Data(contentsOf: url)) == original ? "original" : "adopted or swapping"
            outcomes[there, default: 0] += 1
            let store = try Store.open(at: url, schema: schema, options: Store.Options().adopting(.realm()))
            #expect(try store.read { try $0.count("Item") } == 200_000, "after a kill at round \(round) (\(there))")
            try store.close()
            let backup = directory.file("Items.realm.adoption-backup/Items.realm")
            #expect((try? Data(contentsOf: backup)) == original)
        }
        #expect(outcomes["original", default: 0] > 0)
        print("realm adoption kills: \(outcomes) over a run of \(whole) s")
    }

    private static func launch(_ url: URL, _ schemaURL: URL, output: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = try Worker.binary()
        process.arguments = ["open", url.path, schemaURL.path, "wal", "--adopt-realm"]
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
