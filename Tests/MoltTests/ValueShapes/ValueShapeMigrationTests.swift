import Foundation
import Molt
import Testing

/// Migrations of JSON values whose shape changes (``Attribute/shape``): what old values satisfy is inferred;
/// what they might not is checked value by value before the migration commits, and refused naming the object
/// and the field with the store left as it was.
@Suite("Migrations of the shapes of JSON values")
struct ValueShapeMigrationTests {
    static let name = ValueShape.Field("name", .string)
    static let grams = ValueShape.Field("grams", .int)

    /// `Recipe` with a title and a JSON value `main` of `shape`.
    static func schema(_ version: Int, _ fields: [ValueShape.Field]) -> Schema {
        Schema(version: version) {
            Entity("Recipe") {
                Attribute("title", .string)
                Attribute("main", .string, shape: .object(fields))
            }
        }
    }

    static let v1 = schema(1, [name, grams])

    /// Three recipes; only the first value has a `unit` (a field version 1 does not name, as a newer app may
    /// have written).
    static let values = [
        #"{"grams":200,"name":"flour","unit":"g"}"#, #"{"grams":3,"name":"eggs"}"#, #"{"grams":50,"name":"butter"}"#,
    ]

    static func seeded(_ kind: StoreKind, in dir: TemporaryDirectory) throws -> StoreDump {
        let store = try kind.open(in: dir, schema: v1)
        try store.write { objects in
            for (index, value) in values.enumerated() {
                try objects.insert("Recipe", ["title": .string("r\(index + 1)"), "main": .string(value)])
            }
        }
        let dump = try StoreDump(store)
        try store.close()
        return dump
    }

    struct Ingredient: Codable, Equatable {
        var name: String
        var grams: Int
        var unit: String?
    }

