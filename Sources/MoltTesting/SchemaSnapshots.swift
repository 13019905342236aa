import Foundation

/// A folder of recorded schema snapshots, one file per shipped version (`1.json`, `2.json`, …), in the
/// format of `Schema/snapshotJSON()`: Room's `exportSchema`, for Molt. The test kit's assertion over the core's
/// `SnapshotFolder` (``folder``), which holds every rule of the folder.
///
/// Commit the folder. Once a version has shipped, its file is frozen: ``verify(_:)`` fails with the exact
/// entity and attribute when the code's schema of a recorded version no longer matches its file, and when a
/// version of the code has no file yet. Files are written only when asked: by ``record(_:overwriting:)``, or by
/// ``verify(_:)`` in a ``RecordMode`` other than ``RecordMode/never`` (which the `MOLT_RECORD_SNAPSHOTS`
/// environment variable turns on), and then ``verify(_:)`` still fails, so a run that records is never green.
///
/// ```swift
/// // Tests/AppTests/SchemaTests.swift; the snapshots live in Tests/AppTests/__Schemas__/.
/// @Test func shippedSchemasAreFrozen() throws {
///     try SchemaSnapshots(nextTo: #filePath).verify([AppSchema.v1, AppSchema.v2, AppSchema.v3])
/// }
/// ```
///
/// Record a new version by running the tests once with `MOLT_RECORD_SNAPSHOTS=1` (writes the missing files)
/// or `MOLT_RECORD_SNAPSHOTS=all` (rewrites every file; only for versions that never shipped). On CI (`CI` set)
/// the variable is ignored: a build that checks snapshots never writes them.
///
/// ## Topics
/// ### Creating
/// - ``init(directory:recordMode:)``
/// - ``init(nextTo:folder:recordMode:)``
/// - ``RecordMode``
/// - ``folder``
/// ### Verifying and recording
/// - ``verify(_:)``
/// - ``record(_:overwriting:)``
/// ### Reading
/// - ``recordedVersions()``
/// - ``schema(version:)``
/// - ``schemas()``
/// - ``url(version:)``
public struct SchemaSnapshots: Sendable {
    /// When ``SchemaSnapshots/verify(_:)`` may write snapshot files.
    public enum RecordMode: Sendable, Hashable {
        /// Never write; a missing or different file is a failure. The default, and what CI must use.
        case never
        /// Write the files of versions that have none; recorded files are still verified.
        case missing
        /// Write every file, overwriting recorded ones. Only for versions that never shipped.
        case all

        /// The environment variable that chooses the mode: `1` or `missing` for ``missing``, `all` for ``all``.
        public static let environmentVariable = "MOLT_RECORD_SNAPSHOTS"

        /// The mode `MOLT_RECORD_SNAPSHOTS` asks for, ``never`` when it is unset or has another value, and
        /// always ``never`` on CI (when the `CI` environment variable is set, as CI services do): snapshots are
        /// recorded on a developer's machine and committed, never made up by the build that checks them.
        ///
        /// ```swift
        /// // MOLT_RECORD_SNAPSHOTS=1 swift test
        /// let snapshots = SchemaSnapshots(directory: folder, recordMode: .environment)
        /// ```
        public static var environment: RecordMode {
            let environment = ProcessInfo.processInfo.environment
            return mode(for: environment[environmentVariable], onCI: environment["CI"])
        }

        /// The mode for a value of `MOLT_RECORD_SNAPSHOTS`, and of `CI`.
        static func mode(for value: String?, onCI ci: String? = nil) -> RecordMode {
            if let ci, !ci.isEmpty, !["0", "false", "no"].contains(ci.lowercased()) { return .never }
            switch value?.lowercased() {
            case "1", "true", "yes", "missing": return .missing
            case "all": return .all
            default: return .never
            }
        }
    }

    /// The folder that holds the snapshot files.
    public let directory: URL
    /// When ``verify(_:)`` may write files.
    public var recordMode: RecordMode

    /// Snapshots in `directory`.
    ///
    /// ```swift
    /// let snapshots = SchemaSnapshots(directory: URL(fileURLWithPath: "Tests/AppTests/__Schemas__"))
    /// ```
    ///
    /// - Parameters:
    ///   - directory: The folder of `N.json` files; it is created when a file is first recorded.
    ///   - recordMode: When ``verify(_:)`` may write. Defaults to what `MOLT_RECORD_SNAPSHOTS` says.
    public init(directory: URL, recordMode: RecordMode = .environment) {
        self.directory = directory
        self.recordMode = recordMode
    }

    /// Snapshots in a folder next to a source file, usually the test file itself.
    ///
    /// ```swift
    /// let snapshots = SchemaSnapshots(nextTo: #filePath)   // <test folder>/__Schemas__/
    /// ```
    ///
    /// - Parameters:
    ///   - filePath: A source file's path; pass `#filePath`.
    ///   - folder: The folder's name beside that file. Defaults to `__Schemas__`.
    ///   - recordMode: When ``verify(_:)`` may write. Defaults to what `MOLT_RECORD_SNAPSHOTS` says.
    public init(nextTo filePath: String, folder: String = "__Schemas__", recordMode: RecordMode = .environment) {
        let parent = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        self.init(directory: parent.appendingPathComponent(folder, isDirectory: true), recordMode: recordMode)
    }

    /// The folder, as the core reads and writes it: every naming and reading rule lives there.
    ///
    /// ```swift
    /// let report = SchemaSnapshots(nextTo: #filePath).folder.schemas()
    /// ```
    public var folder: SnapshotFolder { SnapshotFolder(directory) }

    /// The file of a version: `<directory>/<version>.json`.
    public func url(version: Int) -> URL { folder.url(version: version) }

