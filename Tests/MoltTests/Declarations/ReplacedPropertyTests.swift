import Foundation
import Testing
import Molt

/// A property deleted while a new property of the same name (another kind or an incompatible type) is added:
/// refused without a declaration, naming it; with `.replaced(_:of:)`, the old values or links are deleted, the new
/// property starts empty, and the diff, the history and the dropped data say so.
@Suite("Replaced properties")
struct ReplacedPropertyTests {
    /// One replacement of a `Library.v0()` property, and what the step says about it.
    struct Replacement: CustomTestStringConvertible, Sendable {
        var name: String
        var property: String
        /// Version 1's `Book`, with the new property in place of the old one.
        var change: @Sendable (inout Schema) -> Void
        /// The new property's value in every object: an attribute's (default or null), or nil for a relationship.
        var empty: Value?
        var line: String
        var dropped: DroppedData

        var testDescription: String { name }
    }

    static let replacements: [Replacement] = [
        Replacement(
            name: "to-many relationship → attribute (Mastodon 2 → 3: Status.mentions)", property: "tags",
            change: { schema in
                schema.edit("Book") { book in
                    book.relationships.removeAll { $0.name == "tags" }
                    book.attributes.append(Attribute("tags", .string, isOptional: true))
                }
            },
            empty: .null,
            line:
                "0 → 1 inferred: Attribute 'Book.tags' has been added in place of relationship 'Book.tags' (to-many 'Tag'), starting empty. Relationship 'Book.tags' has been replaced by attribute 'Book.tags' (string): its links are deleted (declared).",
            dropped: DroppedData(
                entity: "Book", property: "tags", isRelationship: true, count: 12, isDeclared: true, isReplaced: true)),
        Replacement(
            name: "to-one relationship → attribute", property: "author",
            change: { schema in
                schema.edit("Book") { book in
                    book.relationships.removeAll { $0.name == "author" }
                    book.attributes.append(Attribute("author", .string, default: "unknown"))
                }
                schema.edit("Author") { $0.editRelationship("books") { $0.inverse = nil } }
            },
            empty: "unknown",
            line:
                "0 → 1 inferred: Relationship 'Author.books' has changed its inverse. Attribute 'Book.author' has been added in place of relationship 'Book.author' (to-one 'Author'), starting empty. Relationship 'Book.author' has been replaced by attribute 'Book.author' (string): its links are deleted (declared).",
            dropped: DroppedData(
                entity: "Book", property: "author", isRelationship: true, count: 5, isDeclared: true, isReplaced: true)),
        Replacement(
            name: "attribute → to-one relationship", property: "cover",
            change: { schema in
                schema.edit("Book") { book in
                    book.attributes.removeAll { $0.name == "cover" }
                    book.relationships.append(Relationship("cover", to: "Tag"))
                }
            },
            empty: nil,
            line:
                "0 → 1 inferred: Relationship 'Book.cover' has been added in place of attribute 'Book.cover' (data), starting empty. Attribute 'Book.cover' has been replaced by relationship 'Book.cover' (to-one 'Tag'): its values are deleted (declared).",
            dropped: DroppedData(entity: "Book", property: "cover", count: 1, isDeclared: true, isReplaced: true)),
        Replacement(
            name: "attribute → to-many relationship", property: "code",
            change: { schema in
                schema.edit("Book") { book in
                    book.attributes.removeAll { $0.name == "code" }
                    book.relationships.append(Relationship("code", toMany: "Tag"))
                }
            },
            empty: nil,
            line:
                "0 → 1 inferred: Relationship 'Book.code' has been added in place of attribute 'Book.code' (uuid), starting empty. Attribute 'Book.code' has been replaced by relationship 'Book.code' (to-many 'Tag'): its values are deleted (declared).",
            dropped: DroppedData(entity: "Book", property: "code", count: 6, isDeclared: true, isReplaced: true)),
        Replacement(
            name: "attribute → attribute of an incompatible type", property: "title",
            change: { schema in
                schema.edit("Book") {
                    $0.editAttribute("title") {
                        $0.type = .int; $0.defaultValue = .int(0)
                    }
                }
            },
            empty: .int(0),
            line:
                "0 → 1 inferred: Attribute 'Book.title' has been added in place of attribute 'Book.title' (string), starting empty. Attribute 'Book.title' has been replaced by attribute 'Book.title' (int): its values are deleted (declared).",
            dropped: DroppedData(entity: "Book", property: "title", count: 6, isDeclared: true, isReplaced: true)),
    ]

