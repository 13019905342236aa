import Foundation

extension FrozenSchemas {
    /// Verifies every version of a migration plan against the snapshots in `directory`.
    ///
    /// Every version but the newest must have a snapshot: an older version has shipped. The newest is checked
    /// when it has one, and may lack one while it is being developed.
    ///
    /// ```swift
    /// try FrozenSchemas.verify(NotesPlan.self, against: snapshotsFolder)
    /// ```
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/schemaChangedWithoutVersionBump`` naming the version,
    ///   the entity and the attribute that changed, or ``MoltError/Code/snapshotMissing`` for a missing snapshot.
    public static func verify<P: SchemaMigrationPlan>(_ plan: P.Type, against directory: URL) throws {
        try verify(P.schemas.map { $0.schema }, against: directory)
    }
}

extension VersionedSchema {
    /// Verifies this version against the snapshot recorded when it shipped.
    ///
    /// ```swift
    /// try V1.verifyFrozen(snapshot: Data(contentsOf: snapshots.appendingPathComponent("1.json")))
    /// ```
    ///
    /// - Throws: ``MoltError`` as ``FrozenSchemas/verify(_:snapshot:named:)``.
    public static func verifyFrozen(snapshot: Data) throws {
        try FrozenSchemas.verify(schema, snapshot: snapshot, named: "\(version).json")
    }
}