    /// The versions that have a snapshot file, oldest first.
    ///
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/invalidSnapshot`` when a `.json`
    ///   file is not named after a version.
    public func recordedVersions() throws -> [Int] {
        try reporting { try folder.recordedVersions() }
    }

    /// The recorded schema of a version.
    ///
    /// ```swift
    /// let shipped = try snapshots.schema(version: 1)
    /// ```
    ///
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/versionNotRecorded`` when there is no
    ///   file, ``MigrationTestError/Code/invalidSnapshot`` when it cannot be read or records another version.
    public func schema(version: Int) throws -> Schema {
        try reporting(version: version) { try folder.schema(version: version) }
    }

    /// Every recorded schema, oldest first.
    ///
    /// - Throws: ``MigrationTestError`` when a file cannot be read.
    public func schemas() throws -> [Schema] {
        try recordedVersions().map { try schema(version: $0) }
    }

    /// What the folder throws, as the kit reports it.
    private func reporting<T>(version: Int? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MoltError where error.code == .snapshotMissing {
            throw MigrationTestError(
                .versionNotRecorded, "\(error.message) Record it with \(RecordMode.environmentVariable)=1.",
                version: version,
                underlying: error)
        } catch let error as MoltError {
            throw MigrationTestError(
                .invalidSnapshot, error.message, version: version, entity: error.entity, attribute: error.property,
                underlying: (error.cause as? MoltError) ?? error)
        }
    }

    /// Writes the snapshot files of `schemas`: an explicit request, whatever ``recordMode`` says.
    ///
    /// ```swift
    /// try snapshots.record([AppSchema.v4])                      // writes 4.json if it is missing
    /// try snapshots.record(AppSchema.all, overwriting: true)    // rewrites them all
    /// ```
    ///
    /// - Parameters:
    ///   - schemas: The schemas to record.
    ///   - overwriting: Whether to rewrite files that exist. Defaults to `false`: recorded versions are frozen.
    /// - Returns: The files written.
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/invalidSnapshot`` when a file cannot
    ///   be written, or a schema does not validate.
    @discardableResult
    public func record(_ schemas: [Schema], overwriting: Bool = false) throws -> [URL] {
        var written: [URL] = []
        for schema in schemas {
            if !overwriting && folder.contains(version: schema.version) { continue }
            do {
                try folder.write(schema)
            } catch let error as MoltError {
                throw MigrationTestError(
                    .invalidSnapshot, "Version \(schema.version) cannot be recorded: \(error.message)",
                    version: schema.version, entity: error.entity, attribute: error.property, underlying: error)
            }
            written.append(url(version: schema.version))
        }
        return written
    }

    /// Checks the code's schemas against the recorded snapshots.
    ///
    /// It fails when a recorded version differs from the code's (each difference named, entity and attribute),
    /// when a version of the code has no file, and when a recorded version is missing from the code. In record
    /// mode it first writes the files the mode allows, then fails listing them, so that the run is not green
    /// until the files are committed and the tests run again without `MOLT_RECORD_SNAPSHOTS`.
    ///
    /// ```swift
    /// try SchemaSnapshots(nextTo: #filePath).verify([v1, v2, v3])
    /// // Schema version 2 differs from its snapshot 2.json:
    /// // - Attribute 'UserMemo.count' has changed type from 'int' to 'string'.
    /// // A shipped version must not change: restore version 2 as recorded, and declare the change as version 3. …
    /// ```
    ///
    /// - Parameter schemas: Every schema version the code declares.
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/frozenVersionEdited``,
    ///   ``MigrationTestError/Code/snapshotMissing``, ``MigrationTestError/Code/versionRemoved``,
    ///   ``MigrationTestError/Code/snapshotsRecorded``, or ``MigrationTestError/Code/severalFailures`` for more
    ///   than one.
    public func verify(_ schemas: [Schema]) throws {
        var failures: [MigrationTestError] = []
        var toRecord: [Schema] = []
        let recorded = try recordedVersions()
        for schema in schemas {
            guard recorded.contains(schema.version) else {
                if recordMode == .never {
                    failures.append(
                        MigrationTestError(
                            .snapshotMissing,
                            "Schema version \(schema.version) has no snapshot: \(url(version: schema.version).path) does not exist. Record it by running the tests once with \(RecordMode.environmentVariable)=1, and commit the file.",
                            version: schema.version))
                } else {
                    toRecord.append(schema)
                }
                continue
            }
            let frozen = try self.schema(version: schema.version)
            guard let difference = SnapshotComparison(recorded: frozen, code: schema) else { continue }
            if recordMode == .all {
                toRecord.append(schema)
            } else {
                failures.append(difference.error(file: url(version: schema.version).lastPathComponent))
            }
        }
        let declared = Set(schemas.map(\.version))
        for version in recorded where !declared.contains(version) {
            failures.append(
                MigrationTestError(
                    .versionRemoved,
                    "Version \(version) is recorded in \(version).json but the code no longer declares it; stores of version \(version) could not be opened. Restore its schema in the code (keep every shipped version), or delete \(version).json if it never shipped.",
                    version: version))
        }
        if !toRecord.isEmpty {
            let written = try record(toRecord, overwriting: true)
            failures.append(
                MigrationTestError(
                    .snapshotsRecorded,
                    "Recorded \(written.map(\.lastPathComponent).joined(separator: ", ")) in \(directory.path) because \(RecordMode.environmentVariable) is set. Check and commit the files, then run the tests again without \(RecordMode.environmentVariable) to verify them.",
                    version: toRecord.first?.version))
        }
        if let error = MigrationTestError.combining(
            failures, heading: "The schemas differ from the snapshots in \(directory.path):")
        {
            throw error
        }
    }
}
