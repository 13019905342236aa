import Foundation
import Testing
import Molt
import MoltTooling

/// The rules of a folder of schema snapshots, the one home that MoltTesting and `molt check` call.
@Suite("Snapshot folders")
struct SnapshotFolderTests {
    static let v0 = Schema(version: 0) { Entity("Note") { Attribute("text", .string) } }
    static let v1 = Schema(version: 1) {
        Entity("Note") {
            Attribute("text", .string)
            Attribute("pinned", .bool, default: false)
        }
    }

    @Test(
        "only N.json, written as Molt writes N and within the 32-bit bound, names a version",
        arguments: [
            ("0.json", 0), ("12.json", 12), ("2147483646.json", 2_147_483_646),
            ("012.json", nil), ("+1.json", nil), ("-1.json", nil), ("1.JSON", nil), ("latest.json", nil),
            ("2147483647.json", nil), ("9223372036854775807.json", nil), ("99999999999999999999.json", nil),
        ] as [(String, Int?)])
    func fileNames(name: String, version: Int?) {
        #expect(SnapshotFolder.version(ofFileNamed: name) == version)
    }

    @Test("recording writes N.json, keeps the same schema, and never overwrites a different one")
    func record() throws {
        let dir = TemporaryDirectory()
        let folder = SnapshotFolder(dir.url.appendingPathComponent("schemas"))
        #expect(try folder.recordedVersions().isEmpty)
        #expect(try folder.record(Self.v0))
        #expect(try !folder.record(Self.v0))
        let error = try #require(throws: MoltError.self) { try folder.record(Self.v1.withVersion(0)) }
        #expect(error.code == .schemaChangedWithoutVersionBump)
        #expect(error.property == "pinned")
        #expect(try folder.schema(version: 0) == Self.v0)
        #expect(try Data(contentsOf: folder.url(version: 0)) == (try Self.v0.snapshotJSON()))
    }

    @Test("reading names the missing, damaged, misnamed or stray file and the fix")
    func readingErrors() throws {
        let dir = TemporaryDirectory()
        let folder = SnapshotFolder(dir.url)
        let missing = try #require(throws: MoltError.self) { try folder.schema(version: 3) }
        #expect(missing.code == .snapshotMissing)
        #expect(missing.message == "Version 3 has no snapshot: there is no file \(folder.url(version: 3).path).")
        try Self.v0.snapshotJSON().write(to: folder.url(version: 1))
        let misnamed = try #require(throws: MoltError.self) { try folder.schema(version: 1) }
        #expect(
            misnamed.message
                == "The snapshot 1.json records version 0, not 1; a file must be named after the version it records. Restore it from version control."
        )
        try Data("{".utf8).write(to: folder.url(version: 2))
        let damaged = try #require(throws: MoltError.self) { try folder.schema(version: 2) }
        #expect(damaged.code == .invalidSchema)
        #expect(damaged.message.hasPrefix("The snapshot 2.json cannot be read: The schema snapshot is not valid JSON"))
        try Data().write(to: dir.file("01.json"))
        let stray = try #require(throws: MoltError.self) { try folder.recordedVersions() }
        #expect(
            stray.message
                == "The snapshots folder \(dir.url.path) holds '01.json', which is not named after a schema version; snapshot files are named '<version>.json'. Rename or remove it."
        )
    }

    @Test("verify names the edited entity and attribute; only the newest may lack a snapshot")
    func verify() throws {
        let dir = TemporaryDirectory()
        let folder = SnapshotFolder(dir.url)
        try folder.verify([Self.v0])
        let missing = try #require(throws: MoltError.self) { try folder.verify([Self.v0, Self.v1]) }
        #expect(missing.code == .snapshotMissing)
        try folder.record(Self.v0)
        try folder.verify([Self.v0, Self.v1])
        var edited = Self.v0
        edited.entities[0].attributes[0] = Attribute("text", .string, isOptional: true)
        let error = try #require(throws: MoltError.self) { try folder.verify([edited, Self.v1]) }
        #expect(error.code == .schemaChangedWithoutVersionBump)
        #expect((error.entity, error.property) == ("Note", "text"))
        #expect(
            error.message == """
                Version 0 was edited after it shipped; it differs from 0.json:
                - Attribute 'Note.text' has been made optional.
                A shipped version must not change: restore version 0 as recorded, and declare the change as version 1.
                """)
    }

    @Test("lint reports a huge gap and versions beyond the 32-bit bound without enumerating them")
    func hugeVersions() throws {
        let dir = TemporaryDirectory()
        let folder = SnapshotFolder(dir.url)
        try folder.record(Self.v0)
        try folder.record(Self.v1)
        try folder.record(Self.v1.withVersion(Schema.maximumVersion))
        try Self.v1.snapshotJSON().write(to: dir.file("9223372036854775807.json"))
        var huge = String(decoding: try Self.v1.snapshotJSON(), as: UTF8.self)
        huge = huge.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 9223372036854775807")
        try Data(huge.utf8).write(to: dir.file("4294967296.json"))
        let lint = folder.lint()
        #expect(lint.versions == [0, 1, Schema.maximumVersion])
        #expect(
            lint.issues.map(\.message) == [
                "Invalid schema version 9223372036854775807: the version must not be greater than 2147483646 (stores record it as a 32-bit number).",
                "it holds version 1, but its name says 9223372036854775807; rename it 1.json or fix its version.",
                "version 1 is also in 1.json; keep one snapshot per version.",
                "versions 2 to 2147483645 (2147483644 versions) missing between 1.json and 2147483646.json; keep the snapshot of every version you shipped.",
            ])
        #expect(lint.hasUnreadableFile)
    }

    @Test("lint reports a file whose name is its version written another way")
    func misnamedFile() throws {
        let dir = TemporaryDirectory()
        try Self.v0.snapshotJSON().write(to: dir.file("00.json"))
        let lint = SnapshotFolder(dir.url).lint()
        #expect(lint.versions == [0])
        #expect(
            lint.issues == [
                SnapshotFolder.LintIssue(
                    .error, file: "00.json", "the name is not written as Molt writes version 0; rename it 0.json.")
            ])
    }
}