    @Test("an optional field added is inferred, and every value comes through as it was", arguments: StoreKind.durable)
    func optionalFieldAdded(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let before = try Self.seeded(kind, in: dir)
        let store = try kind.open(
            in: dir, schema: Self.schema(2, [Self.name, Self.grams, .init("unit", .string, .optional)]))
        #expect(
            try store.history().last?.steps == [
                "1 → 2 inferred: Field 'unit' of attribute 'Recipe.main' has been added (optional)."
            ])
        #expect(try StoreDump(store) == before)
        let decoded = try store.read { objects in
            try objects.fetch("Recipe", orderBy: [.ascending("_id")]).map { object -> Ingredient in
                guard case .string(let text) = object["main"] else { throw MoltError(.invalidValue, "no text") }
                return try JSONDecoder().decode(Ingredient.self, from: Data(text.utf8))
            }
        }
        #expect(
            decoded == [
                Ingredient(name: "flour", grams: 200, unit: "g"), Ingredient(name: "eggs", grams: 3),
                Ingredient(name: "butter", grams: 50),
            ])
    }

    @Test(
        "a required field added is refused naming the objects and the field, and the store is unchanged",
        arguments: StoreKind.durable)
    func requiredFieldAdded(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let before = try Self.seeded(kind, in: dir)
        let location = try kind.location(in: dir)
        let state = FileState(location)
        let v2 = Self.schema(2, [Self.name, Self.grams, .init("unit", .string)])
        let error = moltError { _ = try kind.open(in: dir, schema: v2) }
        #expect(error?.code == .validationFailed)
        #expect(error?.entity == "Recipe")
        #expect(error?.property == "main")
        #expect(
            error?.message
                == "The migration to version 2 would leave values of 'Recipe.main' that its new shape does not read, so nothing was committed: 2 'Recipe' objects (_id 2, 3) hold such values; in _id 2, field 'unit' is missing. Rewrite the values in a custom stage (set 'main' through `migration.new`), or make the field optional in the Swift type (an Optional, or `decodeIfPresent` with a default)."
        )
        #expect(FileState(location) == state)
        #expect(try StoreDump(try kind.open(in: dir, schema: Self.v1)) == before)
    }

    @Test("a field whose type changes is checked: a value that does not fit is refused", arguments: StoreKind.durable)
    func typeChanged(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        _ = try Self.seeded(kind, in: dir)
        let v2 = Self.schema(2, [Self.name, .init("grams", .string)])
        let error = moltError { _ = try kind.open(in: dir, schema: v2) }
        #expect(
            error?.message.contains(
                "3 'Recipe' objects (_id 1, 2, 3) hold such values; in _id 1, field 'grams' holds 200, not string.")
                == true)
    }

    @Test("a custom stage that rewrites the values to the new shape succeeds", arguments: StoreKind.durable)
    func stageRewrites(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        _ = try Self.seeded(kind, in: dir)
        let v2 = Self.schema(2, [Self.name, Self.grams, .init("unit", .string)])
        let stage = MigrationStage.custom(from: 1, to: 2) { migration in
            for var recipe in try migration.new.fetch("Recipe") {
                guard case .string(let text) = recipe["main"] else { continue }
                var ingredient = try JSONDecoder().decode(Ingredient.self, from: Data(text.utf8))
                ingredient.unit = ingredient.unit ?? "g"
                recipe["main"] = .string(String(decoding: try JSONEncoder().encode(ingredient), as: UTF8.self))
                try migration.new.update(recipe)
            }
        }
        let plan = try MigrationPlan(schemas: [Self.v1, v2], stages: [stage])
        let store = try kind.open(in: dir, schema: v2, options: kind.options.migrating(with: plan))
        let units = try store.read { objects in
            try objects.fetch("Recipe", orderBy: [.ascending("_id")]).map { object -> String? in
                guard case .string(let text) = object["main"] else { return nil }
                return try JSONDecoder().decode(Ingredient.self, from: Data(text.utf8)).unit
            }
        }
        #expect(units == ["g", "g", "g"])
    }

    @Test("a custom stage that writes a value without the new shape is refused", arguments: StoreKind.durable)
    func stageWritesMisfit(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let before = try Self.seeded(kind, in: dir)
        let location = try kind.location(in: dir)
        let state = FileState(location)
        // Version 2 only adds an optional field, which needs no check, but the stage writes a value that lacks a
        // field version 2 requires.
        let v2 = Self.schema(2, [Self.name, Self.grams, .init("unit", .string, .optional)])
        let stage = MigrationStage.custom(from: 1, to: 2) { migration in
            var recipe = try migration.new.fetch("Recipe", where: .equal("title", "r3"))[0]
            recipe["main"] = .string(#"{"name":"butter"}"#)
            try migration.new.update(recipe)
        }
        let plan = try MigrationPlan(schemas: [Self.v1, v2], stages: [stage])
        let error = moltError { _ = try kind.open(in: dir, schema: v2, options: kind.options.migrating(with: plan)) }
        #expect(
            error?.message.contains("1 'Recipe' object (_id 3) holds one; in _id 3, field 'grams' is missing.") == true)
        #expect(FileState(location) == state)
        #expect(try StoreDump(try kind.open(in: dir, schema: Self.v1)) == before)
    }
}

extension ValueShapeMigrationTests {
    @Test(
        "a store recorded without shapes opens at the same version with them, and its values are checked when the shape next changes",
        arguments: StoreKind.durable)
    func recordedBeforeShapes(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let plain = Schema(version: 1) {
            Entity("Recipe") {
                Attribute("title", .string)
                Attribute("main", .string)
            }
        }
        let old = try kind.open(in: dir, schema: plain)
        try old.write { objects in
            try objects.insert("Recipe", ["title": "r1", "main": #"{"grams":3,"name":"eggs"}"#])
        }
        try old.close()
        let same = try kind.open(in: dir, schema: Self.v1)
        #expect(same.outcome == .opened)
        try same.close()
        let v2 = Self.schema(2, [Self.name, Self.grams, .init("unit", .string)])
        let error = moltError { _ = try kind.open(in: dir, schema: v2) }
        #expect(
            error?.message.contains("1 'Recipe' object (_id 1) holds one; in _id 1, field 'unit' is missing.") == true)
    }
}
