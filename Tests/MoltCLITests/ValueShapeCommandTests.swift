import Foundation
import Molt
import Testing

/// `molt diff` and `molt migrate` on snapshots whose attributes record the shape of their JSON values.
@Suite("molt diff and migrate on shapes of JSON values")
struct ValueShapeCommandTests {
    static func schema(_ version: Int, _ fields: [ValueShape.Field]) -> Schema {
        Schema(version: version) {
            Entity("Recipe") {
                Attribute("title", .string)
                Attribute("main", .string, shape: .object(fields))
            }
        }
    }

    static let v1 = schema(1, [.init("name", .string)])
    static let v2 = schema(2, [.init("name", .string), .init("unit", .string), .init("note", .string, .optional)])

    @Test("diff names each field added, and the migration is inferable")
    func diff() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Self.v1, to: dir.file("1.json"))
        try Fixtures.write(Self.v2, to: dir.file("2.json"))
        let result = try Molt.run(["diff", "1.json", "2.json"], in: dir.url)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                Version 1 → 2: 2 changes
                  inferable    Field 'note' of attribute 'Recipe.main' has been added (optional).
                  inferable    Field 'unit' of attribute 'Recipe.main' has been added (required).

                Molt can infer this migration.

                """)
    }

    @Test("migrate from snapshots checks every value against the new shape, and refuses writing nothing")
    func migrate() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Self.v2, to: dir.file("2.json"))
        let url = dir.file("recipes.sqlite")
        let store = try Store.open(at: url, schema: Self.v1)
        try store.write { objects in
            try objects.insert("Recipe", ["title": "Omelette", "main": #"{"name":"eggs"}"#])
        }
        try store.close()
        let before = try Data(contentsOf: url)
        let result = try Molt.run(["migrate", url.path, "--to", "2.json"], in: dir.url)
        #expect(result.status != 0, "\(result)")
        #expect(
            result.stderr.contains(
                "1 'Recipe' object (_id 1) holds one; in _id 1, field 'unit' is missing."), "\(result)")
        #expect(try Data(contentsOf: url) == before)
    }
}
