import Foundation
import Testing
@testable import Molt

/// Seed 003: Realm basics (automatic add/delete, an initial value through `create`, rename, combine), and
/// seed 004: four SwiftData note models into one shared structure, in SwiftData's two phases, without its trap.
@Suite("Seeds 003 and 004")
struct Seed003And004Tests {
    // MARK: Seed 003

    static let person1 = Schema(version: 0) {
        Entity("Person") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("age", .int)
        }
    }
    static let person2 = Schema(version: 1) {
        Entity("Person") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("email", .string, isOptional: true)
        }
    }
    static let person3 = Schema(version: 2) {
        Entity("Person") {
            Attribute("fullName", .string)
            Attribute("email", .string, isOptional: true)
        }
        Entity("Settings") {
            Attribute("theme", .string)
        }
    }

    @Test(
        "an optional property added and one deleted need only the version; a combine and an initial object need a block",
        arguments: StoreKind.durable)
    func seed003(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        do {
            let store = try Store.open(at: try kind.location(in: dir), schema: Self.person1, options: kind.options)
            try store.write { objects in
                try objects.insert("Person", ["firstName": "Taro", "lastName": "Yamada", "age": 30])
                try objects.insert("Person", ["firstName": "Hanako", "lastName": "Sato", "age": 25])
            }
            try store.close()
        }
        do {
            // 0 → 1: automatic, no code.
            let store = try Store.open(at: try kind.location(in: dir), schema: Self.person2, options: kind.options)
            #expect(try store.read { try $0.fetch("Person").map { $0["email"] } } == [.null, .null])
            try store.close()
        }
        let plan = try MigrationPlan(schemas: [Self.person1, Self.person2, Self.person3], stages: [Self.combineStage])
        let store = try Store.open(
            at: try kind.location(in: dir), schema: Self.person3, options: kind.options.migrating(with: plan))
        try store.read { (objects: Objects) throws in
            #expect(try objects.fetch("Person").map { $0["fullName"] } == ["Taro Yamada", "Hanako Sato"])
            #expect(try objects.fetch("Settings").map { $0["theme"] } == ["light"])
        }
    }

    /// 1 → 2: combine the names, and create the one Settings object (Realm's `migration.create`).
    static let combineStage = MigrationStage.custom(from: 1, to: 2) { migration in
        try migration.enumerateObjects(ofType: "Person") { old, new in
            new["fullName"] = .string("\(old["firstName"].string ?? "") \(old["lastName"].string ?? "")")
        }
        try migration.create("Settings", value: ["theme": "light"])
    }

    // MARK: Seed 004

    static let kinds = ["Wine": "grape", "Coffee": "bean", "Whiskey": "distillery", "Cocktail": "recipe"]

    static let notes1 = Schema(
        version: 1,
        entities: kinds.keys.sorted().map { kind in
            Entity(
                "\(kind)Note",
                attributes: [
                    Attribute("name", .string), Attribute(kinds[kind]!, .string), Attribute("rating", .int),
                ])
        })

    /// Four models conforming to one shape (title, rating, ordered ingredients), sharing `Ingredient`.
    static let notes2 = Schema(
        version: 2,
        entities: kinds.keys.sorted().map { kind in
            Entity(
                "\(kind)Note", attributes: [Attribute("title", .string), Attribute("rating", .int)],
                relationships: [
                    Relationship("ingredients", toMany: "Ingredient", ordered: true, deleteRule: .cascade)
                ])
        } + [Entity("Ingredient", attributes: [Attribute("name", .string), Attribute("detail", .string)])])

    /// 1 → 2 in SwiftData's two phases: willMigrate creates the shared Ingredients, didMigrate links them.
    static let tastingStage = MigrationStage.custom(
        from: 1, to: 2,
        willMigrate: { migration in
            // Create the shared Ingredients from the old, type-specific field…
            for (k, field) in Self.kinds {
                try migration.enumerateOldObjects(ofType: "\(k)Note") { old in
                    try migration.create("Ingredient", value: ["name": .string(field), "detail": old[field]])
                }
            }
        },
        didMigrate: { migration in
            // …and find them again in the second phase: same context, nothing reset, nothing in statics.
            for (k, field) in Self.kinds {
                try migration.enumerateObjects(ofType: "\(k)Note") { old, new in
                    new["title"] = old["name"]
                    let ingredient = try #require(
                        try migration.new.fetch(
                            "Ingredient", where: .equal("name", .string(field)) && .equal("detail", old[field])
                        ).first)
                    try migration.new.set("ingredients", of: new.dynamicObject, to: [ingredient])
                }
            }
        })

    @Test(
        "four note types map into the shared structure; what willMigrate creates is there in didMigrate",
        arguments: StoreKind.durable)
    func seed004(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        var expected: [String: [(name: String, detail: String, rating: Int64)]] = [:]
        do {
            let store = try Store.open(at: try kind.location(in: dir), schema: Self.notes1, options: kind.options)
            try store.write { objects in
                for (k, field) in Self.kinds.sorted(by: { $0.key < $1.key }) {
                    for i in 0..<5 {
                        let row = (name: "\(k) \(i)", detail: "\(field) \(i)", rating: Int64(i))
                        expected["\(k)Note", default: []].append(row)
                        try objects.insert(
                            "\(k)Note",
                            ["name": .string(row.name), field: .string(row.detail), "rating": .int(row.rating)])
                    }
                }
            }
            try store.close()
        }
        let plan = try MigrationPlan(schemas: [Self.notes1, Self.notes2], stages: [Self.tastingStage])
        let store = try Store.open(
            at: try kind.location(in: dir), schema: Self.notes2, options: kind.options.migrating(with: plan))
        try store.read { (objects: Objects) throws in
            #expect(try objects.count("Ingredient") == 20)
            for (entity, rows) in expected {
                let notes = try objects.fetch(entity)
                #expect(notes.map { $0["title"] } == rows.map { .string($0.name) })
                #expect(notes.map { $0["rating"] } == rows.map { .int($0.rating) })
                for (note, row) in zip(notes, rows) {
                    let ingredients = try objects.destinations("ingredients", of: note)
                    #expect(ingredients.map { $0["detail"] } == [.string(row.detail)])
                }
            }
        }
    }

    /// Version 2 of seed 004 as one `Note` replacing the four note entities.
    static let mergedNotes = Schema(version: 2) {
        Entity("Note") {
            Attribute("title", .string)
            Attribute("kind", .string)
            Attribute("rating", .int)
        }
    }

    @Test(
        "the seed-004 trap one level up: a plan that forgets the stage is refused, naming every entity, not run",
        arguments: StoreKind.files)
    func seed004ForgottenStage(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let store = try Store.open(at: url, schema: Self.notes1, options: kind.options)
        try store.write { objects in
            for (k, field) in Self.kinds { try objects.insert("\(k)Note", ["name": "a", field: "b", "rating": 1]) }
        }
        try store.close()
        let bytes = FileState(url)
        let plan = try MigrationPlan(schemas: [Self.notes1, Self.mergedNotes])
        let error = moltError {
            _ = try Store.open(at: url, schema: Self.mergedNotes, options: kind.options.migrating(with: plan))
        }
        #expect(error?.code == .dataLossRefused)
        for k in Self.kinds.keys {
            #expect(
                error?.message.contains(
                    "Version 2 removes entity '\(k)Note', which holds 1 object; they would be deleted. If its objects become other objects, write a custom stage from version 1 to 2 that reads them"
                ) == true)
        }
        #expect(FileState(url) == bytes)
    }
}
