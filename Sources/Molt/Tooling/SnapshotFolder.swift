import Foundation

/// A folder of schema snapshots, one file per shipped version named `<version>.json`, in the format of
/// ``Schema/snapshotJSON()``: the one public face of a folder of snapshots, and the one home of its rules, which
/// MoltTesting's `SchemaSnapshots` (the test kit's assertion, with its record modes) and `molt check` call.
///
/// Shipping a version freezes it. Record its snapshot when it ships, commit the folder, and verify the code's
/// schemas against it: an edited shipped version is caught with the entity and the attribute that changed.
///
/// ```swift
/// let folder = SnapshotFolder(URL(fileURLWithPath: "Tests/AppTests/__Schemas__"))
/// try folder.record(AppSchema.v3)          // writes 3.json; never overwrites a different one
/// try folder.verify(AppSchema.all)         // throws naming the edited entity and attribute
/// let shipped = try folder.schemas()       // every recorded version, oldest first
/// ```
///
/// ## Topics
/// ### Naming
/// - ``url(version:)``
/// - ``version(ofFileNamed:)``
/// - ``mappingURL(from:to:)``
/// - ``step(ofMappingFileNamed:)``
/// - ``mappingSteps()``
/// ### Reading
/// - ``recordedVersions()``
/// - ``schema(version:)``
/// - ``schemas()``
/// ### Recording and verifying
/// - ``record(_:)``
/// - ``verify(_:)-(Schema)``
/// - ``verify(_:)-([Schema])``
/// - ``verify(_:)-(P.Type)``
/// - ``verify(_:snapshot:named:)``
public struct SnapshotFolder: Sendable, Hashable {
    /// The folder.
    public let directory: URL

    /// The snapshots in `directory`, which need not exist yet: recording creates it.
    ///
    /// ```swift
    /// let folder = SnapshotFolder(URL(fileURLWithPath: "Schemas"))
    /// ```
    public init(_ directory: URL) {
        self.directory = directory
    }

    // MARK: - Naming

    /// The file of a version: `<directory>/<version>.json`.
    public func url(version: Int) -> URL { directory.appendingPathComponent(Self.fileName(version: version)) }

    /// `<version>.json`.
    package static func fileName(version: Int) -> String { "\(version).json" }

    /// The version a snapshot file's name stands for: `N.json` with `N` written as Molt writes it (no sign, no
    /// leading zero) and within ``Schema/maximumVersion``; nil for any other name.
    ///
    /// ```swift
    /// SnapshotFolder.version(ofFileNamed: "12.json")    // 12
    /// SnapshotFolder.version(ofFileNamed: "012.json")   // nil
    /// ```
    public static func version(ofFileNamed name: String) -> Int? {
        guard name.hasSuffix(".json"), let number = Int(name.dropLast(5)), number >= 0, number <= Schema.maximumVersion,
            name == fileName(version: number)
        else { return nil }
        return number
    }

