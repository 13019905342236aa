import Foundation
import Testing
@testable import Molt

/// A plan is checked when it is built, with messages that name the version or the stage.
@Suite("Migration plans: validation and paths")
struct PlanValidationTests {
    static func schema(_ version: Int, _ attributes: [Attribute]) -> Schema {
        Schema(version: version, entities: [Entity("Thing", attributes: attributes)])
    }
    static let v1 = schema(1, [Attribute("name", .string)])
    static let v2 = schema(2, [Attribute("name", .string), Attribute("size", .int, isOptional: true)])
    static let v3 = schema(3, [Attribute("name", .string), Attribute("size", .string, isOptional: true)])
    static let v4 = schema(4, [Attribute("name", .string), Attribute("size", .int, isOptional: true)])

    static func message(_ build: () throws -> MigrationPlan) -> String? {
        do {
            _ = try build()
            return nil
        } catch {
            return (error as? MoltError)?.message
        }
    }

    @Test("duplicate, unordered and empty schema lists")
    func schemaLists() {
        #expect(
            Self.message { try MigrationPlan(schemas: []) }
                == "Invalid migration plan: it lists no schema; list every version the app has shipped.")
        #expect(
            Self.message { try MigrationPlan(schemas: [Self.v1, Self.v2, Self.v2]) }
                == "Invalid migration plan: version 2 is listed twice.")
        #expect(
            Self.message { try MigrationPlan(schemas: [Self.v2, Self.v1]) }
                == "Invalid migration plan: version 1 is listed after version 2; list the schemas oldest first.")
    }

    @Test("stages that name unknown versions, go backwards, or repeat")
    func badStages() {
        #expect(
            Self.message { try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [.lightweight(from: 1, to: 5)]) }
                == "Invalid migration plan: the stage 1 → 5 names version 5, which is not among the plan's schemas (1, 2); add its schema."
        )
        #expect(
            Self.message { try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [.custom(from: 2, to: 1) { _ in }]) }
                == "Invalid migration plan: the stage 2 → 1 goes backwards (a cycle); stages only lead to newer versions."
        )
        #expect(
            Self.message {
                try MigrationPlan(
                    schemas: [Self.v1, Self.v2], stages: [.lightweight(from: 1, to: 2), .lightweight(from: 1, to: 2)])
            }
                == "Invalid migration plan: the stage 1 → 2 is declared twice.")
    }

    @Test("a gap: a step that cannot be inferred and has no stage")
    func gap() {
        #expect(
            Self.message { try MigrationPlan(schemas: [Self.v1, Self.v2, Self.v3, Self.v4]) } == """
                Invalid migration plan: a store at version 1 cannot reach version 4. Molt cannot infer the migration from version 3 to 4:
                - Attribute 'Thing.size' has changed type from 'string' to 'int' between versions 3 and 4; this conversion may lose data, so Molt will not infer it. Convert each value in a custom stage from version 3 to 4 (for example with `enumerateObjects(ofType: "Thing")`, or a mapping expression); or, if the new 'size' replaces it (its values deleted, the new one starting empty), declare `Schema(version: 4, deleting: [.replaced("size", of: "Thing")])` (in a snapshot: "deletions" : [{"entity" : "Thing", "property" : "size", "replaced" : true}]).
                """)
        // A shortcut over the gap serves stores at 1 and 2, but a store at 3 still has no way: the plan names it.
        #expect(
            Self.message {
                try MigrationPlan(
                    schemas: [Self.v1, Self.v2, Self.v3, Self.v4], stages: [.lightweight(from: 2, to: 4)])
            }?
            .hasPrefix("Invalid migration plan: a store at version 3 cannot reach version 4.") == true)
        #expect(
            Self.message {
                try MigrationPlan(
                    schemas: [Self.v1, Self.v2, Self.v3, Self.v4],
                    stages: [
                        .custom(from: 3, to: 4) { m in
                            try m.enumerateObjects(ofType: "Thing") { old, new in
                                new["size"] = old["size"].string.flatMap(Int64.init).map(Value.int) ?? .null
                            }
                        }
                    ])
            } == nil)
    }

    @Test("a store at a version the plan does not list, and a plan that does not end at the schema's version")
    func unknownStoreVersion() throws {
        let dir = TemporaryDirectory()
        let odd = Self.schema(7, [Attribute("name", .string)])
        try Store.open(at: dir.file(), schema: odd).close()
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2, Self.v3, Self.v4, Self.schema(9, [Attribute("name", .string)])],
            stages: [
                .custom(from: 3, to: 4) { _ in }
            ])
        #expect {
            try Store.open(
                at: dir.file(), schema: Self.schema(9, [Attribute("name", .string)]),
                options: .init().migrating(with: plan))
        } throws: { error in
            (error as? MoltError)?.message
                == "The store is at version 7, which the migration plan does not list (it lists 1, 2, 3, 4, 9). Add the schema of version 7 to the plan; never remove a shipped version."
        }
        #expect {
            try Store.open(at: dir.file(), schema: Self.v4.withVersion(10), options: .init().migrating(with: plan))
        } throws: { error in
            (error as? MoltError)?.message
                == "The migration plan ends at version 9, but the store is opened with schema version 10. List version 10 last in the plan."
        }
    }

    @Test("a shipped version edited after the fact is caught when a store of that version is opened")
    func editedVersion() throws {
        let dir = TemporaryDirectory()
        try Store.open(at: dir.file(), schema: Self.v2).close()
        let edited = Self.schema(
            2,
            [
                Attribute("name", .string), Attribute("size", .int, isOptional: true),
                Attribute("color", .string, isOptional: true),
            ])
        let plan = try MigrationPlan(schemas: [Self.v1, edited, Self.v3.withVersion(3)], stages: [])
        #expect {
            try Store.open(at: dir.file(), schema: Self.v3, options: .init().migrating(with: plan))
        } throws: { error in
            (error as? MoltError)?.message == """
                The plan's schema for version 2 differs from the one recorded in the store:
                - Attribute 'Thing.color' has been added.
                A shipped version must not change: restore version 2 as it shipped, and put the change in a new version.
                """
        }
        #expect(try Store.version(at: dir.file()) == 2)
    }

    @Test("consecutive inferred steps cost one rebuild per table, and a store walks through every version")
    func oneRebuild() throws {
        let dir = TemporaryDirectory()
        let store = try Store.open(at: dir.file(), schema: Self.v1)
        try store.write { objects in for i in 0..<100 { try objects.insert("Thing", ["name": .string("t\(i)")]) } }
        try store.close()
        // 1 → 2 adds an optional int (metadata only), 2 → 3 widens it to string (a rebuild), 3 → 5 makes name optional (a rebuild).
        let v5 = Self.schema(
            5, [Attribute("name", .string, isOptional: true), Attribute("size", .string, isOptional: true)])
        let plan = try MigrationPlan(schemas: [Self.v1, Self.v2, Self.v3, v5])
        let copy = dir.file("copy.sqlite")
        try FileManager.default.copyItem(at: dir.file(), to: copy)
        let dryRun = try Store.dryRunMigration(at: copy, to: v5, plan: plan)
        #expect(dryRun.statements.filter { $0.hasPrefix("INSERT INTO \"_molt_new_Thing\"") }.count == 1)
        let migrated = try Store.open(at: dir.file(), schema: v5, options: .init().migrating(with: plan))
        let record = try #require(try migrated.history().last)
        // The added size is empty: no stored value changes, though the table is rebuilt (once).
        #expect(record.objectsTouched == 0)
        #expect(record.steps.count == 3)
        #expect(try migrated.read { try $0.fetch("Thing").map { $0["name"] } } == (0..<100).map { .string("t\($0)") })
    }
}
