import Foundation
import GRDB
import Testing
@testable import Molt

/// A version that adds the inverse of a relationship that already holds links: the new side shows the links
/// that exist, on every path (inferred step, custom stage, mapping), on every engine; a to-one side that cannot
/// hold them is refused naming the objects; validation, `verify()` and `molt check` report two sides that
/// disagree.
@Suite("A new inverse shows the links that exist")
struct InverseLinkMigrationTests {
    /// v1: `Item.owner`, to-one, without an inverse.
    static let toOneOnly = Schema(version: 1) {
        Entity("Owner") { Attribute("name", .string) }
        Entity("Item") {
            Attribute("label", .string)
            Relationship("owner", to: "Owner")
        }
    }
    /// v2: `Owner.items` added as its inverse (Mastodon 1→2, WooCommerce 26→27 had this shape).
    static let withItems = Schema(version: 2) {
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("items", toMany: "Item", inverse: "owner")
        }
        Entity("Item") {
            Attribute("label", .string)
            Attribute("note", .string, isOptional: true)
            Relationship("owner", to: "Owner", inverse: "items")
        }
    }
    /// v1': `Owner.items`, to-many, without an inverse.
    static let toManyOnly = Schema(version: 1) {
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("items", toMany: "Item", ordered: true)
        }
        Entity("Item") { Attribute("label", .string) }
    }
    /// v2': a to-one `Item.owner` added as the inverse of the to-many.
    static let withOwner = Schema(version: 2) {
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("items", toMany: "Item", ordered: true, inverse: "owner")
        }
        Entity("Item") {
            Attribute("label", .string)
            Relationship("owner", to: "Owner", inverse: "items")
        }
    }

    /// Two owners; items 0…4, item i owned by owner i % 2, item 4 by nobody.
    static func makeToOneStore(_ kind: StoreKind, in dir: TemporaryDirectory) throws {
        let store = try kind.open(in: dir, schema: Self.toOneOnly)
        try store.write { objects in
            let owners = [try objects.insert("Owner", ["name": "A"]), try objects.insert("Owner", ["name": "B"])]
            for i in 0..<5 {
                let item = try objects.insert("Item", ["label": .string("i\(i)")])
                if i < 4 { try objects.set("owner", of: item, to: owners[i % 2]) }
            }
        }
        try store.close()
    }

    /// Owner A lists i2, i0; B lists i1; i3 is in no list; with `shared`, i1 is in both lists.
    static func makeToManyStore(_ kind: StoreKind, in dir: TemporaryDirectory, shared: Bool = false) throws {
        let store = try kind.open(in: dir, schema: Self.toManyOnly)
        try store.write { objects in
            let a = try objects.insert("Owner", ["name": "A"])
            let b = try objects.insert("Owner", ["name": "B"])
            let items = try (0..<4).map { try objects.insert("Item", ["label": .string("i\($0)")]) }
            try objects.set("items", of: a, to: shared ? [items[2], items[0], items[1]] : [items[2], items[0]])
            try objects.set("items", of: b, to: [items[1]])
        }
        try store.close()
    }

    /// Every owner's items and every item's owner, read through each side.
    static func bothSides(_ store: Store) throws -> (items: [String: [String]], owners: [String: String]) {
        try store.read { objects in
            var items: [String: [String]] = [:]
            for owner in try objects.fetch("Owner") {
                items[owner["name"].string!] = try objects.destinations("items", of: owner).map { $0["label"].string! }
            }
            var owners: [String: String] = [:]
            for item in try objects.fetch("Item") {
                owners[item["label"].string!] = try objects.destination("owner", of: item)?["name"].string ?? "-"
            }
            return (items, owners)
        }
    }

    @Test("an inferred step that adds a to-many inverse fills it from the to-one", arguments: StoreKind.durable)
    func inferredToManyInverse(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeToOneStore(kind, in: dir)
        let store = try kind.open(in: dir, schema: Self.withItems)
        let sides = try Self.bothSides(store)
        #expect(sides.items == ["A": ["i0", "i2"], "B": ["i1", "i3"]])
        #expect(sides.owners == ["i0": "A", "i1": "B", "i2": "A", "i3": "B", "i4": "-"])
        try store.verify()
    }

    @Test("an inferred step that adds a to-one inverse of a to-many fills it", arguments: StoreKind.durable)
    func inferredToOneInverse(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeToManyStore(kind, in: dir)
        let store = try kind.open(in: dir, schema: Self.withOwner)
        let sides = try Self.bothSides(store)
        #expect(sides.items == ["A": ["i2", "i0"], "B": ["i1"]], "the ordered side keeps its order")
        #expect(sides.owners == ["i0": "A", "i1": "B", "i2": "A", "i3": "-"])
        try store.verify()
    }

    @Test(
        "a to-one inverse that would have to hold two owners is refused, naming the objects; nothing is written",
        arguments: StoreKind.durable)
    func overfullToOneIsRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeToManyStore(kind, in: dir, shared: true)
        let before = FileState(try kind.location(in: dir))
        let error = moltError { _ = try kind.open(in: dir, schema: Self.withOwner) }
        #expect(error?.code == .dataLossRefused)
        #expect(error?.entity == "Item")
        #expect(error?.property == "owner")
        #expect(
            error?.message
                == "Version 2 adds 'Item.owner' as the to-one inverse of 'Owner.items', but Item #2 is linked from 2 Owner objects (#1, #2), and a to-one holds one: the other links would be lost. Make 'Item.owner' to-many, or keep one link per object in a custom stage from version 1 to 2. Nothing was written."
        )
        #expect(FileState(try kind.location(in: dir)) == before)
    }

    @Test("in a custom stage the new inverse already shows the links, and keeps them", arguments: StoreKind.durable)
    func customStageSeesInverse(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeToOneStore(kind, in: dir)
        let stage = MigrationStage.custom(from: 1, to: 2) { migration in
            for owner in try migration.new.fetch("Owner") {
                for item in try migration.new.destinations("items", of: owner) {
                    var item = item
                    item["note"] = .string("owned by \(owner["name"].string!)")
                    try migration.new.update(item)
                }
            }
        }
        let plan = try MigrationPlan(schemas: [Self.toOneOnly, Self.withItems], stages: [stage])
        let store = try kind.open(in: dir, schema: Self.withItems, options: kind.options.migrating(with: plan))
        #expect(
            try store.read { try $0.fetch("Item").map { $0["note"] } } == [
                "owned by A", "owned by B", "owned by A", "owned by B", .null,
            ])
        #expect(try Self.bothSides(store).items == ["A": ["i0", "i2"], "B": ["i1", "i3"]])
        try store.verify()
    }

    @Test("a mapping stage gets the inverse filled too", arguments: StoreKind.durable)
    func mappingStage(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeToOneStore(kind, in: dir)
        let mapping = MigrationStage.mapping(
            from: 1, to: 2,
            [
                EntityMapping(destination: "Item", attributes: ["note": "'mapped ' || label"])
            ])
        let plan = try MigrationPlan(schemas: [Self.toOneOnly, Self.withItems], stages: [mapping])
        let store = try kind.open(in: dir, schema: Self.withItems, options: kind.options.migrating(with: plan))
        #expect(try Self.bothSides(store).items == ["A": ["i0", "i2"], "B": ["i1", "i3"]])
        try store.verify()
    }

    /// v1: `Owner.items` and `Item.owner`, two relationships that are not each other's inverse.
    static let separate = Schema(version: 1) {
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("items", toMany: "Item")
        }
        Entity("Item") {
            Attribute("label", .string)
            Relationship("owner", to: "Owner")
        }
    }
    /// v2: the same two, declared each other's inverse.
    static let paired = Schema(version: 2) {
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("items", toMany: "Item", inverse: "owner")
        }
        Entity("Item") {
            Attribute("label", .string)
            Relationship("owner", to: "Owner", inverse: "items")
        }
    }

    /// A store at `separate` whose owner lists an item that does not point back.
    static func makeOneSidedStore(_ kind: StoreKind, in dir: TemporaryDirectory) throws -> FileState {
        let store = try kind.open(in: dir, schema: Self.separate)
        try store.write { objects in
            let a = try objects.insert("Owner", ["name": "A"])
            let item = try objects.insert("Item", ["label": "i0"])
            try objects.set("items", of: a, to: [item])  // but item.owner stays empty
        }
        try store.close()
        return FileState(try kind.location(in: dir))
    }

    static let oneSided =
        "'Item.owner' and its inverse 'Owner.items' disagree on 1 link: 'Owner.items' of Owner #1 holds Item #1, but 'Item.owner' of Item #1 does not hold Owner #1"

    @Test(
        "two relationships declared inverses that disagree are refused by validation, naming the objects",
        arguments: StoreKind.durable)
    func newlyPairedDisagreementIsRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let before = try Self.makeOneSidedStore(kind, in: dir)
        let error = moltError { _ = try kind.open(in: dir, schema: Self.paired) }
        #expect(error?.code == .validationFailed)
        #expect(error?.message.contains(Self.oneSided) == true, "\(error?.message ?? "")")
        #expect(FileState(try kind.location(in: dir)) == before)
    }

    @Test(
        "the pairing is compared after a stage that writes neither side, and after a later step renames the entity",
        arguments: StoreKind.durable)
    func newlyPairedThroughStageAndRename(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let before = try Self.makeOneSidedStore(kind, in: dir)
        let untouched = MigrationStage.custom(from: 1, to: 2) { migration in _ = try migration.new.count("Owner") }
        let plan = try MigrationPlan(schemas: [Self.separate, Self.paired], stages: [untouched])
        var error = moltError {
            _ = try kind.open(in: dir, schema: Self.paired, options: kind.options.migrating(with: plan))
        }
        #expect(error?.code == .validationFailed)
        #expect(error?.message.contains(Self.oneSided) == true, "\(error?.message ?? "")")
        // Paired in 1 → 2, then Item renamed Thing in 2 → 3, in one folded run.
        let renamed = Schema(version: 3) {
            Entity("Owner") {
                Attribute("name", .string)
                Relationship("items", toMany: "Thing", inverse: "owner")
            }
            Entity("Thing", originalName: "Item") {
                Attribute("label", .string)
                Relationship("owner", to: "Owner", inverse: "items")
            }
        }
        let walk = try MigrationPlan(schemas: [Self.separate, Self.paired, renamed])
        error = moltError { _ = try kind.open(in: dir, schema: renamed, options: kind.options.migrating(with: walk)) }
        #expect(error?.code == .validationFailed)
        #expect(
            error?.message.contains(
                "'Owner.items' of Owner #1 holds Thing #1, but 'Thing.owner' of Thing #1 does not hold Owner #1")
                == true, "\(error?.message ?? "")")
        #expect(FileState(try kind.location(in: dir)) == before)
    }

    @Test(
        "verify() reports two sides that disagree, and a table whose shape another tool changed",
        arguments: StoreKind.files)
    func verifyReportsDisagreementAndShape(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeToOneStore(kind, in: dir)
        try kind.open(in: dir, schema: Self.withItems).close()
        let url = dir.file()
        try RawSQL.execute(url, "DELETE FROM \"Owner_items\" WHERE target = 3")
        var store = try kind.open(in: dir, schema: Self.withItems)
        var error = moltError { try store.verify() }
        #expect(error?.code == .corruptStore)
        #expect(
            error?.message.contains(
                "'Item.owner' and its inverse 'Owner.items' disagree on 1 link: 'Item.owner' of Item #3 holds Owner #1, but 'Owner.items' of Owner #1 does not hold Item #3"
            ) == true, "\(error?.message ?? "")")
        try store.close()
        try RawSQL.execute(
            url, "INSERT INTO \"Owner_items\" (owner, target) VALUES (1, 3)",
            "ALTER TABLE \"Item\" DROP COLUMN \"note\"", "ALTER TABLE \"Item\" ADD COLUMN \"note\" BLOB")
        store = try kind.open(in: dir, schema: Self.withItems)
        error = moltError { try store.verify() }
        #expect(error?.code == .corruptStore)
        #expect(error?.message.contains("the shape of Table 'Item':") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("BLOB") == true)
    }
}
