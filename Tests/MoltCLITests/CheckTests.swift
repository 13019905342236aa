import Foundation
import Molt
import Testing

@Suite("molt check")
struct CheckTests {
    @Test("a clean chain of snapshots passes, with warnings for destructive changes")
    func clean() throws {
        let dir = TemporaryDirectory()
        var v2 = Fixtures.memoV1.withVersion(2)
        v2.entities[0].attributes.removeAll { $0.name == "count" }
        try Fixtures.write(Fixtures.memoV0, to: dir.file("0.json"))
        try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
        try Fixtures.write(v2, to: dir.file("2.json"))
        let result = try Molt.run(["check", dir.url.path])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                warning: 2.json: step 1 → 2 deletes data: Attribute 'UserMemo.count' has been removed.
                Checked 3 versions (0, 1, 2): 0 errors, 1 warning.

                """)
    }

    @Test("gaps, duplicates, misnamed files and steps that need code without a stage are errors (exit 1)")
    func errors() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.memoV0, to: dir.file("0.json"))
        try Fixtures.write(Fixtures.memoV1NeedsCode, to: dir.file("1.json"))
        try Fixtures.write(Fixtures.memoV1NeedsCode, to: dir.file("01.json"))
        try Fixtures.write(Fixtures.memoV1.withVersion(4), to: dir.file("4.json"))
        try Fixtures.write(Fixtures.memoV1.withVersion(5), to: dir.file("6.json"))
        let result = try Molt.run(["check", dir.url.path])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stdout == """
                error: 01.json: version 1 is also in 1.json; keep one snapshot per version.
                error: 6.json: it holds version 5, but its name says 6; rename it 5.json or fix its version.
                error: 1.json: step 0 → 1 cannot be inferred and no --stage covers it: Attribute 'UserMemo.memoDescription' has been added as required with no default value between versions 0 and 1, so existing objects would have no value. Give it a default (`default: …`), make it optional, or set its value in a custom stage from version 0 to 1.
                error: versions 2, 3 missing between 1.json and 4.json; keep the snapshot of every version you shipped.
                warning: 4.json: step 1 → 4 deletes data: Attribute 'UserMemo.memoDescription' has been removed.
                Checked 4 versions (0, 1, 4, 5): 4 errors, 1 warning.

                """)
    }

    @Test("--stage declares the steps an app covers with code; --json reports the same issues")
    func stages() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.memoV0, to: dir.file("0.json"))
        try Fixtures.write(Fixtures.memoV1NeedsCode, to: dir.file("1.json"))
        let covered = try Molt.run(["check", dir.url.path, "--stage", "0:1", "--json"])
        #expect(covered.status == 0, "\(covered)")
        let json = try JSONSerialization.jsonObject(with: Data(covered.stdout.utf8)) as! [String: Any]
        #expect(json["versions"] as? [Int] == [0, 1])
        #expect(json["errors"] as? Int == 0)
        // Covered by a stage, the required attribute is the stage's to set: a warning says so, naming the data.
        let issues = json["issues"] as! [[String: Any]]
        #expect(issues.count == 1)
        #expect(issues.first?["severity"] as? String == "warning")
        #expect(
            issues.first?["message"] as? String
                == #"step 0 → 1 depends on the data: 'UserMemo.memoDescription' is added as required with no default: a store at version 0 where a 'UserMemo' object exists is refused. Set it for every object in the stage from version 0 to 1 (`new["memoDescription"] = …` in `enumerateObjects(ofType: "UserMemo")`), give it a default, or make it optional."#
        )

        let bad = try Molt.run(["check", dir.url.path, "--stage", "1-2"])
        #expect(bad.status == 2)
        #expect(
            bad.stderr.hasPrefix(
                "Error: --stage '1-2' is not FROM:TO with two versions, the second greater (for example 4:5).\n"))
    }

    @Test("a snapshot that is not valid JSON is reported and exits 3")
    func unreadable() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.memoV0, to: dir.file("0.json"))
        try Data("{ \"version\": 1, ".utf8).write(to: dir.file("1.json"))
        let result = try Molt.run(["check", dir.url.path])
        #expect(result.status == 3, "\(result)")
        #expect(result.stdout.hasPrefix("error: 1.json: The schema snapshot is not valid JSON: "))
        #expect(result.stdout.hasSuffix("Checked 1 version (0): 1 error, 0 warnings.\n"))
    }

    @Test("--against catches a shipped version whose snapshot was edited afterwards")
    func editedFrozenVersion() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.url.appendingPathComponent("schemas")
        try FileManager.default.createDirectory(at: snapshots, withIntermediateDirectories: true)
        try Fixtures.memoStore(at: dir.file("shipped.sqlite"), count: 2, schema: Fixtures.memoV1)
        try Fixtures.write(Fixtures.memoV0, to: snapshots.appendingPathComponent("0.json"))
        var edited = Fixtures.memoV1
        edited.entities[0].attributes[3].isOptional = false
        edited.entities[0].attributes[3].defaultValue = ""
        try Fixtures.write(edited, to: snapshots.appendingPathComponent("1.json"))
        let result = try Molt.run(["check", "schemas", "--against", "shipped.sqlite"], in: dir.url)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stdout == """
                error: 1.json: version 1 was edited after it shipped (shipped.sqlite was created with the original): Attribute 'UserMemo.memoSubtitle' has been made required. Attribute 'UserMemo.memoSubtitle' has changed its default from none to "". Restore it, and put the change in a new version.
                Checked 2 versions (0, 1): 1 error, 0 warnings.

                """)
        try Fixtures.write(Fixtures.memoV1, to: snapshots.appendingPathComponent("1.json"))
        let restored = try Molt.run(["check", "schemas", "--against", "shipped.sqlite"], in: dir.url)
        #expect(restored.status == 0, "\(restored)")
        #expect(restored.stdout == "Checked 2 versions (0, 1): 0 errors, 0 warnings.\n")
    }

    @Test("versions far apart are reported as a range: nothing is enumerated or allocated per missing version")
    func hugeGap() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
        try Fixtures.write(Fixtures.memoV1.withVersion(Schema.maximumVersion), to: dir.file("2147483646.json"))
        let result = try Molt.run(["check", dir.url.path])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stdout == """
                error: versions 2 to 2147483645 (2147483644 versions) missing between 1.json and 2147483646.json; keep the snapshot of every version you shipped.
                Checked 2 versions (1, 2147483646): 1 error, 0 warnings.

                """)
    }
}
