// Seed 004: a SwiftData custom migration. Four note models become four new models that conform to one
// protocol; a cocktail holds its base spirit as an `Ingredient`, a Codable value stored as JSON as the seed's
// `struct Ingredient: Hashable, Codable`. In SwiftData the objects inserted in `willMigrate` were lost when
// the context was reset before `didMigrate`; in Molt both phases share one migration, so they are still there.
// Version 3 adds a field to `Ingredient`: the schema records the value's shape, so the migration knows, and
// an optional field is inferred with every stored value kept.
import Foundation
import MoltMacros

enum SwiftDataTastings {
    enum V1: VersionedSchema {
        static let version = 1
        static let models: [any PersistentModel.Type] = [
            WineNote.self, CoffeeNote.self, WhiskeyNote.self, CocktailNote.self,
        ]
        @Model struct WineNote { var name: String; var winery: String; var rating: Int }
        @Model struct CoffeeNote { var name: String; var origin: String; var rating: Int }
        @Model struct WhiskeyNote { var name: String; var distillery: String; var rating: Int }
        @Model struct CocktailNote { var name: String; var base: String; var rating: Int }
    }

    /// What every tasting of version 2 has in common.
    protocol Tasting: PersistentModel {
        var title: String { get }
        var maker: String { get }
        var score: Double { get }
    }

    enum V2: VersionedSchema {
        static let version = 2
        static let models: [any PersistentModel.Type] = [
            Wine.self, Coffee.self, Whiskey.self, Cocktail.self,
        ]
        @Model struct Wine: Tasting { var title: String; var maker: String; var score: Double }
        @Model struct Coffee: Tasting { var title: String; var maker: String; var score: Double }
        @Model struct Whiskey: Tasting { var title: String; var maker: String; var score: Double }
        @Model struct Cocktail: Tasting {
            var title: String
            var maker: String
            var score: Double
            var base: Ingredient? = nil
        }
        /// A value of its cocktail, not an entity: stored as JSON, its shape recorded in the schema.
        struct Ingredient: StoredAsJSON, Hashable { var name: String; var amount: String }
    }

    /// Version 3: an ingredient also says how strong it is. The field is optional, so the values stored by
    /// version 2 are values of version 3 as they are: the step is inferred, and no value is rewritten.
    enum V3: VersionedSchema {
        static let version = 3
        static let models: [any PersistentModel.Type] = [
            V2.Wine.self, V2.Coffee.self, V2.Whiskey.self, Cocktail.self,
        ]
        @Model struct Cocktail: Tasting {
            var title: String
            var maker: String
            var score: Double
            var base: Ingredient? = nil
        }
        struct Ingredient: StoredAsJSON, Hashable { var name: String; var amount: String; var abv: Double? }
    }

