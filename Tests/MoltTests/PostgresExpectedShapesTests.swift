import Foundation
import Testing
import Molt
import MoltPostgres

/// Validation on PostgreSQL compares a migrated store with the shapes Molt works out for its schema, without
/// creating anything: they must be exactly what the catalog shows for the tables Molt's DDL creates.
@Suite("PostgreSQL expected shapes")
struct PostgresExpectedShapesTests {
    /// Every attribute type, required and optional; to-one, to-many, ordered and inverse relationships; unique,
    /// compound and long-named indexes; a primary key.
    static func schemas() -> [Schema] {
        let types = AttributeType.allCases
        let every = Schema(
            version: 1,
            entities: [
                Entity(
                    "Every", primaryKey: "key",
                    attributes: [Attribute("key", .string)]
                        + types.map { Attribute("required_\($0.rawValue)", $0) }
                        + types.map { Attribute("optional_\($0.rawValue)", $0, isOptional: true) },
                    relationships: [
                        Relationship("other", to: "Other"), Relationship("others", toMany: "Other", ordered: true),
                    ],
                    indexes: [
                        Index(["required_int"]), Index(["required_string", "optional_date"], unique: true),
                        Index(["required_decimal", "optional_int16"], unique: true),
                    ]),
                Entity(
                    "Other", attributes: [Attribute("name", .string)],
                    relationships: [Relationship("many", toMany: "Every")]),
            ])
        return [
            every, SchemaSnapshotTests.everything(), RelationshipTests.schema(), IdentifierLengthTests.v1(),
            Library.v0(orderedTags: true, bookIndexes: [Index(["title", "pages"], unique: true)]),
            InheritanceSchemaTests.garages,
        ]
    }

    @Test("the shapes Molt works out are the catalog's, for every kind of column, link and index")
    func sameAsCatalog() throws {
        let url = try PostgresTestServer.requireURL()
        for schema in Self.schemas() {
            let (worked, catalog) = try PostgresMaintenance.expectedShapes(of: schema, at: url)
            #expect(worked.keys.sorted() == catalog.keys.sorted())
            for (table, shape) in catalog {
                #expect(
                    worked[table] == shape,
                    "\(table): \(worked[table]?.render(order: shape.order) ?? "missing") vs \(shape.render(order: shape.order))"
                )
                #expect(worked[table]?.order == shape.order, "\(table)")
            }
        }
    }
}
