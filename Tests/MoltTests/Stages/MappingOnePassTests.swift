import Foundation
import Testing
@testable import Molt

/// An in-place mapping whose table is rebuilt anyway computes its columns in that rebuild: one pass.
@Suite("Mappings: one pass when the table is rebuilt anyway")
struct MappingOnePassTests {
    static let v1 = Schema(version: 1) {
        Entity("Person") {
            Attribute("first", .string); Attribute("last", .string, isOptional: true); Attribute("age", .int)
        }
    }
    static let v2 = Schema(version: 2) {
        Entity("Person") {
            Attribute("full", .string); Attribute("age", .int); Attribute("note", .string, isOptional: true)
        }
    }

    static func makeStore(_ url: URL, kind: StoreKind) throws {
        let store = try Store.open(at: url, schema: v1, options: kind.options)
        defer { try? store.close() }
        try store.write { objects in
            try objects.insert("Person", ["first": "Ada", "last": "Lovelace", "age": 36])
            try objects.insert("Person", ["first": "Plato", "last": nil, "age": 80])
        }
    }

    static func plan(_ attributes: [String: String], filter: String? = nil) throws -> MigrationPlan {
        try MigrationPlan(
            schemas: [v1, v2],
            stages: [
                .mapping(from: 1, to: 2, [EntityMapping(destination: "Person", filter: filter, attributes: attributes)])
            ])
    }

    @Test(
        "merging two attributes is computed in the rebuild, with no UPDATE pass, and counted once",
        arguments: StoreKind.files)
    func merge(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try Self.makeStore(url, kind: kind)
        let plain = try Self.plan(["full": "first || COALESCE(' ' || last, '')", "note": "'was ' || age"])
        let copy = dir.file("copy.sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        let dryRun = try Store.dryRunMigration(at: copy, to: Self.v2, plan: plain)
        #expect(!dryRun.statements.contains { $0.hasPrefix("UPDATE") })
        #expect(dryRun.statements.filter { $0.hasPrefix("INSERT INTO \"_molt_new_Person\"") }.count == 1)
        let store = try Store.open(at: url, schema: Self.v2, options: kind.options.migrating(with: plain))
        defer { try? store.close() }
        #expect(
            try store.read { try $0.fetch("Person").map { [$0["full"], $0["note"]] } } == [
                ["Ada Lovelace", "was 36"], ["Plato", "was 80"],
            ])
        #expect(try store.history().first?.stepRecords.first?.objectsUpdated == 2)
    }

    @Test("a filtered mapping leaves the other objects' computed attributes empty", arguments: StoreKind.files)
    func filtered(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try Self.makeStore(url, kind: kind)
        let v2 = Schema(version: 2) {
            Entity("Person") {
                Attribute("full", .string, default: "?"); Attribute("age", .int);
                Attribute("note", .string, isOptional: true)
            }
        }
        let plan = try MigrationPlan(
            schemas: [Self.v1, v2],
            stages: [
                .mapping(
                    from: 1, to: 2,
                    [
                        EntityMapping(
                            destination: "Person", filter: "age < 50", attributes: ["full": "first", "note": "'young'"])
                    ])
            ])
        let store = try Store.open(at: url, schema: v2, options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        #expect(
            try store.read { try $0.fetch("Person").map { [$0["full"], $0["note"]] } } == [
                ["Ada", "young"], ["?", nil],
            ])
    }

    @Test(
        "a computed required attribute left empty by the expression is refused, naming the mapping",
        arguments: StoreKind.files)
    func emptyRequired(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try Self.makeStore(url, kind: kind)
        let bytes = FileState(url)
        let plan = try Self.plan(["full": "first || ' ' || last"])
        let error = moltError {
            _ = try Store.open(at: url, schema: Self.v2, options: kind.options.migrating(with: plan))
        }
        #expect(error?.code == .validationFailed)
        #expect(
            error?.message
                == "Attribute 'Person.full' is required in version 2, but the expression `first || ' ' || last` of the mapping of 'Person' into 'Person' gives no value for 1 object(s). Make the expression give a value for every object (for example with COALESCE), give the attribute a default, or make it optional. The store was left at its old version."
        )
        #expect(FileState(url) == bytes)
    }
}