    /// The names of the folder's snapshot files (`.json`, but not the mapping files `….mapping.json`), sorted;
    /// none when the folder does not exist.
    package func jsonFileNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasSuffix(Self.mappingSuffix) }.sorted()
    }

    // MARK: - Mapping files

    /// How a step's mapping file ends: `3-to-4.mapping.json`.
    static let mappingSuffix = ".mapping.json"

    /// The mapping file of the step from `from` to `to`: `<directory>/<from>-to-<to>.mapping.json`, the mappings
    /// (JSON, as `molt migrate --mapping` reads them) that a walk of the folder runs as the stage of that step.
    ///
    /// ```swift
    /// folder.mappingURL(from: 3, to: 4)   // …/3-to-4.mapping.json
    /// ```
    public func mappingURL(from: Int, to: Int) -> URL {
        directory.appendingPathComponent("\(from)-to-\(to)\(Self.mappingSuffix)")
    }

    /// The step a mapping file's name stands for: `<from>-to-<to>.mapping.json`, both versions written as Molt
    /// writes them; nil for any other name.
    ///
    /// ```swift
    /// SnapshotFolder.step(ofMappingFileNamed: "3-to-4.mapping.json")   // (3, 4)
    /// ```
    public static func step(ofMappingFileNamed name: String) -> (from: Int, to: Int)? {
        guard name.hasSuffix(mappingSuffix) else { return nil }
        let parts = name.dropLast(mappingSuffix.count).components(separatedBy: "-to-")
        guard parts.count == 2, let from = version(ofFileNamed: parts[0] + ".json"),
            let to = version(ofFileNamed: parts[1] + ".json")
        else { return nil }
        return (from, to)
    }

    /// The folder's mapping files by step, oldest first; none when the folder does not exist.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/invalidSchema`` naming a `….mapping.json` file whose name
    ///   is not `<from>-to-<to>.mapping.json` with `from` before `to`.
    public func mappingSteps() throws -> [(from: Int, to: Int)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var steps: [(from: Int, to: Int)] = []
        for name in names.filter({ $0.hasSuffix(Self.mappingSuffix) }).sorted() {
            guard let step = Self.step(ofMappingFileNamed: name), step.from < step.to else {
                throw MoltError(
                    .invalidSchema,
                    "The snapshots folder \(directory.path) holds '\(name)', which is not named after a step; a mapping file is named '<from>-to-<to>.mapping.json' with <from> older than <to>, as '3-to-4.mapping.json'. Rename or remove it."
                )
            }
            steps.append(step)
        }
        return steps.sorted { ($0.from, $0.to) < ($1.from, $1.to) }
    }

    // MARK: - Reading

    /// The versions that have a snapshot file, oldest first; none when the folder does not exist.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/invalidSchema`` when a `.json` file is not named
    ///   after a version.
    public func recordedVersions() throws -> [Int] {
        var versions: [Int] = []
        for name in jsonFileNames() {
            guard let version = Self.version(ofFileNamed: name) else {
                throw MoltError(
                    .invalidSchema,
                    "The snapshots folder \(directory.path) holds '\(name)', which is not named after a schema version; snapshot files are named '<version>.json'. Rename or remove it."
                )
            }
            versions.append(version)
        }
        return versions.sorted()
    }

    /// Whether the version has a snapshot file.
    public func contains(version: Int) -> Bool { FileManager.default.fileExists(atPath: url(version: version).path) }

    /// The recorded schema of a version.
    ///
    /// ```swift
    /// let shipped = try folder.schema(version: 1)
    /// ```
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/snapshotMissing`` when there is no file, or
    ///   ``MoltError/Code/invalidSchema`` when it cannot be read or records another version.
    public func schema(version: Int) throws -> Schema {
        let url = url(version: version)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw MoltError(.snapshotMissing, "Version \(version) has no snapshot: there is no file \(url.path).")
        }
        return try Self.schema(snapshot: data, named: url.lastPathComponent, version: version)
    }

    /// Reads snapshot JSON that must record `version`.
    static func schema(snapshot data: Data, named name: String, version: Int) throws -> Schema {
        let schema: Schema
        do {
            schema = try Schema(snapshotJSON: data)
        } catch let error as MoltError {
            throw MoltError(
                .invalidSchema,
                "The snapshot \(name) cannot be read: \(error.message) Restore it from version control.",
                entity: error.entity, property: error.property, cause: error)
        }
        guard schema.version == version else {
            throw MoltError(
                .invalidSchema,
                "The snapshot \(name) records version \(schema.version), not \(version); a file must be named after the version it records. Restore it from version control."
            )
        }
        return schema
    }

    /// Every recorded schema, oldest first.
    ///
    /// - Throws: ``MoltError`` as ``recordedVersions()`` and ``schema(version:)``.
    public func schemas() throws -> [Schema] {
        try recordedVersions().map { try schema(version: $0) }
    }

    // MARK: - Recording

    /// Records a version's snapshot as `<version>.json`, creating the folder; a version already recorded the
    /// same is left alone, and one recorded differently is never overwritten.
    ///
    /// ```swift
    /// try folder.record(AppSchema.v4)   // when version 4 ships
    /// ```
    ///
    /// - Returns: Whether the file was written (false when it already held this schema).
    /// - Throws: ``MoltError`` with code ``MoltError/Code/schemaChangedWithoutVersionBump`` naming the entity
    ///   and attribute when a different snapshot of the version is recorded; ``MoltError/Code/invalidSchema``
    ///   when the schema does not validate; ``MoltError/Code/ioError`` when the file cannot be written.
    @discardableResult
    public func record(_ schema: Schema) throws -> Bool {
        if contains(version: schema.version) {
            try verify(schema)
            return false
        }
        try write(schema)
        return true
    }

    /// Writes a version's snapshot whatever the folder holds: only for a version that never shipped.
    package func write(_ schema: Schema) throws {
        try schema.validate()
        let file = url(version: schema.version)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try schema.snapshotJSON().write(to: file, options: .atomic)
        } catch let error as MoltError {
            throw error
        } catch {
            throw MoltError(
                .ioError, "Could not write the snapshot \(file.path): \(error.localizedDescription)", cause: error)
        }
    }

    // MARK: - Verifying

    /// Verifies the code's schemas, oldest first: every recorded one must be unchanged, and every one but the
    /// newest must be recorded (a newer version exists, so it has shipped). The newest may lack a snapshot while
    /// it is being developed.
    ///
    /// ```swift
    /// try SnapshotFolder(folder).verify([v1, v2, v3])
    /// ```
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/schemaChangedWithoutVersionBump`` naming the version,
    ///   the entity and the attribute that changed, ``MoltError/Code/snapshotMissing`` for a shipped version
    ///   without a snapshot, or ``MoltError/Code/invalidSchema`` for a file that cannot be read.
    public func verify(_ schemas: [Schema]) throws {
        for (index, schema) in schemas.enumerated() {
            guard contains(version: schema.version) else {
                if index == schemas.count - 1 { continue }
                throw MoltError(
                    .snapshotMissing,
                    "Version \(schema.version) has no snapshot \(Self.fileName(version: schema.version)) in \(directory.path), although a newer version exists, so it has shipped. Record it from the code of the release that shipped it: `try SnapshotFolder(folder).record(schema)`."
                )
            }
            try verify(schema)
        }
    }

    /// Verifies one version against its snapshot.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/schemaChangedWithoutVersionBump`` listing every
    ///   difference, its first entity and attribute in ``MoltError/entity`` and ``MoltError/property``;
    ///   ``MoltError/Code/snapshotMissing`` when the version is not recorded.
    public func verify(_ schema: Schema) throws {
        try Self.verify(
            schema, against: try self.schema(version: schema.version), named: Self.fileName(version: schema.version))
    }

    /// Verifies one version against its snapshot's JSON, read from wherever the app keeps it (a bundle's
    /// resource, for a check at launch in debug builds).
    ///
    /// ```swift
    /// try SnapshotFolder.verify(V1.schema, snapshot: Data(contentsOf: url), named: "1.json")
    /// ```
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/schemaChangedWithoutVersionBump`` listing every
    ///   difference, its first entity and attribute in ``MoltError/entity`` and ``MoltError/property``; or
    ///   ``MoltError/Code/invalidSchema`` when the snapshot cannot be read or records another version.
    public static func verify(_ schema: Schema, snapshot: Data, named name: String = "the snapshot") throws {
        try verify(
            schema, against: try Self.schema(snapshot: snapshot, named: name, version: schema.version), named: name)
    }

    /// Verifies a schema against its recorded form (read from a file named `name`).
    static func verify(_ schema: Schema, against recorded: Schema, named name: String) throws {
        let lines = differences(recorded: recorded, current: schema)
        guard let first = lines.first else { return }
        let version = schema.version
        throw MoltError(
            .schemaChangedWithoutVersionBump,
            "Version \(version) was edited after it shipped; it differs from \(name):\n\(lines.map { "- " + $0.text }.joined(separator: "\n"))\nA shipped version must not change: restore version \(version) as recorded, and declare the change as version \(version + 1).",
            entity: first.entity, property: first.property)
    }
}
