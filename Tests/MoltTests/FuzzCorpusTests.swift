import Foundation
import Testing
import Molt
@_spi(Fuzzing) import MoltTesting

/// The fuzz targets' committed inputs (`Fuzz/Corpus/`), replayed through the same entry points in the ordinary
/// test run: every input, including each one that once crashed a target, is answered with a value or a
/// ``MoltError``.
@Suite("Fuzz corpus: every committed input is answered, never trapped on")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fuzz/Corpus").standardizedFileURL

    /// The files of one target's corpus, sorted.
    static func inputs(_ target: String) throws -> [(name: String, bytes: Data)] {
        let folder = corpus.appendingPathComponent(target)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
            ($0, try Data(contentsOf: folder.appendingPathComponent($0)))
        }
    }

    /// The schema the mapping and import targets read against.
    static var schema: Schema { FuzzingEntryPoints.fixtureSchema }

    @Test("every snapshot input reads and writes back as the same schema, or is refused with a MoltError")
    func snapshots() throws {
        let inputs = try Self.inputs("snapshot")
        #expect(!inputs.isEmpty)
        var read = 0
        for input in inputs {
            do {
                let schema = try Schema(snapshotJSON: input.bytes)
                #expect(try Schema(snapshotJSON: schema.snapshotJSON()) == schema, "\(input.name)")
                read += 1
            } catch is MoltError {}
        }
        #expect(read > 0, "no seed snapshot reads")
    }

    @Test("the seed mapping expressions are accepted or refused as a mapping stage would")
    func mappings() throws {
        let check = try FuzzingEntryPoints.mappingCheck(over: Self.schema)
        let answers = Dictionary(
            uniqueKeysWithValues: try Self.inputs("mapping").map {
                ($0.name, check(String(decoding: $0.bytes, as: UTF8.self), "Book"))
            })
        for accepted in ["upper.sql", "arithmetic.sql", "case.sql", "functions.sql"] {
            #expect(answers[accepted] == .some(nil), "\(accepted)")
        }
        #expect(answers["subquery.sql"] == .some(nil))
        #expect(answers["statement.sql"] == "it contains ';', which ends a statement")
        #expect(answers["comment.sql"] == "it contains a comment")
    }

    @Test("every import input is imported and rolled back, or refused with a MoltError")
    func imports() throws {
        let store = try Store.inMemory(schema: Self.schema)
        var imported: [String: Int] = [:]
        for input in try Self.inputs("import") {
            do {
                imported[input.name] = try FuzzingEntryPoints.importDataFile(Array(input.bytes), into: store)
            } catch is MoltError {}
        }
        #expect(imported["library.json"] == 6)
        #expect(imported["minimal.json"] == 1)  // one book, at the smallest 64-bit page count
        #expect(try store.read { try $0.count("Book") } == 0)
    }
}
