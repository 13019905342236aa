import Foundation
import Molt
import Testing

@Suite("molt info and molt schema")
struct InspectionTests {
    @Test("info --count prints version, hash, entities with counts and attributes, and history")
    func infoText() throws {
        let dir = TemporaryDirectory()
        let store = try Fixtures.memoStore(at: dir.file("memos.sqlite"), count: 7, schema: Fixtures.memoV1)
        let result = try Molt.run(["info", store.path, "--count"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            Array(lines.prefix(12)) == [
                "Store:       \(store.path)",
                "Version:     1",
                "Schema hash: \(Fixtures.memoV1.contentHash)",
                "File format: 1",
                "",
                "Entities:",
                "  UserMemo: 7 objects",
                "    objectID: uuid (primary key)",
                "    memoTitle: string",
                "    memoDate: date",
                "    memoSubtitle: string?",
                "    favorite: bool = false",
            ])
        #expect(lines.contains("    count: int = 100"))
        #expect(lines.contains("    0 → 1 inferred: Attribute 'UserMemo.count' has been added."))
        #expect(lines.contains { $0.hasPrefix("  0 → 1  ") && $0.hasSuffix("  no object changed") })
    }

    @Test("without --count, info counts nothing: each entity on its own line, no count in the JSON")
    func infoWithoutCounts() throws {
        let dir = TemporaryDirectory()
        let store = try Fixtures.memoStore(at: dir.file("memos.sqlite"), count: 7)
        let before = try snapshotOfFiles(in: dir.url)
        let text = try Molt.run(["info", store.path])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.split(separator: "\n").contains("  UserMemo"))
        let json = try Molt.run(["info", store.path, "--json"])
        let entity =
            ((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any])["entities"]
            as! [[String: Any]])[0]
        #expect(entity["name"] as? String == "UserMemo")
        #expect(entity["count"] == nil)
        #expect(try snapshotOfFiles(in: dir.url) == before)
    }

    @Test("info --json --count is an object with version, entities, counts, attributes and history")
    func infoJSON() throws {
        let dir = TemporaryDirectory()
        let store = try Fixtures.memoStore(at: dir.file("memos.sqlite"), count: 3)
        let result = try Molt.run(["info", store.path, "--json", "--count"])
        #expect(result.status == 0, "\(result)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(json["version"] as? Int == 0)
        #expect(json["schemaHash"] as? String == Fixtures.memoV0.contentHash)
        #expect((json["history"] as? [Any])?.isEmpty == true)
        let entity = (json["entities"] as! [[String: Any]])[0]
        #expect(entity["name"] as? String == "UserMemo")
        #expect(entity["count"] as? Int == 3)
        let attributes = entity["attributes"] as! [[String: Any]]
        #expect(
            attributes.map { $0["name"] as? String } == [
                "objectID", "memoTitle", "memoDate", "memoSubtitle", "favorite",
            ])
        #expect(attributes[0]["primaryKey"] as? Bool == true)
        #expect(attributes[3]["optional"] as? Bool == true)
        #expect(attributes[4]["default"] as? String == "false")
    }

    @Test("schema prints the stored snapshot exactly as Schema.snapshotJSON() writes it")
    func schema() throws {
        let dir = TemporaryDirectory()
        let store = try Fixtures.memoStore(at: dir.file("memos.sqlite"), count: 1, schema: Fixtures.memoV1)
        let result = try Molt.run(["schema", store.path])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == String(decoding: try Fixtures.memoV1.snapshotJSON(), as: UTF8.self) + "\n")
        #expect(try Schema(snapshotJSON: Data(result.stdout.utf8)) == Fixtures.memoV1)
    }
}
