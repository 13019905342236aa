import ArgumentParser
import Foundation
import Molt

/// `molt info STORE [--json]`: a store's version, schema hash, entities with their counts and attributes, and
/// migration history, read without migrating or writing anything.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract:
            "Show a store's version, schema hash, entities (with object counts on request), and migration history.",
        discussion: """
            The store is opened read-only and read in one transaction; nothing is written, not even the recovery of \
            a journal left by a process that died (that is reported, with the command that recovers it). Objects \
            are counted only with --count, which reads every table: each entity's own objects, and for an entity \
            with sub-entities also its objects with theirs (what `count` of the entity returns), as \
            `Car: 115 objects of its own, 125 with its sub-entities` (in JSON `count` and \
            `countWithSubEntities`). With --json, prints an object with at least `version` and `entities`.
            """)

    @OptionGroup var storeArgument: StoreArgument

    @Flag(
        name: .long,
        help:
            "Count each entity's objects (reads every table): its own, and for an entity with sub-entities also with theirs."
    )
    var count = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        let location = try Files.existingStoreLocation(storeArgument.store)
        let info = try Files.storeInfo(location, countingObjects: count)
        let report = InfoReport(info, counted: count)
        if output.json {
            try Terminal.json(report)
        } else {
            report.print()
        }
    }
}

/// What `molt info` shows, in the shape of its JSON.
struct InfoReport: Encodable {
    struct AttributeInfo: Encodable {
        var name: String
        var type: String
        var optional: Bool
        var `default`: String?
        var primaryKey: Bool
    }

    struct RelationshipInfo: Encodable {
        var name: String
        var destination: String
        var toMany: Bool
        var ordered: Bool
        var inverse: String?
        var deleteRule: String
        /// True for a required to-one relationship; absent otherwise, so the output of other stores is unchanged.
        var required: Bool?
        /// The minimum count of a to-many relationship that has one; absent otherwise.
        var minimumCount: Int?
    }

    struct EntityInfo: Encodable {
        var name: String
        /// The entity's own objects (not its sub-entities'), with --count.
        var count: Int?
        /// The entity's objects with its sub-entities', as `Objects.count(_:)` counts them: with --count, for an
        /// entity that has sub-entities; absent otherwise.
        var countWithSubEntities: Int?
        var attributes: [AttributeInfo]
        var relationships: [RelationshipInfo]
        var indexes: [String]
    }

    struct HistoryEntry: Encodable {
        var fromVersion: Int
        var toVersion: Int
        var startedAt: String
        var duration: Double
        var objectsTouched: Int
        var steps: [String]
        var stepRecords: [MigrationStepRecord]
    }

    var path: String
    var version: Int
    var formatVersion: Int
    var schemaHash: String
    var entities: [EntityInfo]
    var history: [HistoryEntry]
    /// Where the store came from, when it was adopted from another engine's store.
    var adoptedFrom: AdoptionRecord?

    private let schema: Schema

    enum CodingKeys: String, CodingKey {
        case path, version, formatVersion, schemaHash, entities, history, adoptedFrom
    }

