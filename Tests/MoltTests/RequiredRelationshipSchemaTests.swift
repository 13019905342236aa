import Foundation
import Molt
import Testing

/// Required relationships in schemas: the snapshot field, validation, the diff and the data-dependent steps.
@Suite("Required relationships in schemas")
struct RequiredRelationshipSchemaTests {
    static let optional = RequiredRelationshipTests.schema(1, required: false)
    static let required = RequiredRelationshipTests.schema(2, required: true)

    @Test("a snapshot writes 'optional: false' on a required relationship only, so older snapshots read unchanged")
    func snapshot() throws {
        func fields(_ relationship: Relationship) throws -> [String: String] {
            let object = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(relationship))
            return ((object as? [String: Any]) ?? [:]).mapValues { "\($0)" }
        }
        #expect(
            try fields(Relationship("author", to: "User")) == [
                "name": "author", "destination": "User", "kind": "toOne", "deleteRule": "nullify",
            ])
        #expect(try fields(Relationship("author", to: "User", isOptional: false))["optional"] == "0")
        #expect(try Schema(snapshotJSON: try Self.required.snapshotJSON()) == Self.required)
        let old = #"{"name": "author", "destination": "User", "kind": "toOne", "deleteRule": "nullify"}"#
        #expect(try JSONDecoder().decode(Relationship.self, from: Data(old.utf8)).isOptional)
        // Making it required changes the content hash: a store at the optional version has another schema.
        var relaxed = Self.required
        relaxed.edit("Post") { $0.relationships[0].isOptional = true }
        #expect(Self.required.contentHash != relaxed.contentHash)
    }

    @Test("a required to-many relationship is refused, naming it and the minimum count to give instead")
    func requiredToMany() throws {
        var schema = Self.optional
        schema.edit("User") { $0.relationships[0].isOptional = false }
        let error = moltError { try schema.validate() }
        #expect(
            error?.message
                == "Invalid schema version 1: relationship 'User.posts' is to-many and cannot be required; give it a minimum count instead (`minimumCount: 1`: every 'User' object links one 'Post' or more)."
        )
    }

    @Test("the diff names optional ↔ required, both inferable")
    func diff() throws {
        let made = SchemaDiff(from: Self.optional, to: Self.required).changes
        #expect(made.map(\.description) == ["Relationship 'Post.author' has been made required."])
        #expect(made.map(\.isInferable) == [true])
        var back = Self.optional
        back.version = 3
        let relaxed = SchemaDiff(from: Self.required, to: back).changes
        #expect(relaxed.map(\.description) == ["Relationship 'Post.author' has been made optional."])
        #expect(relaxed.map(\.isInferable) == [true])
    }

    @Test("making a relationship required, or adding a required one, is a data-dependent step; relaxing it is not")
    func dataDependencies() throws {
        let made = SchemaDiff(from: Self.optional, to: Self.required).dataDependencies(.inferred)
        #expect(
            made.map(\.description) == [
                "step 1 → 2 depends on the data: 'Post.author' becomes required (it was optional): a store at version 1 where a 'Post' object links to nothing through 'author' is refused. Link every 'Post' object in a custom stage from version 1 to 2 (`migration.new.set(\"author\", of: object, to: destination)`), delete the ones that have none, or keep 'Post.author' optional."
            ])
        #expect(made.first?.kind == .requiredLink)
        #expect(made.first?.witness == .object(entity: "Post", attribute: nil, value: .null))
        var added = Self.optional
        added.version = 2
        added.edit("User") { $0.relationships.append(Relationship("mentor", to: "User", isOptional: false)) }
        let staged = SchemaDiff(from: Self.optional, to: added).dataDependencies(.stage)
        #expect(
            staged.map(\.description) == [
                "step 1 → 2 depends on the data: 'User.mentor' is added as required: a store at version 1 where a 'User' object exists (it starts with no 'mentor') is refused. Make the stage from version 1 to 2 link every 'User' object through 'mentor' (or delete the ones that have none), or keep 'User.mentor' optional."
            ])
        var back = Self.optional
        back.version = 3
        #expect(SchemaDiff(from: Self.required, to: back).dataDependencies(.inferred).isEmpty)
    }
}
