import Foundation
import Testing
import Molt

/// Invalid schemas are rejected with a message naming the culprit, before any store is touched.
@Suite("Schema validation")
struct SchemaValidationTests {
    /// An invalid schema and the exact message that rejects it.
    struct Invalid: CustomTestStringConvertible, Sendable {
        var name: String
        var schema: Schema
        var message: String
        var entity: String?
        var property: String?
        var testDescription: String { name }
    }

    static let prefix = "Invalid schema version 3: "

    static let cases: [Invalid] = [
        Invalid(
            name: "duplicate entity",
            schema: Schema(version: 3) {
                Entity("Note") { Attribute("text", .string) }
                Entity("Note") { Attribute("body", .string) }
            },
            message: "entity 'Note' is declared twice.", entity: "Note"),
        Invalid(
            name: "duplicate attribute",
            schema: Schema(version: 3) {
                Entity("Note") {
                    Attribute("text", .string); Attribute("text", .int)
                }
            },
            message: "property 'Note.text' is declared twice.", entity: "Note", property: "text"),
        Invalid(
            name: "attribute and relationship of one name",
            schema: Schema(version: 3) {
                Entity("Folder") { Attribute("name", .string) }
                Entity("Note") {
                    Attribute("folder", .string); Relationship("folder", to: "Folder")
                }
            },
            message: "property 'Note.folder' is declared twice.", entity: "Note", property: "folder"),
        Invalid(
            name: "relationship to a missing entity",
            schema: Schema(version: 3) { Entity("Note") { Relationship("folder", to: "Folder") } },
            message: "relationship 'Note.folder' points to entity 'Folder', which is not in the schema.",
            entity: "Note", property: "folder"),
        Invalid(
            name: "default of the wrong type",
            schema: Schema(version: 3) { Entity("Note") { Attribute("count", .int, default: "ten") } },
            message: "the default value \"ten\" of attribute 'Note.count' is not of type 'int'.", entity: "Note",
            property: "count"),
        Invalid(
            name: "default that does not fit a uuid",
            schema: Schema(version: 3) { Entity("Note") { Attribute("key", .uuid, default: "not-a-uuid") } },
            message: "the default value \"not-a-uuid\" of attribute 'Note.key' is not of type 'uuid'.", entity: "Note",
            property: "key"),
        Invalid(
            name: "default that is not a finite number",
            schema: Schema(version: 3) { Entity("Note") { Attribute("ratio", .double, default: .double(.infinity)) } },
            message:
                "the default value inf of attribute 'Note.ratio' is not a finite number, which a schema snapshot cannot record.",
            entity: "Note", property: "ratio"),
        Invalid(
            name: "inverse that does not exist",
            schema: Schema(version: 3) {
                Entity("Folder") { Attribute("name", .string) }
                Entity("Note") { Relationship("folder", to: "Folder", inverse: "notes") }
            },
            message: "relationship 'Note.folder' names inverse 'Folder.notes', which does not exist.", entity: "Note",
            property: "folder"),
        Invalid(
            name: "inverse that does not point back",
            schema: Schema(version: 3) {
                Entity("Folder") { Relationship("notes", toMany: "Note", inverse: "owner") }
                Entity("Note") {
                    Relationship("folder", to: "Folder", inverse: "notes")
                    Relationship("owner", to: "Folder")
                }
            },
            message:
                "relationship 'Folder.notes' names inverse 'Note.owner', which does not point back to it; declare `inverse: \"notes\"` on both sides.",
            entity: "Folder", property: "notes"),
        Invalid(
            name: "reserved attribute name",
            schema: Schema(version: 3) { Entity("Note") { Attribute("_id", .int) } },
            message: "Attribute 'Note' name '_id' is reserved by Molt; choose another name.", entity: "Note",
            property: "_id"),
        Invalid(
            name: "reserved entity name",
            schema: Schema(version: 3) { Entity("_molt_notes") { Attribute("text", .string) } },
            message: "Entity name '_molt_notes' is reserved by Molt; choose another name.", entity: "_molt_notes"),
        Invalid(
            name: "empty name",
            schema: Schema(version: 3) { Entity("Note") { Attribute("", .string) } },
            message: "Attribute 'Note' has an empty name.", entity: "Note", property: ""),
        Invalid(
            name: "name with a space",
            schema: Schema(version: 3) { Entity("My Note") { Attribute("text", .string) } },
            message: "Entity name 'My Note' must be made of letters, digits and '_', and not start with a digit.",
            entity: "My Note"),
        Invalid(
            name: "primary key that is not an attribute",
            schema: Schema(version: 3) { Entity("Note", primaryKey: "key") { Attribute("text", .string) } },
            message: "primary key 'Note.key' is not an attribute of the entity.", entity: "Note", property: "key"),
        Invalid(
            name: "optional primary key",
            schema: Schema(version: 3) {
                Entity("Note", primaryKey: "key") { Attribute("key", .string, isOptional: true) }
            },
            message: "primary key 'Note.key' must not be optional.", entity: "Note", property: "key"),
        Invalid(
            name: "index on a missing attribute",
            schema: Schema(version: 3) {
                Entity("Note") {
                    Attribute("text", .string); Index(["txt"])
                }
            },
            message:
                "an index of 'Note' names 'txt', which is neither an attribute nor a to-one relationship of the entity.",
            entity: "Note", property: "txt"),
        Invalid(
            name: "join table named like an entity",
            schema: Schema(version: 3) {
                Entity("Note") { Relationship("tags", toMany: "Note_tags") }
                Entity("Note_tags") { Attribute("label", .string) }
            },
            message:
                "relationship 'Note.tags' is stored in table 'Note_tags', which is also the name of an entity; rename one of them.",
            entity: "Note", property: "tags"),
        Invalid(
            name: "entities that differ only in case",
            schema: Schema(version: 3) {
                Entity("Note") { Attribute("text", .string) }
                Entity("NOTE") { Attribute("text", .string) }
            },
            message:
                "entities 'Note' and 'NOTE' differ only in case, which the storage engines do not tell apart; rename one of them.",
            entity: "NOTE"),
        Invalid(
            name: "properties that differ only in case",
            schema: Schema(version: 3) {
                Entity("Note") {
                    Attribute("title", .string); Attribute("Title", .string)
                }
            },
            message:
                "properties 'Note.title' and 'Note.Title' differ only in case, which the storage engines do not tell apart; rename one of them.",
            entity: "Note", property: "Title"),
        Invalid(
            name: "join table named like an entity but for case",
            schema: Schema(version: 3) {
                Entity("Note") { Relationship("tags", toMany: "NOTE_TAGS") }
                Entity("NOTE_TAGS") { Attribute("label", .string) }
            },
            message:
                "relationship 'Note.tags' is stored in table 'Note_tags', which is also the name of an entity; rename one of them.",
            entity: "Note", property: "tags"),
        Invalid(
            name: "a name SQLite reserves",
            schema: Schema(version: 3) { Entity("sqlite_notes") { Attribute("text", .string) } },
            message: "Entity name 'sqlite_notes' is reserved by Molt; choose another name.", entity: "sqlite_notes"),
        Invalid(
            name: "the identifier column in another case",
            schema: Schema(version: 3) { Entity("Note") { Attribute("_ID", .int) } },
            message: "Attribute 'Note' name '_ID' is reserved by Molt; choose another name.", entity: "Note",
            property: "_ID"),
        Invalid(
            name: "a deleted entity that the schema still has",
            schema: Schema(version: 3, deleting: [.entity("Note")]) { Entity("Note") { Attribute("text", .string) } },
            message:
                "entity 'Note' is declared deleted, but entity 'Note' still comes from it; remove the deletion, or the entity.",
            entity: "Note"),
        Invalid(
            name: "a deleted property that the entity still has under a new name",
            schema: Schema(version: 3, deleting: [.property("text", of: "Note")]) {
                Entity("Note") { Attribute("body", .string, originalName: "text") }
            },
            message:
                "property 'Note.text' is declared deleted, but 'Note.body' still comes from it (originalName \"text\"); remove the deletion, or the originalName.",
            entity: "Note", property: "text"),
        Invalid(
            name: "a deleted property that the entity still has under its name: the fix is a replacement",
            schema: Schema(version: 3, deleting: [.property("text", of: "Note")]) {
                Entity("Note") { Attribute("text", .int) }
            },
            message:
                "property 'Note.text' is declared deleted, but entity 'Note' still has a property 'text'. If the new 'text' replaces it (another kind or type, starting empty), declare .replaced(\"text\", of: \"Note\") (in a snapshot: {\"entity\" : \"Note\", \"property\" : \"text\", \"replaced\" : true}); otherwise remove the deletion, or the property.",
            entity: "Note", property: "text"),
        Invalid(
            name: "a replaced property with no new property of its name",
            schema: Schema(version: 3, deleting: [.replaced("text", of: "Note")]) {
                Entity("Note") { Attribute("body", .string) }
            },
            message:
                "property 'Note.text' is declared replaced, but no entity of this version has a property 'text' that comes from entity 'Note'. Add the new property, or declare a plain deletion: .property(\"text\", of: \"Note\") (in a snapshot, without \"replaced\").",
            entity: "Note", property: "text"),
        Invalid(
            name: "a replaced property that another property says it comes from",
            schema: Schema(version: 3, deleting: [.replaced("text", of: "Note")]) {
                Entity("Note") {
                    Attribute("text", .int)
                    Attribute("body", .string, originalName: "text")
                }
            },
            message:
                "property 'Note.text' is declared replaced, but 'Note.body' says it comes from it (originalName \"text\"); a replaced property's values are deleted, not carried. Remove the originalName, or the replacement.",
            entity: "Note", property: "text"),
        Invalid(
            name: "a property both deleted and replaced",
            schema: Schema(version: 3, deleting: [.replaced("text", of: "Note"), .property("text", of: "Note")]) {
                Entity("Note") { Attribute("text", .int) }
            },
            message: "the deletion of 'Note.text' is declared twice.", entity: "Note"),
    ]

