import Foundation
import Molt
import Testing

/// The two changes real apps shipped that a snapshot and a mapping file could not state: a property replaced by
/// one of the same name (Mastodon 2 → 3, `Status.mentions`), and an entity emptied (five WooCommerce steps).
@Suite("molt and declared replacements and emptied entities")
struct DeclaredChangeTests {
    static let v2 = Schema(version: 2) {
        Entity("Account") { Attribute("name", .string) }
        Entity("Status") {
            Attribute("text", .string)
            Relationship("mentions", toMany: "Account")
        }
    }
    /// Mastodon's version 3: `mentions` is now an attribute; the links are deleted, as Core Data does.
    static let v3 = Schema(version: 3, deleting: [.replaced("mentions", of: "Status")]) {
        Entity("Account") { Attribute("name", .string) }
        Entity("Status") {
            Attribute("text", .string)
            Attribute("mentions", .string, isOptional: true)
        }
    }

    struct Setup {
        let dir = TemporaryDirectory()
        let store: URL

        init() throws {
            store = dir.file("statuses.sqlite")
            var options = Store.Options()
            options.journalMode = .rollback
            let store = try Store.open(at: self.store, schema: DeclaredChangeTests.v2, options: options)
            try store.write { objects in
                let ada = try objects.insert("Account", ["name": "ada"])
                let bob = try objects.insert("Account", ["name": "bob"])
                let first = try objects.insert("Status", ["text": "hello @ada @bob"])
                let second = try objects.insert("Status", ["text": "hi @bob"])
                try objects.set("mentions", of: first, to: [ada, bob])
                try objects.set("mentions", of: second, to: [bob])
            }
            try store.close()
            try Fixtures.write(DeclaredChangeTests.v2, to: dir.file("2.json"))
            try Fixtures.write(DeclaredChangeTests.v3, to: dir.file("3.json"))
            var undeclared = DeclaredChangeTests.v3
            undeclared.deletions = []
            try Fixtures.write(undeclared, to: dir.file("3-undeclared.json"))
        }
    }

    @Test("Mastodon 2 → 3: without the declaration migrate refuses, naming it, and writes nothing")
    func undeclaredReplacementIsRefused() throws {
        let setup = try Setup()
        let before = try Data(contentsOf: setup.store)
        let result = try Molt.run(["migrate", setup.store.path, "--to", "3-undeclared.json"], in: setup.dir.url)
        #expect(result.status == 5, "\(result)")
        #expect(
            result.stderr == """
                error: Molt cannot infer the migration from version 2 to 3:
                - Attribute 'Status.mentions' was the relationship 'Status.mentions' between versions 2 and 3; Molt cannot turn a relationship into an attribute by itself. Fill the attribute in a custom stage from version 2 to 3; or, if the new 'mentions' replaces it (its links deleted, the new one starting empty), declare `Schema(version: 3, deleting: [.replaced("mentions", of: "Status")])` (in a snapshot: "deletions" : [{"entity" : "Status", "property" : "mentions", "replaced" : true}]).

                """)
        #expect(try Data(contentsOf: setup.store) == before)
    }

    @Test("a declared replacement: diff and plan say it, migrate deletes the links and records them as replaced")
    func declaredReplacement() throws {
        let setup = try Setup()
        let diff = try Molt.run(["diff", "2.json", "3.json"], in: setup.dir.url)
        #expect(diff.status == 0, "\(diff)")
        #expect(
            diff.stdout == """
                Version 2 → 3: 2 changes
                  inferable    Attribute 'Status.mentions' has been added in place of relationship 'Status.mentions' (to-many 'Account'), starting empty.
                  destructive  Relationship 'Status.mentions' has been replaced by attribute 'Status.mentions' (string): its links are deleted (declared).

                Molt can infer this migration; 1 change deletes data.

                """)
        let plan = try Molt.run(["plan", setup.store.path, "--to", "3.json"], in: setup.dir.url)
        #expect(plan.status == 0, "\(plan)")
        #expect(
            plan.stdout.contains(
                """
                Steps:
                  2 → 3 inferred: Attribute 'Status.mentions' has been added in place of relationship 'Status.mentions' (to-many 'Account'), starting empty. Relationship 'Status.mentions' has been replaced by attribute 'Status.mentions' (string): its links are deleted (declared).
                """))
        #expect(plan.stdout.contains(#"DROP TABLE "Status_mentions";"#))
        #expect(plan.stdout.hasSuffix("Changes: dropped 3 links of 'Status.mentions' (replaced)\n"))
        let migrate = try Molt.run(["migrate", setup.store.path, "--to", "3.json"], in: setup.dir.url)
        #expect(migrate.status == 0, "\(migrate)")
        #expect(migrate.stdout.contains("(dropped 3 links of 'Status.mentions' (replaced))."))
        let store = try Store.open(at: setup.store, schema: Self.v3)
        defer { try? store.close() }
        let statuses = try store.read { try $0.fetch("Status", orderBy: [.ascending("text")]) }
        #expect(statuses.map { [$0["text"], $0["mentions"]] } == [["hello @ada @bob", .null], ["hi @bob", .null]])
        #expect(try store.read { try $0.count("Account") } == 2)
        #expect(
            try store.history().last?.dropped == [
                DroppedData(
                    entity: "Status", property: "mentions", isRelationship: true, count: 3, isDeclared: true,
                    isReplaced: true)
            ])
    }

    @Test("WooCommerce: a mapping file empties an entity the new version keeps; links to its objects go")
    func mappingFileEmptiesAnEntity() throws {
        let setup = try Setup()
        var v3 = Self.v2.withVersion(3)
        v3.deletions = []
        try Fixtures.write(v3, to: setup.dir.file("3-kept.json"))
        try Data(#"{ "mappings": [ { "destination": "Account", "empty": true } ] }"#.utf8).write(
            to: setup.dir.file("empty.json"))
        let result = try Molt.run(
            ["migrate", setup.store.path, "--to", "3-kept.json", "--mapping", "empty.json"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("(2 objects deleted)."))
        #expect(result.stdout.hasSuffix("  2 → 3 mapping (1 entity mapping(s)): no change\n"))
        let store = try Store.open(at: setup.store, schema: v3)
        defer { try? store.close() }
        #expect(try store.read { try $0.count("Account") } == 0)
        #expect(
            try store.read { objects in
                try objects.fetch("Status").map { try objects.destinations("mentions", of: $0).count }
            } == [0, 0])
        #expect(try store.read { try $0.count("Status") } == 2)
    }
}
