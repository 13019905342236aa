import Foundation
import Molt
import Testing

/// The shapes of JSON values in the schema: derived from Swift types, written to and read from snapshots, and
/// compared by the diff.
@Suite("Shapes of JSON values in the schema")
struct ValueShapeSchemaTests {
    enum Unit: String, Codable, CaseIterable { case grams = "g", millilitres = "ml" }
    struct Origin: Codable { var country: String; var farm: String? }
    struct Ingredient: StoredAsJSON {
        var name: String
        var grams: Int
        var unit: Unit
        var origin: Origin?
        var tags: [String]
        var notes: [String: Double]
        var added: Date
        var id: UUID
    }
    /// An enum with associated values: its decoder asks for the keys a value holds, which a walk has none of.
    enum Topping: Codable { case sauce(String), cheese(grams: Int) }
    struct Pizza: StoredAsJSON { var name: String; var topping: Topping }
    /// A `String` enum that is not `CaseIterable`, declaring its cases.
    enum Crust: String, Codable, ShapedValue {
        case thin, thick
        static var valueShape: ValueShape { .cases(["thin", "thick"]) }
    }
    struct Base: StoredAsJSON { var crust: Crust; var size: Double }

    static let ingredientShape = ValueShape.object([
        .init("name", .string), .init("grams", .int), .init("unit", .cases(["g", "ml"])),
        .init("origin", .object([.init("country", .string), .init("farm", .string, .optional)]), .optional),
        .init("tags", .array(.string)), .init("notes", .dictionary(.double)), .init("added", .date),
        .init("id", .uuid),
    ])

    @Test("a StoredAsJSON type's shape is found by walking its decoder")
    func probe() {
        #expect(Ingredient.valueShape == Self.ingredientShape)
        #expect(Base.valueShape == .object([.init("crust", .cases(["thin", "thick"])), .init("size", .double)]))
    }

    @Test("a type the walk cannot follow is opaque")
    func opaque() {
        #expect(Pizza.valueShape == .opaque)
    }

    static let schema = Schema(version: 1) {
        Entity("Recipe") {
            Attribute("title", .string)
            Attribute("main", .string, shape: Ingredient.valueShape)
            Attribute("extra", .string, isOptional: true, shape: Ingredient.valueShape)
        }
    }

    @Test("shapes are written to the snapshot and read back")
    func roundTrip() throws {
        let json = try Self.schema.snapshotJSON()
        #expect(try Schema(snapshotJSON: json) == Self.schema)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""shape" : "uuid""#))
        #expect(text.contains(#""cases" : ["#))
        #expect(text.contains(#""presence" : "optional""#))
    }

