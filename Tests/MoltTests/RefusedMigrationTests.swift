import Foundation
import Testing
import Molt

/// Changes Molt refuses to infer: the exact message, and not a byte written.
@Suite("Refused migrations")
struct RefusedMigrationTests {
    /// A change that must be refused, and the message's line for it.
    struct Refusal: CustomTestStringConvertible, Sendable {
        var name: String
        var change: @Sendable (inout Schema) -> Void
        var line: String

        var testDescription: String { name }
    }

    static let hint = "a custom stage from version 0 to 1"

    static let refusals: [Refusal] = [
        Refusal(
            name: "narrowing double → int",
            change: { $0.edit("Book") { $0.editAttribute("price") { $0.type = .int } } },
            line:
                "Attribute 'Book.price' has changed type from 'double' to 'int' between versions 0 and 1; this conversion may lose data, so Molt will not infer it. Convert each value in \(hint) (for example with `enumerateObjects(ofType: \"Book\")`, or a mapping expression); or, if the new 'price' replaces it (its values deleted, the new one starting empty), declare `Schema(version: 1, deleting: [.replaced(\"price\", of: \"Book\")])` (in a snapshot: \"deletions\" : [{\"entity\" : \"Book\", \"property\" : \"price\", \"replaced\" : true}])."
        ),
        Refusal(
            name: "string → int",
            change: { $0.edit("Book") { $0.editAttribute("title") { $0.type = .int } } },
            line:
                "Attribute 'Book.title' has changed type from 'string' to 'int' between versions 0 and 1; this conversion may lose data, so Molt will not infer it. Convert each value in \(hint) (for example with `enumerateObjects(ofType: \"Book\")`, or a mapping expression); or, if the new 'title' replaces it (its values deleted, the new one starting empty), declare `Schema(version: 1, deleting: [.replaced(\"title\", of: \"Book\")])` (in a snapshot: \"deletions\" : [{\"entity\" : \"Book\", \"property\" : \"title\", \"replaced\" : true}])."
        ),
        Refusal(
            name: "required attribute added without a default",
            change: { $0.edit("Book") { $0.attributes.append(Attribute("rating", .int)) } },
            line:
                "Attribute 'Book.rating' has been added as required with no default value between versions 0 and 1, so existing objects would have no value. Give it a default (`default: …`), make it optional, or set its value in \(hint)."
        ),
        Refusal(
            name: "optional → required without a default",
            change: { $0.edit("Book") { $0.editAttribute("price") { $0.isOptional = false } } },
            line:
                "Attribute 'Book.price' has been made required between versions 0 and 1, but it has no default value for the objects where it is null. Give it a default (`default: …`), or fill the null values in \(hint)."
        ),
        Refusal(
            name: "ambiguous attribute rename",
            change: {
                $0.edit("Book") {
                    $0.editAttribute("title") {
                        $0.name = "name"; $0.originalName = "title"
                    }
                    $0.attributes.append(Attribute("heading", .string, originalName: "title"))
                }
            },
            line:
                "'Book.heading' says it was renamed from 'title', but 'Book.name' also comes from 'title' between versions 0 and 1; the rename is ambiguous. Remove one of the `originalName` hints, or copy the values in \(hint)."
        ),
        Refusal(
            name: "ambiguous entity rename",
            change: {
                $0.edit("Tag") {
                    $0.name = "Label"; $0.originalName = "Tag"
                }
                $0.edit("Book") { $0.editRelationship("tags") { $0.destination = "Label" } }
                $0.entities.append(Entity("Keyword", originalName: "Tag") { Attribute("label", .string) })
            },
            line:
                "Entity 'Keyword' says it was renamed from 'Tag', but 'Label' also comes from 'Tag' between versions 0 and 1; the rename is ambiguous. Keep one `originalName: \"Tag\"`, or split the entity in \(hint)."
        ),
        Refusal(
            name: "to-many → to-one",
            change: { $0.edit("Book") { $0.editRelationship("tags") { $0 = Relationship("tags", to: "Tag") } } },
            line:
                "Relationship 'Book.tags' has changed from to-many to to-one between versions 0 and 1; objects linked to several others would lose links. Choose the one to keep in \(hint)."
        ),
        Refusal(
            name: "relationship destination change",
            change: {
                $0.entities.append(Entity("Genre") { Attribute("label", .string) })
                $0.edit("Book") { $0.editRelationship("tags") { $0.destination = "Genre" } }
            },
            line:
                "Relationship 'Book.tags' now points to 'Genre' instead of 'Tag' between versions 0 and 1; Molt cannot know which new objects to link. Link them in \(hint); or, if the new 'tags' replaces it (its links deleted, the new one starting empty), declare `Schema(version: 1, deleting: [.replaced(\"tags\", of: \"Book\")])` (in a snapshot: \"deletions\" : [{\"entity\" : \"Book\", \"property\" : \"tags\", \"replaced\" : true}])."
        ),
    ]

    @Test(
        "a change that cannot be inferred is refused with its exact message, and nothing is written",
        arguments: StoreKind.durable, refusals)
    func refused(kind: StoreKind, refusal: Refusal) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        let v0 = Library.v0()
        let before = try Library.makeStore(at: url, schema: v0, kind: kind)
        let bytes = FileState(url)
        let v1 = v0.next(1, refusal.change)
        try v1.validate()

        let error = moltError { _ = try Store.open(at: url, schema: v1, options: kind.options) }
        #expect(error?.code == .migrationNotInferable)
        #expect(error?.message == "Molt cannot infer the migration from version 0 to 1:\n- \(refusal.line)")
        #expect(FileState(url) == bytes)
        #expect(try Store.version(at: url) == 0)
        #expect(try StoreDump(at: url, schema: v0, options: kind.options) == before)
    }

    @Test("a plan whose versions cannot be inferred is refused when it is built, naming the version")
    func refusedPlan() throws {
        let v0 = Library.v0()
        let v1 = v0.next(1) { $0.edit("Book") { $0.editAttribute("price") { $0.type = .int } } }
        let error = moltError { _ = try MigrationPlan(schemas: [v0, v1]) }
        #expect(error?.code == .invalidPlan)
        #expect(
            error?.message
                == "Invalid migration plan: a store at version 0 cannot reach version 1. Molt cannot infer the migration from version 0 to 1:\n- \(Self.refusals[0].line)"
        )
    }

    @Test("every refused change of a step is listed, not only the first")
    func everyRefusalListed() throws {
        let v0 = Library.v0()
        let v1 = v0.next(1) {
            Self.refusals[0].change(&$0)
            Self.refusals[2].change(&$0)
        }
        let diff = SchemaDiff(from: v0, to: v1)
        #expect(diff.refusedChanges.compactMap(\.refusal) == [Self.refusals[0].line, Self.refusals[2].line])
        #expect(!diff.isInferable)
    }
}