    @Test("an invalid schema is rejected with an exact message naming the culprit", arguments: cases)
    func invalid(_ invalid: Invalid) throws {
        let error = moltError { try invalid.schema.validate() }
        #expect(error?.code == .invalidSchema)
        #expect(error?.message == Self.prefix + invalid.message)
        #expect(error?.entity == invalid.entity)
        #expect(error?.property == invalid.property)
        // The same schema is refused by a store and by a plan.
        #expect(moltError { _ = try Store.inMemory(schema: invalid.schema) }?.message == Self.prefix + invalid.message)
    }

    @Test("a negative version is rejected")
    func negativeVersion() {
        let error = moltError { try Schema(version: -1) { Entity("Note") { Attribute("text", .string) } }.validate() }
        #expect(error?.message == "Invalid schema version -1: the version must not be negative.")
    }

    @Test("a version too large for a store to record is rejected")
    func hugeVersion() {
        let error = moltError { try Schema(version: .max) { Entity("Note") { Attribute("text", .string) } }.validate() }
        #expect(
            error?.message
                == "Invalid schema version \(Int.max): the version must not be greater than 2147483646 (stores record it as a 32-bit number)."
        )
    }

    @Test("an entity with more columns than a table may have on either engine is rejected; one at the limit passes")
    func tooManyColumns() throws {
        func schema(_ attributes: Int) -> Schema {
            Schema(
                version: 1,
                entities: [
                    Entity("Wide", attributes: (0..<attributes).map { Attribute("a\($0)", .string, isOptional: true) })
                ])
        }
        try schema(1_599).validate()
        let error = moltError { try schema(1_600).validate() }
        #expect(
            error?.message
                == "Invalid schema version 1: entity 'Wide' needs 1601 columns (_id, its attributes and its to-one relationships), more than the 1600 a table may have (PostgreSQL's limit; SQLite's is 2,000). Move some attributes to another entity linked by a to-one relationship."
        )
    }

    @Test("a valid schema with every type, default and relationship kind passes")
    func valid() throws {
        try Library.v0(orderedTags: true, bookIndexes: [Index(["title", "pages"], unique: true)]).validate()
        try RelationshipTests.schema().validate()
        try SchemaSnapshotTests.everything().validate()
    }
}
