import Foundation

/// The entry points of ``SnapshotFolder`` by folder URL, from before the folder had one public face.
@available(*, deprecated, message: "Use SnapshotFolder: SnapshotFolder(directory).verify(_:) and .record(_:).")
public enum FrozenSchemas {
    /// The snapshot file of a version in a folder: `<version>.json`.
    @available(*, deprecated, message: "Use SnapshotFolder(directory).url(version:).")
    public static func url(version: Int, in directory: URL) -> URL {
        SnapshotFolder(directory).url(version: version)
    }

    /// Verifies schemas, oldest first, against the snapshots in `directory`.
    @available(*, deprecated, message: "Use SnapshotFolder(directory).verify(schemas).")
    public static func verify(_ schemas: [Schema], against directory: URL) throws {
        try SnapshotFolder(directory).verify(schemas)
    }

    /// Verifies one schema against its snapshot's JSON.
    @available(*, deprecated, renamed: "SnapshotFolder.verify(_:snapshot:named:)")
    public static func verify(_ schema: Schema, snapshot: Data, named name: String = "the snapshot") throws {
        try SnapshotFolder.verify(schema, snapshot: snapshot, named: name)
    }

    /// Records a version's snapshot as `<version>.json` in `directory`, creating the folder.
    @available(*, deprecated, message: "Use SnapshotFolder(directory).record(schema).")
    @discardableResult
    public static func record(_ schema: Schema, in directory: URL) throws -> URL {
        let folder = SnapshotFolder(directory)
        try folder.record(schema)
        return folder.url(version: schema.version)
    }
}