    @Test("a snapshot without shapes (written before them) still reads, and its hash is unchanged")
    func oldSnapshot() throws {
        let old = #"""
            {"entities" : [{"attributes" : [{"name" : "main", "optional" : false, "type" : "string"}], "name" : "Recipe"}],
             "formatVersion" : 1, "version" : 1}
            """#
        let schema = try Schema(snapshotJSON: Data(old.utf8))
        #expect(schema.entities[0].attributes[0].shape == nil)
        let plain = Schema(version: 1) { Entity("Recipe") { Attribute("main", .string) } }
        #expect(schema.contentHash == plain.contentHash)
    }

    @Test("an unknown shape name in a snapshot is refused naming it")
    func badShape() {
        let bad = #"""
            {"entities" : [{"attributes" : [{"name" : "main", "optional" : false, "shape" : "integer", "type" : "string"}], "name" : "Recipe"}],
             "formatVersion" : 1, "version" : 1}
            """#
        let error = #expect(throws: MoltError.self) { try Schema(snapshotJSON: Data(bad.utf8)) }
        #expect(error?.message.contains("unknown value shape 'integer'") == true)
    }

    static func shaped(_ version: Int, _ shape: ValueShape?) -> Schema {
        Schema(version: version) { Entity("Recipe") { Attribute("main", .string, shape: shape) } }
    }

    @Test("the diff names each change of shape, field by field (in the order of their names), and infers them all")
    func diff() {
        let old = ValueShape.object([
            .init("name", .string), .init("grams", .int), .init("unit", .cases(["g", "ml"])),
            .init("note", .string, .optional), .init("tags", .array(.object([.init("label", .string)]))),
            .init("old", .bool),
        ])
        let new = ValueShape.object([
            .init("name", .string, .optional), .init("grams", .string), .init("unit", .cases(["g", "l"])),
            .init("note", .string), .init("tags", .array(.object([.init("label", .string), .init("color", .int)]))),
            .init("brand", .string, .optional), .init("origin", .string, .defaulted), .init("size", .double),
        ])
        let diff = SchemaDiff(from: Self.shaped(1, old), to: Self.shaped(2, new))
        #expect(
            diff.changes.map(\.description) == [
                "Field 'brand' of attribute 'Recipe.main' has been added (optional).",
                "Field 'grams' of attribute 'Recipe.main' has changed type from 'int' to 'string'.",
                "Field 'name' of attribute 'Recipe.main' has been made optional.",
                "Field 'note' of attribute 'Recipe.main' has been made required.",
                "Field 'origin' of attribute 'Recipe.main' has been added (with a default).",
                "Field 'size' of attribute 'Recipe.main' has been added (required).",
                "Field 'tags[].color' of attribute 'Recipe.main' has been added (required).",
                "Case 'l' of field 'unit' of attribute 'Recipe.main' has been added.",
                "Case 'ml' of field 'unit' of attribute 'Recipe.main' has been removed.",
                "Field 'old' of attribute 'Recipe.main' has been removed.",
            ])
        #expect(diff.isInferable)
        #expect(diff.changes.allSatisfy { !$0.isDestructive })
    }

    @Test("the diff names a shape recorded, dropped, or changed as a whole")
    func diffWhole() {
        let fields = ValueShape.object([.init("name", .string)])
        #expect(
            SchemaDiff(from: Self.shaped(1, nil), to: Self.shaped(2, fields)).changes.map(\.description) == [
                "The values of attribute 'Recipe.main' now record their shape ({name})."
            ])
        #expect(
            SchemaDiff(from: Self.shaped(1, fields), to: Self.shaped(2, nil)).changes.map(\.description) == [
                "The values of attribute 'Recipe.main' no longer record their shape."
            ])
        #expect(
            SchemaDiff(from: Self.shaped(1, fields), to: Self.shaped(2, .array(.string))).changes.map(\.description)
                == ["The values of attribute 'Recipe.main' have changed shape from '{name}' to '[string]'."])
        #expect(
            SchemaDiff(from: Self.shaped(1, .cases(["a", "b"])), to: Self.shaped(2, .cases(["a"]))).changes.map(
                \.description) == ["Case 'b' of the values of attribute 'Recipe.main' has been removed."])
    }
}

extension ValueShapeSchemaTests {
    @Test("a shape on an attribute that is not text, or a default without the shape, is an invalid schema")
    func invalid() {
        let number = Schema(version: 1) { Entity("Recipe") { Attribute("main", .int, shape: .object([])) } }
        #expect(
            (#expect(throws: MoltError.self) { try number.validate() })?.message
                == "Invalid schema version 1: attribute 'Recipe.main' has a value shape but type 'int'; JSON values are stored as text: make it a string attribute, or remove the shape."
        )
        let shape = ValueShape.object([.init("name", .string), .init("grams", .int)])
        let badDefault = Schema(version: 1) {
            Entity("Recipe") { Attribute("main", .string, default: #"{"name":"flour"}"#, shape: shape) }
        }
        #expect(
            (#expect(throws: MoltError.self) { try badDefault.validate() })?.message
                == "Invalid schema version 1: the default value of attribute 'Recipe.main' does not have the attribute's shape: field 'grams' is missing."
        )
    }
}

extension ValueShapeSchemaTests {
    @Test("a shape old values may not have is a data dependency, witnessed by a value of the old shape")
    func dependency() {
        let v1 = Self.shaped(1, .object([.init("name", .string), .init("unit", .cases(["g", "ml"]))]))
        let v2 = Self.shaped(2, .object([.init("name", .string), .init("unit", .cases(["g"])), .init("grams", .int)]))
        let dependencies = SchemaDiff(from: v1, to: v2).dataDependencies(.inferred)
        #expect(dependencies.map(\.kind) == [.valueShape])
        #expect(
            dependencies.first?.witness
                == .object(entity: "Recipe", attribute: "main", value: .string(#"{"name":"","unit":"ml"}"#)))
        #expect(
            dependencies.first?.description
                == #"step 1 → 2 depends on the data: the values of 'Recipe.main' take the shape {grams, name, unit}, which values of the shape {name, unit} may not have: a store at version 1 where a 'Recipe' object holds {"name":"","unit":"ml"} in 'main' is refused. Rewrite the values in a custom stage from version 1 to 2 (set 'main' through `migration.new`), or make the new fields optional in the Swift type (an Optional, or `decodeIfPresent` with a default)."#
        )
        let optional = Self.shaped(
            2,
            .object([.init("name", .string), .init("unit", .cases(["g", "ml", "l"])), .init("grams", .int, .optional)]))
        #expect(SchemaDiff(from: v1, to: optional).dataDependencies(.inferred).isEmpty)
    }
}
