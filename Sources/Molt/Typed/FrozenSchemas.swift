import Foundation

/// Shipping a version freezes it: checks that each version's schema still matches the snapshot recorded when
/// it shipped.
///
/// Editing a shipped version in place is the trap behind SwiftData's "unknown model version" crash and the
/// stores that silently never migrate: the store records the old shape under the same version number. Record
/// each version's ``Schema/snapshotJSON()`` as `<version>.json` when it ships, commit the folder, and verify it
/// in a test, in CI (`molt` can call the same function) or at launch in debug builds.
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
        directory.appendingPathComponent("\(version).json")
    }

    /// Verifies every version of a migration plan against the snapshots in `directory`.
    ///
    /// Every version but the newest must have a snapshot: an older version has shipped. The newest is checked
    /// when it has one, and may lack one while it is being developed.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/schemaChangedWithoutVersionBump`` naming the version,
    ///   the entity and the attribute that changed, or ``MoltError/Code/storeNotFound`` for a missing snapshot.
    public static func verify<P: SchemaMigrationPlan>(_ plan: P.Type, against directory: URL) throws {
        try verify(P.schemas.map { $0.schema }, against: directory)
    }

    /// Verifies schemas, oldest first, against the snapshots in `directory`; see `verify(_:against:)` with a plan.
    public static func verify(_ schemas: [Schema], against directory: URL) throws {
        for (index, schema) in schemas.enumerated() {
            let file = url(version: schema.version, in: directory)
            guard let data = FileManager.default.contents(atPath: file.path) else {
                if index == schemas.count - 1 { continue }
                throw MoltError(
                    .storeNotFound,
                    "Version \(schema.version) has no snapshot \(file.lastPathComponent) in \(directory.path), although a newer version exists, so it has shipped. Record it from the code of the release that shipped it: `try FrozenSchemas.record(schema, in: folder)`.")
            }
            try verify(schema, snapshot: data, named: file.lastPathComponent)
        }
    }

    /// Verifies one schema against its snapshot's JSON.
    ///
    /// ```swift
    /// try FrozenSchemas.verify(V1.schema, snapshot: Data(contentsOf: url), named: "1.json")
    /// ```
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/schemaChangedWithoutVersionBump`` listing every
    ///   difference, its first entity and attribute in ``MoltError/entity`` and ``MoltError/property``; or
    ///   ``MoltError/Code/invalidSchema`` when the snapshot cannot be read.
    public static func verify(_ schema: Schema, snapshot: Data, named name: String = "the snapshot") throws {
        let recorded = try Schema(snapshotJSON: snapshot)
        guard recorded.version == schema.version else {
            throw MoltError(
                .invalidSchema, "The snapshot \(name) records version \(recorded.version), not version \(schema.version); name snapshot files after their version.")
        }
        let lines = differences(recorded: recorded, current: schema)
        guard let first = lines.first else { return }
        let version = schema.version
        throw MoltError(
            .schemaChangedWithoutVersionBump,
            "Version \(version) was edited after it shipped; it differs from \(name):\n\(lines.map { "- " + $0.text }.joined(separator: "\n"))\nA shipped version must not change: restore version \(version) as recorded, and declare the change as version \(version + 1).",
            entity: first.entity, property: first.property)
    }

    /// Records a version's snapshot as `<version>.json` in `directory`, creating the folder.
    ///
    /// - Returns: The file.
    /// - Throws: ``MoltError`` with code ``MoltError/Code/schemaChangedWithoutVersionBump`` when a different
    ///   snapshot of the version is already recorded: a shipped version is never re-recorded.
    @discardableResult
    public static func record(_ schema: Schema, in directory: URL) throws -> URL {
        let file = url(version: schema.version, in: directory)
        if let existing = FileManager.default.contents(atPath: file.path) {
            try verify(schema, snapshot: existing, named: file.lastPathComponent)
            return file
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try schema.snapshotJSON().write(to: file, options: .atomic)
        } catch let error as MoltError {
            throw error
        } catch {
            throw MoltError(.ioError, "Could not write the snapshot \(file.path): \(error.localizedDescription)", cause: error)
        }
        return file
    }

    /// One difference between a recorded version and the code's: its sentence, and what it names.
    package struct Line: Equatable, Sendable {
        package var text: String
        package var entity: String?
        package var property: String?
    }

    /// The differences between a recorded version and the code's: structural changes as ``SchemaDiff`` names
    /// them, then changed `originalName` hints, which alter how older stores migrate.
    package static func differences(recorded: Schema, current: Schema) -> [Line] {
        guard recorded != current else { return [] }
        var lines = SchemaDiff(from: recorded, to: current).changes.map { Line(text: $0.description, entity: $0.entity, property: $0.property) }
        func hint(_ name: String?) -> String { name.map { "'\($0)'" } ?? "none" }
        for entity in current.entities {
            guard let old = recorded.entity(named: entity.name) else { continue }
            if old.originalName != entity.originalName {
                lines.append(Line(text: "Entity '\(entity.name)' has changed its originalName from \(hint(old.originalName)) to \(hint(entity.originalName)).", entity: entity.name))
            }
            for attribute in entity.attributes {
                guard let before = old.attribute(named: attribute.name), before.originalName != attribute.originalName else { continue }
                lines.append(Line(
                    text: "Attribute '\(entity.name).\(attribute.name)' has changed its originalName from \(hint(before.originalName)) to \(hint(attribute.originalName)).",
                    entity: entity.name, property: attribute.name))
            }
            for relationship in entity.relationships {
                guard let before = old.relationship(named: relationship.name), before.originalName != relationship.originalName else { continue }
                lines.append(Line(
                    text: "Relationship '\(entity.name).\(relationship.name)' has changed its originalName from \(hint(before.originalName)) to \(hint(relationship.originalName)).",
                    entity: entity.name, property: relationship.name))
            }
        }
        // Only the declaration order differs: stores are alike.
        if lines.isEmpty, recorded.contentHash == current.contentHash { return [] }
        if lines.isEmpty { lines.append(Line(text: "The schemas differ in a way Molt cannot name; compare the snapshot with `schema.snapshotJSON()`.")) }
        return lines
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
