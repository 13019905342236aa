import Foundation
import Testing
import Molt

/// PostgreSQL keeps 63 bytes of a name and drops the rest without an error, which can make two names one:
/// a schema name too long for it is refused before anything is written, and the index names Molt makes up
/// are shortened with a hash, so that long ones never collide.
@Suite("Names an engine would cut")
struct IdentifierLengthTests {
    static let long = String(repeating: "a", count: 50)

    /// Two indexes whose made-up names share their first 63 bytes (`Doc_aaa…_suffixOn`).
    static func v1() -> Schema {
        Schema(
            version: 1,
            entities: [
                Entity(
                    "Doc",
                    attributes: [
                        Attribute(long, .string), Attribute("suffixOne1", .string), Attribute("suffixOne2", .string),
                    ],
                    indexes: [Index([long, "suffixOne1"]), Index([long, "suffixOne2"])])
            ])
    }

    @Test(
        "an entity name longer than the engine keeps whole is refused on PostgreSQL, naming it, and nothing is written",
        arguments: StoreKind.durable)
    func longEntityName(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let name = String(repeating: "N", count: 54)
        let schema = Schema(version: 1) { Entity(name) { Attribute("title", .string) } }
        guard kind == .postgres else {
            let store = try kind.open(in: dir, schema: schema)
            defer { try? store.close() }
            try store.write { _ = try $0.insert(name, ["title": "kept"]) }
            #expect(try store.read { try $0.count(name) } == 1)
            return
        }
        let location = try kind.location(in: dir)  // cancels the case when no server is configured
        let error = moltError { _ = try Store.open(at: location, schema: schema, options: kind.options) }
        #expect(error?.code == .invalidSchema)
        #expect(
            error?.message
                == "Invalid schema version 1 for PostgreSQL: entity '\(name)' is 54 bytes long, and names may have at most 53 bytes there (PostgreSQL keeps 63 bytes of a name, and a migration's working copies add up to 10). Give it a shorter name, with `originalName` set to the old one so that its data follows."
        )
    }

    @Test("a version that adds a name too long is refused when migrating and in a dry run, before anything is written")
    func longNameInLaterVersion() throws {
        let dir = TemporaryDirectory()
        let location = try StoreKind.postgres.location(in: dir)  // cancels the test when no server is configured
        let v1 = Schema(version: 1) { Entity("Note") { Attribute("title", .string) } }
        let name = String(repeating: "L", count: 54)
        let v2 = v1.next(2) { $0.entities.append(Entity(name) { Attribute("title", .string) }) }
        try Store.open(at: location, schema: v1, options: StoreKind.postgres.options).close()
        let prefix = "Invalid schema version 2 for PostgreSQL: entity '\(name)' is 54 bytes long"
        let dryRun = moltError { _ = try Store.dryRunMigration(at: location, to: v2) }
        #expect(dryRun?.code == .invalidSchema)
        #expect(dryRun?.message.hasPrefix(prefix) == true)
        let error = moltError { _ = try Store.open(at: location, schema: v2, options: StoreKind.postgres.options) }
        #expect(error?.message.hasPrefix(prefix) == true)
        #expect(try Store.version(at: location) == 1)
    }

    @Test("a to-many relationship whose table name is too long is refused on PostgreSQL, naming the relationship")
    func longJoinTableName() throws {
        let dir = TemporaryDirectory()
        let relationship = String(repeating: "r", count: 45)
        let schema = Schema(version: 1) {
            Entity("Playlist") { Relationship(relationship, toMany: "Song") }
            Entity("Song") { Attribute("title", .string) }
        }
        let location = try StoreKind.postgres.location(in: dir)  // cancels the test when no server is configured
        let error = moltError { _ = try Store.open(at: location, schema: schema, options: StoreKind.postgres.options) }
        #expect(error?.code == .invalidSchema)
        #expect(
            error?.message.hasPrefix(
                "Invalid schema version 1 for PostgreSQL: table 'Playlist_\(relationship)' (of relationship 'Playlist.\(relationship)') is 54 bytes long, and names may have at most 53 bytes there"
            ) == true)
        #expect(error?.property == relationship)
    }

    @Test(
        "indexes whose names share their first 63 bytes are made, kept and dropped on every engine",
        arguments: StoreKind.durable)
    func longIndexNames(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Self.v1()
        let store = try kind.open(in: dir, schema: v1)
        try store.write { _ = try $0.insert("Doc", [Self.long: "x", "suffixOne1": "1", "suffixOne2": "2"]) }
        try store.close()
        // v2 adds a third long index and drops one; v3 makes another unique.
        let v2 = v1.next(2) {
            $0.edit("Doc") {
                $0.indexes = [Index([Self.long, "suffixOne1"]), Index([Self.long, "suffixOne2", "suffixOne1"])]
            }
        }
        let v3 = v2.next(3) {
            $0.edit("Doc") {
                $0.indexes = [
                    Index([Self.long, "suffixOne1"], unique: true), Index([Self.long, "suffixOne2", "suffixOne1"]),
                ]
            }
        }
        let plan = try MigrationPlan(schemas: [v1, v2, v3])
        let migrated = try kind.open(in: dir, schema: v3, options: kind.options.migrating(with: plan))
        defer { try? migrated.close() }
        #expect(try migrated.read { try $0.fetch("Doc").map { $0["suffixOne2"] } } == ["2"])
        #expect(try Store.inspect(at: try kind.location(in: dir)).version == 3)
    }
}
