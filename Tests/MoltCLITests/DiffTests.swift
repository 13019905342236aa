import Foundation
import Molt
import Testing

@Suite("molt diff")
struct DiffTests {
    @Test("diff lists inferable changes and flags destructive ones")
    func inferable() throws {
        let dir = TemporaryDirectory()
        var v2 = Fixtures.memoV1.withVersion(2)
        v2.entities[0].attributes.removeAll { $0.name == "memoSubtitle" }
        try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
        try Fixtures.write(v2, to: dir.file("2.json"))
        let result = try Molt.run(["diff", "1.json", "2.json"], in: dir.url)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                Version 1 → 2: 1 change
                  destructive  Attribute 'UserMemo.memoSubtitle' has been removed.

                Molt can infer this migration; 1 change deletes data.

                """)
    }

    @Test("diff explains a refused change and suggests the rename with the exact fix")
    func renameSuggestion() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.memoV0, to: dir.file("0.json"))
        try Fixtures.write(Fixtures.memoV1Renamed, to: dir.file("1.json"))
        let result = try Molt.run(["diff", "0.json", "1.json"], in: dir.url)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                Version 0 → 1: 2 changes
                  refused      Attribute 'UserMemo.title' has been added.
                               Attribute 'UserMemo.title' has been added as required with no default value between versions 0 and 1, so existing objects would have no value. Give it a default (`default: …`), make it optional, or set its value in a custom stage from version 0 to 1.
                  destructive  Attribute 'UserMemo.memoTitle' has been removed.

                Likely renames:
                  'UserMemo.memoTitle' → 'title' (string)
                    If 'UserMemo.memoTitle' was renamed to 'title', add "originalName" : "memoTitle" to attribute 'title' of entity 'UserMemo' in 1.json (in Swift: `@Attribute(originalName: "memoTitle") var title` in a @Model, or Attribute("title", .string, originalName: "memoTitle")); its values are then kept instead of deleted.

                Molt cannot infer this migration: 1 change needs a custom stage.

                """)
    }

    @Test("applying the suggested fix makes the step an inferable rename")
    func fixWorks() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.memoV0, to: dir.file("0.json"))
        var fixed = Fixtures.memoV1Renamed
        fixed.entities[0].attributes[1] = Attribute("title", .string, originalName: "memoTitle")
        try Fixtures.write(fixed, to: dir.file("1.json"))
        let result = try Molt.run(["diff", "0.json", "1.json", "--json"], in: dir.url)
        #expect(result.status == 0, "\(result)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(json["inferable"] as? Bool == true)
        #expect(
            (json["changes"] as! [[String: Any]]).map { $0["description"] as? String } == [
                "Attribute 'UserMemo.memoTitle' has been renamed to 'title'."
            ])
        #expect((json["suggestedRenames"] as! [Any]).isEmpty)
    }

    @Test("diff --json carries every change with its flags, refusal and rename suggestion")
    func json() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.memoV0, to: dir.file("0.json"))
        try Fixtures.write(Fixtures.memoV1Renamed, to: dir.file("1.json"))
        let result = try Molt.run(["diff", "0.json", "1.json", "--json"], in: dir.url)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(json["fromVersion"] as? Int == 0)
        #expect(json["toVersion"] as? Int == 1)
        #expect(json["inferable"] as? Bool == false)
        let changes = json["changes"] as! [[String: Any]]
        #expect(changes.map { $0["inferable"] as? Bool } == [false, true])
        #expect(changes.map { $0["destructive"] as? Bool } == [false, true])
        #expect(
            (changes[0]["refusal"] as? String)?.hasPrefix(
                "Attribute 'UserMemo.title' has been added as required with no default value") == true)
        let renames = json["suggestedRenames"] as! [[String: Any]]
        #expect(
            renames.map {
                [$0["entity"] as? String, $0["from"] as? String, $0["to"] as? String, $0["type"] as? String]
            } == [["UserMemo", "memoTitle", "title", "string"]])
    }
}
