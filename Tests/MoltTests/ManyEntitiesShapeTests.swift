import Foundation
import Testing
import Molt

/// SQLite works out the shapes a schema's tables should have in scratch databases of a few hundred tables each (one
/// scratch of 10k tables is quadratic). A schema larger than one scratch, with links and join tables that cross
/// from one scratch to another, must still compare equal to the tables Molt creates, and a change in the last
/// scratch must still be seen.
@Suite("Shapes of a schema larger than one scratch database")
struct ManyEntitiesShapeTests {
    static let count = 250

    /// `count` entities, each with an index, a to-one to the next entity and a to-many to the previous one.
    static func schema(version: Int, extra: Bool = false) -> Schema {
        Schema(
            version: version,
            entities: (0..<count).map { index in
                Entity(
                    "E\(index)",
                    attributes: [Attribute("name", .string), Attribute("rank", .int, default: .int(0))]
                        + (extra ? [Attribute("note", .string, isOptional: true)] : []),
                    relationships: [
                        Relationship("next", to: "E\((index + 1) % count)"),
                        Relationship("earlier", toMany: "E\((index + count - 1) % count)"),
                    ],
                    indexes: [Index(["rank"])])
            })
    }

    @Test(
        "a migrated store of 250 entities validates and verifies; a column retyped in the last one is reported",
        arguments: StoreKind.files)
    func largeSchema(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try kind.open(in: dir, schema: Self.schema(version: 1)).close()
        let plan = try MigrationPlan(schemas: [Self.schema(version: 1), Self.schema(version: 2, extra: true)])
        var store = try kind.open(
            in: dir, schema: Self.schema(version: 2, extra: true), options: kind.options.migrating(with: plan))
        try store.verify()
        try store.close()

        let last = "E\(Self.count - 1)"
        try RawSQL.execute(
            dir.file(), "ALTER TABLE \"\(last)\" DROP COLUMN \"note\"",
            "ALTER TABLE \"\(last)\" ADD COLUMN \"note\" BLOB")
        store = try kind.open(in: dir, schema: Self.schema(version: 2, extra: true))
        let error = moltError { try store.verify() }
        #expect(error?.code == .corruptStore)
        #expect(error?.message.contains("the shape of Table '\(last)':") == true, "\(error?.message ?? "")")
    }
}
