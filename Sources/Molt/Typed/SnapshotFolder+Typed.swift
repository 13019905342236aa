import Foundation

extension SnapshotFolder {
    /// Verifies every version of a migration plan against the snapshots in the folder.
    ///
    /// Every version but the newest must have a snapshot: an older version has shipped. The newest is checked
    /// when it has one, and may lack one while it is being developed.
    ///
    /// ```swift
    /// try SnapshotFolder(snapshotsFolder).verify(NotesPlan.self)
    /// ```
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/schemaChangedWithoutVersionBump`` naming the version,
    ///   the entity and the attribute that changed, or ``MoltError/Code/snapshotMissing`` for a missing snapshot.
    public func verify<P: SchemaMigrationPlan>(_ plan: P.Type) throws {
        try verify(P.schemas.map { $0.schema })
    }
}

@available(*, deprecated)
extension FrozenSchemas {
    /// Verifies every version of a migration plan against the snapshots in `directory`.
    @available(*, deprecated, message: "Use SnapshotFolder(directory).verify(plan).")
    public static func verify<P: SchemaMigrationPlan>(_ plan: P.Type, against directory: URL) throws {
        try SnapshotFolder(directory).verify(plan)
    }
}

extension VersionedSchema {
    /// Verifies this version against the snapshot recorded when it shipped.
    @available(*, deprecated, message: "Use SnapshotFolder.verify(V1.schema, snapshot: data, named: \"1.json\").")
    public static func verifyFrozen(snapshot: Data) throws {
        try SnapshotFolder.verify(schema, snapshot: snapshot, named: "\(version).json")
    }
}