    init(_ info: StoreInfo, counted: Bool) {
        schema = info.schema
        path = StoreAddress.describe(info.location)
        version = info.version
        formatVersion = info.formatVersion
        schemaHash = info.schemaHash
        entities = info.schema.entities.map { entity in
            EntityInfo(
                name: entity.name, count: counted ? info.objectCounts[entity.name] ?? 0 : nil,
                countWithSubEntities: Self.countWithSubEntities(entity.name, info, counted: counted),
                attributes: entity.attributes.map {
                    AttributeInfo(
                        name: $0.name, type: $0.type.rawValue, optional: $0.isOptional,
                        default: $0.defaultValue?.description,
                        primaryKey: $0.name == entity.primaryKey)
                },
                relationships: entity.relationships.map {
                    RelationshipInfo(
                        name: $0.name, destination: $0.destination, toMany: $0.kind == .toMany, ordered: $0.isOrdered,
                        inverse: $0.inverse, deleteRule: $0.deleteRule.rawValue,
                        required: $0.kind == .toOne && !$0.isOptional ? true : nil,
                        minimumCount: $0.kind == .toMany && $0.minimumCount > 0 ? $0.minimumCount : nil)
                },
                indexes: entity.indexes.map {
                    "\($0.isUnique ? "unique" : "index")(\($0.attributes.joined(separator: ", ")))"
                })
        }
        history = info.history.map {
            HistoryEntry(
                fromVersion: $0.fromVersion, toVersion: $0.toVersion, startedAt: Format.timestamp($0.startedAt),
                duration: $0.duration, objectsTouched: $0.objectsTouched, steps: $0.steps, stepRecords: $0.stepRecords)
        }
        adoptedFrom = info.adoption
    }

    /// The objects of `entity` and of every entity below it, from the own counts; nil when it has no sub-entity
    /// or nothing was counted.
    private static func countWithSubEntities(_ entity: String, _ info: StoreInfo, counted: Bool) -> Int? {
        let below = info.schema.subEntities(of: entity, recursive: true)
        guard counted, !below.isEmpty else { return nil }
        return ([entity] + below.map(\.name)).reduce(0) { $0 + (info.objectCounts[$1] ?? 0) }
    }

    /// `Car: 115 objects of its own, 125 with its sub-entities`, `Note: 3 objects`, or `Note` uncounted.
    private static func heading(_ entity: EntityInfo) -> String {
        guard let count = entity.count else { return "  \(entity.name)" }
        guard let all = entity.countWithSubEntities else { return "  \(entity.name): \(Format.count(count, "object"))" }
        return "  \(entity.name): \(Format.count(count, "object")) of its own, \(all) with its sub-entities"
    }

    func print() {
        Terminal.line("Store:       \(path)")
        Terminal.line("Version:     \(version)")
        Terminal.line("Schema hash: \(schemaHash)")
        Terminal.line("File format: \(formatVersion)")
        Terminal.line()
        Terminal.line("Entities:")
        if schema.entities.isEmpty { Terminal.line("  (none)") }
        for (entity, info) in zip(schema.entities, entities) {
            Terminal.line(Self.heading(info))
            for attribute in entity.attributes {
                Terminal.line("    \(Format.attribute(attribute, primaryKey: entity.primaryKey))")
            }
            for relationship in entity.relationships {
                Terminal.line("    \(Format.relationship(relationship))")
            }
            for index in info.indexes { Terminal.line("    \(index)") }
        }
        Terminal.line()
        if let adoption = adoptedFrom {
            Terminal.line(
                "Adopted:     from \(adoption.engine) (\(adoption.sourceVersions.joined(separator: ", "))) at version \(adoption.adoptedAtVersion), \(Format.timestamp(adoption.adoptedAt))"
            )
            Terminal.line("  original:  \(adoption.source)")
            Terminal.line(
                "  copied:    \(adoption.objectCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
            )
            for line in adoption.leftOut { Terminal.line("  left out:  \(line)") }
            for line in adoption.underMinimumCount { Terminal.line("  short:     \(line)") }
            Terminal.line()
        }
        Terminal.line("History:")
        if history.isEmpty { Terminal.line("  (no migration yet)") }
        for entry in history {
            Terminal.line(
                "  \(entry.fromVersion) → \(entry.toVersion)  \(entry.startedAt)  \(Format.duration(entry.duration))  \(entry.stepRecords.isEmpty ? Format.count(entry.objectsTouched, "object") + " touched" : Format.changes(entry.stepRecords))"
            )
            for step in entry.steps { Terminal.line("    \(step)") }
            for record in entry.stepRecords {
                for line in record.underMinimumCount {
                    Terminal.line("    kept short (\(record.fromVersion) → \(record.toVersion)): \(line)")
                }
            }
        }
    }
}
