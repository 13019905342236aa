import Foundation
import Molt
import Testing

/// `molt check DIR` names every step whose success depends on the data, with the data that would make it fail:
/// a warning (an empty store migrates; whether a user's store holds the data is the app's to know).
@Suite("molt check: steps whose success depends on the data")
struct CheckDataDependencyTests {
    static let v1 = Schema(version: 1) {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("nickname", .string, isOptional: true)
            Attribute("email", .string)
        }
    }
    /// Inferred: `email` becomes unique.
    static let v2 = Schema(version: 2) {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("nickname", .string, isOptional: true)
            Attribute("email", .string)
            Index(["email"], unique: true)
        }
    }
    /// Needs a stage: `nickname` renamed to the required `handle`, with no default.
    static let v3 = Schema(version: 3) {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("handle", .string, originalName: "nickname")
            Attribute("email", .string)
            Index(["email"], unique: true)
        }
    }

    static func folder() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        try Fixtures.write(Self.v1, to: dir.file("1.json"))
        try Fixtures.write(Self.v2, to: dir.file("2.json"))
        try Fixtures.write(Self.v3, to: dir.file("3.json"))
        return dir
    }

    static let unique =
        #"warning: 2.json: step 1 → 2 depends on the data: 'Person.email' becomes unique: a store at version 1 where two 'Person' objects hold the same 'email' is refused. Make the values unique in a custom stage from version 1 to 2 (`enumerateObjects(ofType: "Person")`), or drop the constraint."#

    @Test(
        "the issue's case first: a rename to required in a stage, and a uniqueness added, are warnings naming the data (exit 0)"
    )
    func stageAndInferred() throws {
        let dir = try Self.folder()
        let result = try Molt.run(["check", dir.url.path, "--stage", "2:3"])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                \(Self.unique)
                warning: 3.json: step 2 → 3 depends on the data: 'Person.handle' becomes required with no default (it was the optional 'Person.nickname'): a store at version 2 where a 'Person' object has no value in 'nickname' is refused. Set it for every object in the stage from version 2 to 3 (`new["handle"] = …` in `enumerateObjects(ofType: "Person")`), give it a default, or make it optional.
                Checked 3 versions (1, 2, 3): 0 errors, 2 warnings.

                """)
    }

    @Test(
        "without its stage the rename is an error, whatever the data; the uniqueness stays a warning; --json says the same"
    )
    func withoutStage() throws {
        let dir = try Self.folder()
        let result = try Molt.run(["check", dir.url.path])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stdout == """
                \(Self.unique)
                error: 3.json: step 2 → 3 cannot be inferred and no --stage covers it: Attribute 'Person.handle' has been made required between versions 2 and 3, but it has no default value for the objects where it is null. Give it a default (`default: …`), or fill the null values in a custom stage from version 2 to 3.
                Checked 3 versions (1, 2, 3): 1 error, 1 warning.

                """)
        let json = try Molt.run(["check", dir.url.path, "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let issues = report["issues"] as! [[String: Any]]
        #expect(issues.first?["severity"] as? String == "warning")
        #expect(issues.first?["file"] as? String == "2.json")
        #expect((issues.first?["message"] as? String).map { "warning: 2.json: " + $0 } == Self.unique)
    }
}
