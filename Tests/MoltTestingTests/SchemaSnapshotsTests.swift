import Foundation
import Testing
@testable import MoltTesting

@Suite("Schema snapshots")
struct SchemaSnapshotsTests {
    @Test("recording writes one N.json per version, in the library's snapshot format")
    func recordWritesSnapshotFiles() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        let written = try snapshots.record(Memo.all)
        #expect(written.map(\.lastPathComponent) == ["0.json", "1.json", "2.json", "3.json"])
        #expect(try snapshots.recordedVersions() == [0, 1, 2, 3])
        #expect(try Data(contentsOf: snapshots.url(version: 3)) == (try Memo.v3.snapshotJSON()))
        #expect(try snapshots.schemas() == Memo.all)
        try snapshots.verify(Memo.all)
    }

    @Test("recording never overwrites a recorded version unless asked")
    func recordKeepsFrozenFiles() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record([Memo.v1])
        let edited = Memo.v0.withVersion(1)
        #expect(try snapshots.record([edited]).isEmpty)
        #expect(try snapshots.schema(version: 1) == Memo.v1)
        #expect(try snapshots.record([edited], overwriting: true).map(\.lastPathComponent) == ["1.json"])
        #expect(try snapshots.schema(version: 1) == edited)
    }

    @Test("an edited frozen version is caught with the entity and the attribute")
    func editedFrozenVersion() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(Memo.all)
        var edited = Memo.v1
        edited.entities[1].attributes[5] = Attribute("count", .string, default: "0")
        let error = try #require(throws: MigrationTestError.self) {
            try snapshots.verify([Memo.v0, edited, Memo.v2, Memo.v3])
        }
        #expect(error.code == .frozenVersionEdited)
        #expect(error.version == 1)
        #expect(error.entity == "UserMemo")
        #expect(error.attribute == "count")
        #expect(
            error.message == """
                Schema version 1 differs from its snapshot 1.json, recorded when it shipped:
                - Attribute 'UserMemo.count' has changed type from 'int' to 'string'.
                A shipped version must not change: restore version 1 as recorded, and declare the change as version 2. If version 1 never shipped, record it again with MOLT_RECORD_SNAPSHOTS=all.
                """)
    }

    @Test("a changed migration hint in a frozen version is caught too")
    func editedOriginalName() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(Memo.all)
        var edited = Memo.v3
        edited.entities[1].attributes[1].originalName = "heading"
        let error = try #require(throws: MigrationTestError.self) {
            try snapshots.verify([Memo.v0, Memo.v1, Memo.v2, edited])
        }
        #expect(error.code == .frozenVersionEdited)
        #expect(
            error.message.hasPrefix(
                """
                Schema version 3 differs from its snapshot 3.json, recorded when it shipped:
                - Attribute 'UserMemo.title' has changed its originalName from 'memoTitle' to 'heading'.
                """))
    }

    @Test("declaration order alone is no edit: the stores are the same")
    func reorderingIsNotAnEdit() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record([Memo.v0])
        var reordered = Memo.v0
        reordered.entities.reverse()
        try snapshots.verify([reordered])
    }

    @Test("a version without a snapshot fails, naming the file and how to record it")
    func missingSnapshot() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record([Memo.v0, Memo.v1, Memo.v2])
        let error = try #require(throws: MigrationTestError.self) { try snapshots.verify(Memo.all) }
        #expect(error.code == .snapshotMissing)
        #expect(error.version == 3)
        #expect(
            error.message
                == "Schema version 3 has no snapshot: \(snapshots.url(version: 3).path) does not exist. Record it by running the tests once with MOLT_RECORD_SNAPSHOTS=1, and commit the file."
        )
        #expect(!FileManager.default.fileExists(atPath: snapshots.url(version: 3).path))
    }

    @Test("a recorded version the code no longer declares fails")
    func removedVersion() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record(Memo.all)
        let error = try #require(throws: MigrationTestError.self) { try snapshots.verify([Memo.v0, Memo.v2, Memo.v3]) }
        #expect(error.code == .versionRemoved)
        #expect(
            error.message
                == "Version 1 is recorded in 1.json but the code no longer declares it; stores of version 1 could not be opened. Restore its schema in the code (keep every shipped version), or delete 1.json if it never shipped."
        )
    }

    @Test("record mode writes the missing files, then fails so that the run is not green")
    func recordModeWritesThenFails() throws {
        let dir = TemporaryDirectory()
        try dir.snapshots().record([Memo.v0])
        let snapshots = dir.snapshots(recordMode: .missing)
        let error = try #require(throws: MigrationTestError.self) { try snapshots.verify(Memo.all) }
        #expect(error.code == .snapshotsRecorded)
        #expect(
            error.message
                == "Recorded 1.json, 2.json, 3.json in \(snapshots.directory.path) because MOLT_RECORD_SNAPSHOTS is set. Check and commit the files, then run the tests again without MOLT_RECORD_SNAPSHOTS to verify them."
        )
        try dir.snapshots().verify(Memo.all)
    }

    @Test("record mode 'missing' still refuses an edited frozen version; 'all' rewrites it")
    func recordModes() throws {
        let dir = TemporaryDirectory()
        try dir.snapshots().record(Memo.all)
        let edited = [Memo.v0, Memo.v1, Memo.v2, Memo.v3Lossy]
        let refused = try #require(throws: MigrationTestError.self) {
            try dir.snapshots(recordMode: .missing).verify(edited)
        }
        #expect(refused.code == .frozenVersionEdited)
        let recorded = try #require(throws: MigrationTestError.self) {
            try dir.snapshots(recordMode: .all).verify(edited)
        }
        #expect(recorded.code == .snapshotsRecorded)
        try dir.snapshots().verify(edited)
    }

    @Test(
        "MOLT_RECORD_SNAPSHOTS chooses the record mode",
        arguments: [
            (nil, SchemaSnapshots.RecordMode.never), ("", .never), ("0", .never), ("1", .missing),
            ("missing", .missing),
            ("true", .missing), ("all", .all), ("ALL", .all),
        ] as [(String?, SchemaSnapshots.RecordMode)])
    func environmentVariable(value: String?, mode: SchemaSnapshots.RecordMode) {
        #expect(SchemaSnapshots.RecordMode.mode(for: value) == mode)
        #expect(SchemaSnapshots.RecordMode.mode(for: value, onCI: "false") == mode)
    }

    @Test("CI never records, whatever MOLT_RECORD_SNAPSHOTS says", arguments: ["true", "1", "yes"])
    func neverOnCI(ci: String) {
        #expect(SchemaSnapshots.RecordMode.mode(for: "1", onCI: ci) == .never)
        #expect(SchemaSnapshots.RecordMode.mode(for: "all", onCI: ci) == .never)
    }

    @Test("several problems are reported together, each in its own error")
    func severalProblems() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record([Memo.v0, Memo.v1, Memo.v2])
        let error = try #require(throws: MigrationTestError.self) {
            try snapshots.verify([Memo.v0, Memo.v1.withVersion(2).withVersion(2), Memo.v3])
        }
        #expect(error.code == .severalFailures)
        #expect(error.failures.map(\.code) == [.frozenVersionEdited, .snapshotMissing, .versionRemoved])
        #expect(
            error.message.hasPrefix(
                "The schemas differ from the snapshots in \(snapshots.directory.path):\nSchema version 2 differs"))
    }

    @Test("a damaged or misnamed snapshot is reported with its file")
    func invalidSnapshot() throws {
        let dir = TemporaryDirectory()
        let snapshots = dir.snapshots()
        try snapshots.record([Memo.v0])
        try Data("{ not json".utf8).write(to: snapshots.url(version: 1))
        let damaged = try #require(throws: MigrationTestError.self) { try snapshots.schema(version: 1) }
        #expect(damaged.code == .invalidSnapshot)
        #expect(damaged.message.hasPrefix("The snapshot 1.json cannot be read: The schema snapshot is not valid JSON"))
        try Memo.v0.snapshotJSON().write(to: snapshots.url(version: 1))
        let misnamed = try #require(throws: MigrationTestError.self) { try snapshots.schema(version: 1) }
        #expect(
            misnamed.message
                == "The snapshot 1.json records version 0, not 1; a file must be named after the version it records. Restore it from version control."
        )
        try Data().write(to: snapshots.directory.appendingPathComponent("latest.json"))
        let stray = try #require(throws: MigrationTestError.self) { try snapshots.recordedVersions() }
        #expect(
            stray.message
                == "The snapshots folder \(snapshots.directory.path) holds 'latest.json', which is not named after a schema version; snapshot files are named '<version>.json'. Rename or remove it."
        )
    }

    @Test("snapshots next to a source file live in its __Schemas__ folder")
    func nextToFile() {
        let snapshots = SchemaSnapshots(nextTo: "/src/Tests/AppTests/SchemaTests.swift", recordMode: .never)
        #expect(snapshots.directory.path == "/src/Tests/AppTests/__Schemas__")
        #expect(snapshots.url(version: 4).path == "/src/Tests/AppTests/__Schemas__/4.json")
    }
}
