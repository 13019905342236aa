import Foundation
import Molt
import Testing

@testable import MoltAdoption

/// The reader of Realm's file format (no Realm linked) on the files realm-core 14.14.0 wrote, in
/// `../shared/foreign-stores/realm/`: the object counts its README states, the older formats refused naming
/// their version, and damaged copies refused without a crash.
@Suite("Realm files: the reader", .enabled(if: ForeignStores.isPresent, "needs ../shared/foreign-stores"))
struct RealmFileReaderTests {
    /// The number of objects of each table of the file at `path` (under the fixtures' `realm/` folder).
    static func counts(_ path: String) throws -> (format: Int, counts: [String: Int]) {
        let file = try RealmFile(at: ForeignStores.url("realm/" + path))
        var counts: [String: Int] = [:]
        for table in file.tables {
            var count = 0
            try file.forEachObject(in: table) { _ in count += 1 }
            counts[table.name] = count
        }
        return (file.formatVersion, counts)
    }

    @Test(
        "each memo file holds the memos its README counts: 300, then 5 added and 1 deleted per version",
        arguments: 0...6)
    func memos(version: Int) throws {
        let (format, counts) = try Self.counts("memo_v\(version).realm")
        #expect(format == 24)
        #expect(counts["class_UserMemo"] == 300 + 4 * version)
    }

    @Test("the memo app's migrations show in the values: the rename to title, the computed Korean description")
    func memoValues() throws {
        let v4 = try RealmFile(at: ForeignStores.url("realm/memo_v4.realm"))
        let memos = try #require(v4.table(named: "class_UserMemo"))
        let names = memos.columns.map(\.name)
        #expect(names.contains("title") && !names.contains("memoTitle"))
        let title = try #require(names.firstIndex(of: "title"))
        let description = try #require(names.firstIndex(of: "memoDescription"))
        var described = 0
        try v4.forEachObject(in: memos) { memo in
            guard case .string(let text) = memo.values[description], case .string(let title) = memo.values[title]
            else { return }
            // The seed's Swift code interpolates the `Any?` subscripts: `Optional("<title>")`.
            if text.hasPrefix("안녕하세요 Optional(\"\(title)\")은 Optional(") && text.hasSuffix("에 작성되었습니다") {
                described += 1
            }
        }
        // The 312 memos the migration to v4 computed, less the one the app then deleted and the one it edited; the
        // 5 it added in v4 are its own.
        #expect(described >= 310)
    }

    @Test("the file of every property type reads whole; the objects deleted after creation (ids 3, 7, 10) are gone")
    func allTypes() throws {
        let file = try RealmFile(at: ForeignStores.url("realm/alltypes.realm"))
        let table = try #require(file.table(named: "class_AllTypes"))
        let id = try #require(table.columns.firstIndex { $0.name == "id" })
        let optionalBool = try #require(table.columns.firstIndex { $0.name == "optBoolCol" })
        var ids: [Int64] = []
        var bools: Set<String> = []
        try file.forEachObject(in: table) { object in
            if case .int(let value) = object.values[id] { ids.append(value) }
            bools.insert("\(object.values[optionalBool])")
        }
        #expect(!ids.isEmpty && ids.allSatisfy { ![3, 7, 10].contains($0) }, "\(ids)")
        #expect(bools.isSubset(of: ["null", "true", "false"]) && bools.contains("null"), "\(bools)")
        for other in file.tables { try file.forEachObject(in: other) { _ in } }
    }

    @Test("the people file: persons, pets and the embedded addresses, each counted as the README says")
    func people() throws {
        let (_, counts) = try Self.counts("people_v0.realm")
        #expect(counts["class_Person"] == 1_000)
        #expect(counts["class_Pet"] == 1_510)
        #expect(counts["class_Address"] == 857)
    }

    @Test("a compacted (streaming) file and its uncompacted original hold the same notes, and a pinned file its 503")
    func compactedAndPinned() throws {
        let compacted = try Self.counts("churn_compacted.realm")
        let uncompacted = try Self.counts("churn_uncompacted.realm")
        #expect(compacted.counts["class_Note"] == 1_000)
        #expect(uncompacted.counts["class_Note"] == 1_000)
        #expect(try Self.counts("pinned_reader.realm").counts["class_Note"] == 503)
    }

    @Test(
        "files of formats 10, 11 and 20 are refused, naming the format and how to upgrade them",
        arguments: [
            ("test_upgrade_database_1000_10_to_11.realm", 10), ("test_upgrade_database_11.realm", 11),
            ("test_upgrade_database_20.realm", 20),
        ])
    func olderFormats(file: String, format: Int) throws {
        let error = moltError { _ = try RealmFile(at: ForeignStores.url("realm/realm-core-tests/" + file)) }
        #expect(error?.code == .unsupportedFormat)
        #expect(
            error?.message.contains("is in file format \(format), written by a Realm older than Realm Swift 10") == true
        )
        #expect(error?.message.contains("Open it once with Realm Swift 10.x") == true)
    }

    @Test("formats 22 and 23 of realm-core's own test files are read")
    func formats22And23() throws {
        for (file, format) in [
            ("test_upgrade_database_4_22.realm", 22), ("test_upgrade_database_4_23.realm", 23),
            ("downgrade_asymmetric.realm", 22), ("object-store__sync-metadata-v6.realm", 23),
        ] {
            #expect(try Self.counts("realm-core-tests/" + file).format == format, "\(file)")
        }
    }

    @Test("truncated copies and copies with flipped bytes throw or read, never crash or hang")
    func damagedCopies() throws {
        let original = try Data(contentsOf: ForeignStores.url("realm/memo_v0.realm"))
        let dir = TemporaryDirectory()
        let url = dir.file("damaged.realm")
        var damages: [Data] = []
        for size in stride(from: 0, to: original.count, by: original.count / 64) {
            damages.append(original.prefix(size))
        }
        var random = SplitMix(seed: 42)
        for _ in 0..<256 {
            var copy = original
            for _ in 0..<1 + Int(random.next() % 4) {
                let index = Int(random.next() % UInt64(copy.count))
                copy[index] ^= UInt8(1 + random.next() % 255)
            }
            damages.append(copy)
        }
        var refused = 0
        for damaged in damages {
            try damaged.write(to: url)
            do {
                let file = try RealmFile(at: url)
                for table in file.tables { try file.forEachObject(in: table) { _ in } }
            } catch let error as MoltError {
                #expect([.corruptStore, .unsupportedFormat].contains(error.code), "\(error)")
                refused += 1
            }
        }
        #expect(refused > 64, "every truncation below the header is refused, \(refused) of \(damages.count) in all")
    }
}

/// A small deterministic generator, so that a damage that fails can be found again.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