    @Test(
        "Mastodon 2 → 3: a relationship turned into an attribute of the same name is refused, naming the declaration; nothing is written",
        arguments: StoreKind.durable)
    func undeclaredIsRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        try Library.makeStore(at: location, schema: Library.v0(), kind: kind)
        let state = FileState(location)
        let v1 = Library.v0().next(1, Self.replacements[0].change)
        let error = moltError { _ = try Store.open(at: location, schema: v1, options: kind.options) }
        #expect(error?.code == .migrationNotInferable)
        #expect(
            error?.message == """
                Molt cannot infer the migration from version 0 to 1:
                - Attribute 'Book.tags' was the relationship 'Book.tags' between versions 0 and 1; Molt cannot turn a relationship into an attribute by itself. Fill the attribute in a custom stage from version 0 to 1; or, if the new 'tags' replaces it (its links deleted, the new one starting empty), declare `Schema(version: 1, deleting: [.replaced("tags", of: "Book")])` (in a snapshot: "deletions" : [{"entity" : "Book", "property" : "tags", "replaced" : true}]).
                """)
        #expect(FileState(location) == state)
        #expect(try Store.inspect(at: location).version == 0)
    }

    @Test(
        "a declared replacement deletes the old values or links, starts the new property empty, and says so",
        arguments: StoreKind.durable, replacements)
    func declaredReplacement(kind: StoreKind, replacement: Replacement) throws {
        let dir = TemporaryDirectory()
        var v1 = Library.v0().next(1, replacement.change)
        v1.deletions = [.replaced(replacement.property, of: "Book")]
        let (before, after, history) = try Library.migrate(kind, from: Library.v0(), to: v1, in: dir)
        let book = v1.entity(named: "Book")!
        // Every other value and link is kept, Author.books included when Book.author is replaced.
        let expected = before.mapping("Book") { object in
            object.values[replacement.property] = nil
            object.links[replacement.property] = nil
            if let empty = replacement.empty { object.values[replacement.property] = empty }
            if book.relationship(named: replacement.property) != nil { object.links[replacement.property] = [] }
        }
        #expect(after == expected)
        #expect(history.map(\.steps) == [[replacement.line]])
        #expect(history.last?.dropped == [replacement.dropped])
        #expect(
            history.last?.stepRecords.first?.summary == "0 → 1 inferred: dropped \(replacement.dropped.description)")
        // The store reopens at version 1 and takes values and links in the new property.
        let store = try Store.open(at: try kind.location(in: dir), schema: v1, options: kind.options)
        defer { try? store.close() }
        try store.write { objects in
            let first = try objects.object("Book", primaryKey: "isbn-0")!
            if let relationship = book.relationship(named: replacement.property) {
                let tag = try objects.fetch("Tag", where: .equal("label", "sf")).first!
                if relationship.kind == .toOne {
                    try objects.set(replacement.property, of: first, to: tag)
                } else {
                    try objects.add(tag, to: replacement.property, of: first)
                }
                #expect(try objects.destinations(replacement.property, of: first).map { $0["label"] } == ["sf"])
            }
        }
    }

    @Test(
        "a custom stage reads the replaced property on the old side and fills the new one of the same name",
        arguments: StoreKind.durable)
    func customStage(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        var v1 = Library.v0().next(1) { schema in
            Self.replacements[0].change(&schema)
            Self.replacements[4].change(&schema)
        }
        v1.deletions = [.replaced("tags", of: "Book"), .replaced("title", of: "Book")]
        let stage = MigrationStage.custom(from: 0, to: 1) { migration in
            try migration.enumerateObjects(ofType: "Book") { old, new in
                let labels = try migration.old.destinations("tags", of: old.dynamicObject).compactMap {
                    $0["label"].string
                }.sorted()
                new["tags"] = .string(labels.joined(separator: ","))
                new["title"] = .int(Int64(old["title"].string?.count ?? 0))
            }
        }
        let location = try kind.location(in: dir)
        let before = try Library.makeStore(at: location, schema: Library.v0(), kind: kind)
        let plan = try MigrationPlan(schemas: [Library.v0(), v1], stages: [stage])
        let store = try Store.open(at: location, schema: v1, options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        let labels = Dictionary(
            uniqueKeysWithValues: before.entities["Tag"]!.map { ($0.key, $0.value.values["label"]!.string!) })
        let expected = before.mapping("Book") { object in
            object.values["tags"] = .string(object.links["tags"]!.map { labels[$0]! }.sorted().joined(separator: ","))
            object.values["title"] = .int(Int64(object.values["title"]!.string!.count))
            object.links["tags"] = nil
        }
        #expect(try StoreDump(store) == expected)
        let dropped = try store.history().last?.dropped.map { $0.description }
        #expect(dropped == ["6 values of 'Book.title' (replaced)", "12 links of 'Book.tags' (replaced)"])
    }

    @Test("the diff pairs nothing across a replacement: no likely rename, a declared loss")
    func diff() throws {
        var v1 = Library.v0().next(1, Self.replacements[4].change)
        v1.deletions = [.replaced("title", of: "Book")]
        let diff = SchemaDiff(from: Library.v0(), to: v1)
        #expect(diff.isInferable)
        #expect(diff.likelyRenames.isEmpty)
        #expect(
            diff.losses.map { [$0.entity, $0.property ?? "", "\($0.isDeclared)", "\($0.isReplaced)"] } == [
                ["Book", "title", "true", "true"]
            ])
        #expect(diff.originalName(ofProperty: "title", inEntity: "Book") == nil)
    }

    @Test("a snapshot records a replacement as \"replaced\": true, and reads it back")
    func snapshot() throws {
        var v1 = Library.v0().next(1, Self.replacements[0].change)
        v1.deletions = [.replaced("tags", of: "Book"), .entity("Gone")]
        let json = String(decoding: try v1.snapshotJSON(), as: UTF8.self)
        #expect(json.contains(#""property" : "tags",\#n      "replaced" : true"#))
        #expect(!json.contains(#""entity" : "Gone",\#n      "replaced""#))
        #expect(try Schema(snapshotJSON: Data(json.utf8)).deletions == v1.deletions)
        let broken = json.replacingOccurrences(of: #""property" : "tags","#, with: "")
        #expect(
            moltError { _ = try Schema(snapshotJSON: Data(broken.utf8)) }?.message
                == "The schema snapshot declares entity 'Book' \"replaced\" without a \"property\": only a property is replaced. Name the replaced property, or remove \"replaced\" to delete the entity."
        )
    }
}
