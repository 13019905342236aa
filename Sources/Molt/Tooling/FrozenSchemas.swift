import Foundation

/// Shipping a version freezes it: checks that each version's schema still matches the snapshot recorded when
/// it shipped.
///
/// Editing a shipped version in place is the trap behind SwiftData's "unknown model version" crash and the
/// stores that silently never migrate: the store records the old shape under the same version number. Record
/// each version's ``Schema/snapshotJSON()`` as `<version>.json` when it ships, commit the folder, and verify it
/// in a test, in CI (`molt check` lints the same folder) or at launch in debug builds. The folder's rules live
/// in ``SnapshotFolder``; these are its entry points by folder URL.
///
/// ```swift
/// // When version 2 ships:
/// try FrozenSchemas.record(V2.schema, in: snapshotsFolder)
/// // In a test, forever after:
/// try FrozenSchemas.verify(NotesPlan.self, against: snapshotsFolder)
/// ```
public enum FrozenSchemas {
    /// The snapshot file of a version in a folder: `<version>.json`.
    public static func url(version: Int, in directory: URL) -> URL {
        SnapshotFolder(directory).url(version: version)
    }

    /// Verifies schemas, oldest first, against the snapshots in `directory`: every version but the newest
    /// must have a snapshot (an older version has shipped); the newest is checked when it has one.
    ///
    /// ```swift
    /// try FrozenSchemas.verify([v1, v2, v3], against: snapshotsFolder)
    /// ```
    ///
    /// - Throws: ``MoltError`` as ``SnapshotFolder/verify(_:)-([Schema])``:
    ///   ``MoltError/Code/schemaChangedWithoutVersionBump`` naming the version, the entity and the attribute that
    ///   changed, or ``MoltError/Code/snapshotMissing`` for a shipped version without a snapshot.
    public static func verify(_ schemas: [Schema], against directory: URL) throws {
        try SnapshotFolder(directory).verify(schemas)
    }

    /// Verifies one schema against its snapshot's JSON.
    ///
    /// ```swift
    /// try FrozenSchemas.verify(V1.schema, snapshot: Data(contentsOf: url), named: "1.json")
    /// ```
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/schemaChangedWithoutVersionBump`` listing every
    ///   difference, its first entity and attribute in ``MoltError/entity`` and ``MoltError/property``; or
    ///   ``MoltError/Code/invalidSchema`` when the snapshot cannot be read or records another version.
    public static func verify(_ schema: Schema, snapshot: Data, named name: String = "the snapshot") throws {
        let recorded = try SnapshotFolder.schema(snapshot: snapshot, named: name, version: schema.version)
        try SnapshotFolder.verify(schema, against: recorded, named: name)
    }

    /// Records a version's snapshot as `<version>.json` in `directory`, creating the folder.
    ///
    /// ```swift
    /// try FrozenSchemas.record(V2.schema, in: snapshotsFolder)
    /// ```
    ///
    /// - Returns: The file.
    /// - Throws: ``MoltError`` as ``SnapshotFolder/record(_:)``: ``MoltError/Code/schemaChangedWithoutVersionBump``
    ///   when a different snapshot of the version is already recorded (a shipped version is never re-recorded).
    @discardableResult
    public static func record(_ schema: Schema, in directory: URL) throws -> URL {
        let folder = SnapshotFolder(directory)
        try folder.record(schema)
        return folder.url(version: schema.version)
    }
}