    enum TastingPlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [V1.self, V2.self]
        static var stages: [MigrationStage] {
            [
                .custom(
                    from: 1, to: 2,
                    willMigrate: { migration in
                        // Ratings out of 5 become scores out of 10.
                        try migration.enumerateOldObjects(V1.WineNote.self) {
                            try migration.new.insert(
                                V2.Wine(title: $0.name, maker: $0.winery, score: Double($0.rating * 2)))
                        }
                        try migration.enumerateOldObjects(V1.CoffeeNote.self) {
                            try migration.new.insert(
                                V2.Coffee(title: $0.name, maker: $0.origin, score: Double($0.rating * 2)))
                        }
                        try migration.enumerateOldObjects(V1.WhiskeyNote.self) {
                            try migration.new.insert(
                                V2.Whiskey(title: $0.name, maker: $0.distillery, score: Double($0.rating * 2)))
                        }
                        try migration.enumerateOldObjects(V1.CocktailNote.self) {
                            try migration.new.insert(
                                V2.Cocktail(title: $0.name, maker: "house", score: Double($0.rating * 2)))
                        }
                    },
                    didMigrate: { migration in
                        // What willMigrate inserted is still here: give each cocktail its base spirit as an ingredient.
                        for var cocktail in try migration.new.fetch(V2.Cocktail.self) {
                            let base = try migration.old.fetch(V1.CocktailNote.self, where: \.name == cocktail.title)[0]
                                .base
                            cocktail.base = V2.Ingredient(name: base, amount: "45 ml")
                            try migration.new.save(cocktail)
                        }
                    })
            ]
        }
    }

    /// The same versions with the custom stage forgotten: the SwiftData trap of the seed ("built without errors
    /// but silently migrated nothing"). Molt refuses it: V2 drops four models that hold tastings.
    enum ForgottenStagePlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [V1.self, V2.self]
        static var stages: [MigrationStage] { [] }
    }

    /// The plan once version 3 ships: its step from version 2 needs no stage.
    enum IngredientPlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [V1.self, V2.self, V3.self]
        static var stages: [MigrationStage] { TastingPlan.stages }
    }

    static func run(_ check: Checker) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-example-tastings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("tastings.sqlite")

        // The hand-made test of the seed, as an example: a V1 store in a temporary file, filled, reopened with V2.
        let v1 = try Store.open(at: url, schema: V1.schema)
        try v1.write { objects in
            try objects.insert(V1.WineNote(name: "Chablis", winery: "Domaine Laroche", rating: 4))
            try objects.insert(V1.CoffeeNote(name: "Yirgacheffe", origin: "Ethiopia", rating: 5))
            try objects.insert(V1.WhiskeyNote(name: "Lagavulin 16", distillery: "Lagavulin", rating: 5))
            try objects.insert(V1.CocktailNote(name: "Negroni", base: "gin", rating: 4))
            try objects.insert(V1.CocktailNote(name: "Daiquiri", base: "rum", rating: 3))
        }
        try v1.close()

        // Forgetting the stage is refused before anything is written, with the fix in the message.
        do {
            _ = try Store.open(at: url, plan: ForgottenStagePlan.self)
            check.expect("opened", "refused", "a plan that forgets the stage is refused")
        } catch let error as MoltError {
            check.expect(error.code, .dataLossRefused, "a plan that forgets the stage is refused")
            check.expect(
                error.message.contains(
                    "Version 2 removes entity 'CocktailNote', which holds 2 objects; they would be deleted."), true,
                "the refusal names the entity and the objects it would delete")
            check.expect(
                error.message.contains("write a custom stage from version 1 to 2 that reads them"), true,
                "the refusal tells the developer to write the stage")
            check.expect(try Store.version(at: url), 1, "the refused store is still at version 1")
        }

        let store = try Store.open(at: url, plan: TastingPlan.self)
        try store.read { objects in
            func summary<T: Tasting>(_ type: T.Type) throws -> [String] {
                try objects.fetch(type).map { "\($0.title)/\($0.maker)/\($0.score)" }
            }
            check.expect(try summary(V2.Wine.self), ["Chablis/Domaine Laroche/8.0"], "wine notes mapped")
            check.expect(try summary(V2.Coffee.self), ["Yirgacheffe/Ethiopia/10.0"], "coffee notes mapped")
            check.expect(try summary(V2.Whiskey.self), ["Lagavulin 16/Lagavulin/10.0"], "whiskey notes mapped")
            let cocktails = try objects.fetch(V2.Cocktail.self, orderBy: [.ascending(\.title)])
            check.expect(
                cocktails.map(\.title), ["Daiquiri", "Negroni"],
                "objects inserted in willMigrate survived to didMigrate")
            check.expect(
                cocktails.map(\.base),
                [V2.Ingredient(name: "rum", amount: "45 ml"), V2.Ingredient(name: "gin", amount: "45 ml")],
                "ingredients set in didMigrate")
        }
        check.expect(store.schema.entity(named: "WineNote") == nil, true, "the old models are gone")
        try store.close()
        try addField(at: url, check)
    }

    /// Version 3 adds `abv` to `Ingredient`: the diff names the field, the step is inferred, every value comes
    /// through, and a new value holds the field.
    static func addField(at url: URL, _ check: Checker) throws {
        let diff = SchemaDiff(from: V2.schema, to: V3.schema)
        check.expect(
            diff.changes.map(\.description), ["Field 'abv' of attribute 'Cocktail.base' has been added (optional)."],
            "the diff names the field the value gained")
        let store = try Store.open(at: url, plan: IngredientPlan.self)
        defer { try? store.close() }
        check.expect(
            try store.history().last?.steps,
            ["2 → 3 inferred: Field 'abv' of attribute 'Cocktail.base' has been added (optional)."],
            "adding an optional field is inferred")
        try store.write { objects in
            let cocktails = try objects.fetch(V3.Cocktail.self, orderBy: [.ascending(\.title)])
            check.expect(
                cocktails.map(\.base),
                [
                    V3.Ingredient(name: "rum", amount: "45 ml", abv: nil),
                    V3.Ingredient(name: "gin", amount: "45 ml", abv: nil),
                ],
                "every stored ingredient comes through")
            var negroni = cocktails[1]
            negroni.base?.abv = 40
            try objects.save(negroni)
        }
        let negroni = try store.read { try $0.fetch(V3.Cocktail.self, where: \.title == "Negroni")[0] }
        check.expect(negroni.base?.abv, 40, "a value written by version 3 holds the new field")
    }
}
