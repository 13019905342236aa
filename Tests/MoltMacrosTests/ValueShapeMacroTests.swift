import Foundation
import Molt
import MoltMacros
import Testing

/// `@Model` records the shape of the JSON its `StoredAsJSON` properties are stored as.
@Suite("Typed models: shapes of JSON values")
struct ValueShapeMacroTests {
    enum Unit: String, Codable, CaseIterable { case grams = "g", millilitres = "ml" }
    enum Status: String, PersistentValue { case draft, published }
    struct Ingredient: StoredAsJSON, Equatable {
        var name: String
        var amount: Double
        var unit: Unit?
    }

    @Model struct Recipe {
        var title: String
        var status: Status
        var main: Ingredient
        var extra: Ingredient?
        var servings: Int = 1
    }

    static let ingredient = ValueShape.object([
        .init("name", .string), .init("amount", .double), .init("unit", .cases(["g", "ml"]), .optional),
    ])

    @Test("a StoredAsJSON property, optional or not, has its type's shape; other attributes have none")
    func derived() {
        #expect(Recipe.entity.attributes.map(\.name) == ["title", "status", "main", "extra", "servings"])
        #expect(
            Recipe.entity.attributes.map(\.shape) == [
                nil, nil, Self.ingredient.normalized, Self.ingredient.normalized, nil,
            ])
    }

    @Test("the shape goes into the snapshot and comes back")
    func snapshot() throws {
        let schema = Schema(version: 1, entities: [Recipe.entity])
        #expect(
            try Schema(snapshotJSON: schema.snapshotJSON()).entities[0].attributes[2].shape
                == Self.ingredient.normalized)
    }
}

extension ValueShapeMacroTests {
    struct Reordered: StoredAsJSON { var unit: Unit?; var amount: Double; var name: String }

    @Test("reordering a value type's fields changes neither the shape the schema keeps nor its hash")
    func order() {
        #expect(
            Attribute("main", .string, shape: Reordered.valueShape)
                == Attribute("main", .string, shape: Ingredient.valueShape))
        #expect(Ingredient.valueShape != Reordered.valueShape)
    }
}
