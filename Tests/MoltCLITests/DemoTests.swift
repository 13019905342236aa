import Foundation
import Molt
import Testing

@Suite("molt demo")
struct DemoTests {
    @Test("demo walks the memo store through versions 0 → 6 and leaves it for molt info")
    func demo() throws {
        let dir = TemporaryDirectory()
        let result = try Molt.run(["demo", "--directory", dir.url.path, "--count", "120"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let store = dir.file("memos.sqlite")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "    created memos.sqlite with 120 UserMemo objects in " + lines.first { $0.hasPrefix("    created") }!
                    .components(separatedBy: " in ").last!))
        for expected in [
            "    + Attribute 'UserMemo.count' has been added.",
            "    - Attribute 'UserMemo.count' has been removed.",
            "    + Attribute 'UserMemo.memoTitle' has been renamed to 'title'.",
            "    ! Attribute 'UserMemo.memoDescription' has been added.",
            "    Molt will not infer this (1 refused), so the app declares a custom stage 3 → 4.",
            "    (the app left count empty on 12 memos; they get the fallback 0)",
            "    + Attribute 'UserMemo.count' has changed type from 'int' to 'double'.",
            "    + Attribute 'UserMemo.count' has been made required.",
            "Final: version 6, 120 UserMemo objects, 6 migrations recorded",
            "  first memo: title: \"Groceries #1\", count: 100.0, memoDescription: \"Groceries #1 is a favorite\", favorite: true",
            "  memos whose count fell back to 0: 12",
            "Store: \(store.path)",
            "Next:  molt info \(store.path)",
        ] {
            #expect(lines.contains(expected), "missing line: \(expected)\n\(result.stdout)")
        }
        #expect(lines.filter { $0.hasPrefix("    migrated by inference in ") }.count == 5)
        #expect(
            lines.filter {
                $0.hasPrefix("    migrated by the custom stage in ") && $0.hasSuffix(", 120 objects updated")
            }.count == 1)
        #expect(
            lines.filter {
                $0.hasPrefix("    migrated by inference in ")
                    && $0.hasSuffix(", dropped 120 values of 'UserMemo.count'")
            }.count == 1)

        let info = try Molt.run(["info", store.path, "--json", "--count"])
        #expect(info.status == 0, "\(info)")
        let json = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
        #expect(json["version"] as? Int == 6)
        let entities = json["entities"] as! [[String: Any]]
        #expect(entities.map { $0["name"] as? String } == ["UserMemo"])
        #expect(entities[0]["count"] as? Int == 120)
        #expect((json["history"] as! [[String: Any]]).map { $0["toVersion"] as? Int } == [1, 2, 3, 4, 5, 6])

        // The store is a real one: the library reads it, every memo has its description and a count.
        let stored = try Store.inspect(at: store)
        let memos = try Store.open(at: store, schema: stored.schema).read { try $0.fetch("UserMemo") }
        #expect(memos.count == 120)
        #expect(memos.allSatisfy { $0["memoDescription"].string?.hasPrefix($0["title"].string ?? "?") == true })
        #expect(memos.filter { $0["count"] == .double(0) }.count == 12)
        #expect(memos.filter { $0["count"] == .double(100) }.count == 108)
    }

    @Test("demo refuses a count out of range and an existing store, as usage errors")
    func usage() throws {
        let zero = try Molt.run(["demo", "--count", "0"])
        #expect(zero.status == 2)
        #expect(zero.stderr.contains("Error: --count must be between 1 and 1000000, not 0."))
        let dir = TemporaryDirectory()
        try Data("keep me".utf8).write(to: dir.file("memos.sqlite"))
        let taken = try Molt.run(["demo", "--directory", dir.url.path])
        #expect(taken.status == 2)
        #expect(
            taken.stderr.contains(
                "Error: \(dir.file("memos.sqlite").path) already exists; choose another --directory, or delete it."))
        #expect(try Data(contentsOf: dir.file("memos.sqlite")) == Data("keep me".utf8))
    }

    @Test("without --directory, demo creates its store in a new temporary folder and prints its path")
    func defaultFolder() throws {
        let result = try Molt.run(["demo", "--count", "5"])
        #expect(result.status == 0, "\(result)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("Store: ") })
        let store = URL(fileURLWithPath: String(line.dropFirst("Store: ".count)))
        defer { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
        #expect(store.lastPathComponent == "memos.sqlite")
        #expect(store.deletingLastPathComponent().lastPathComponent.hasPrefix("molt-demo-"))
        #expect(try Store.inspect(at: store).objectCounts == ["UserMemo": 5])
    }
}
