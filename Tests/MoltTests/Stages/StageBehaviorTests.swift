import Foundation
import Testing
@testable import Molt

/// What every custom stage guarantees: rollback on error and on cancellation, progress, queries on both sides,
/// checks of the result, and type changes that need code.
@Suite("Custom stages: rollback, cancellation, progress, queries")
struct StageBehaviorTests {
    static let v1 = Schema(version: 1) {
        Entity("Item", primaryKey: "code") {
            Attribute("code", .string)
            Attribute("quantity", .string)
            Attribute("price", .double)
            Relationship("shelf", to: "Shelf")
        }
        Entity("Shelf") { Attribute("label", .string) }
        Entity("Legacy") { Attribute("note", .string) }
    }
    static let v2 = Schema(version: 2) {
        Entity("Item", primaryKey: "code") {
            Attribute("code", .string)
            Attribute("quantity", .int)
            Attribute("price", .double)
            Attribute("legacyNote", .string, isOptional: true)
            Relationship("shelf", to: "Shelf")
        }
        Entity("Shelf") { Attribute("label", .string) }
    }

    /// A store at v1 with `count` items on two shelves and one Legacy note per ten items.
    static func makeStore(_ url: StoreLocation, kind: StoreKind, count: Int = 50) throws {
        let store = try Store.open(at: url, schema: v1, options: kind.options)
        try store.write { objects in
            let shelves = [try objects.insert("Shelf", ["label": "A"]), try objects.insert("Shelf", ["label": "B"])]
            for i in 0..<count {
                let item = try objects.insert(
                    "Item",
                    ["code": .string("c\(i)"), "quantity": .string("\(i * 2)"), "price": .double(Double(i) / 4)])
                try objects.set("shelf", of: item, to: shelves[i % 2])
                if i % 10 == 0 { try objects.insert("Legacy", ["note": .string("note for c\(i)")]) }
            }
        }
        try store.close()
    }

    /// Parses the text quantities, and copies each Legacy note onto its item by querying the old side.
    static let parse = MigrationStage.custom(from: 1, to: 2) { migration in
        try migration.enumerateObjects(ofType: "Item") { old, new in
            guard let quantity = old["quantity"].string.flatMap(Int64.init) else {
                throw MoltError(.migrationFailed, "Item \(old["code"]) has a quantity that is not a number.")
            }
            new["quantity"] = .int(quantity)
        }
        for note in try migration.old.fetch("Legacy") {
            let code = String(note["note"].string!.dropFirst("note for ".count))
            guard var item = try migration.new.object("Item", primaryKey: .string(code)) else { continue }
            item["legacyNote"] = note["note"]
            try migration.new.update(item)
        }
    }

    static func fileBytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    @Test(
        "a stage converts a type with code, and queries both versions, including an entity the new one removed",
        arguments: StoreKind.durable)
    func typeChangeAndQueries(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(try kind.location(in: dir), kind: kind)
        let plan = try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [Self.parse])
        let store = try Store.open(
            at: try kind.location(in: dir), schema: Self.v2, options: kind.options.migrating(with: plan))
        try store.read { (objects: Objects) throws in
            let items = try objects.fetch("Item")
            #expect(items.map { $0["quantity"] } == (0..<50).map { .int(Int64($0 * 2)) })
            #expect(items.map { $0["price"] } == (0..<50).map { .double(Double($0) / 4) })
            #expect(try objects.count("Item", where: .isNotNull("legacyNote")) == 5)
            #expect(try objects.object("Item", primaryKey: "c20")?["legacyNote"] == "note for c20")
            #expect(try objects.destination("shelf", of: items[3])?["label"] == "B")
        }
    }

    @Test(
        "an error thrown in the middle of a stage leaves the store exactly at its old version",
        arguments: StoreKind.durable)
    func rollbackOnError(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(try kind.location(in: dir), kind: kind)
        do {
            let store = try Store.open(at: try kind.location(in: dir), schema: Self.v1, options: kind.options)
            try store.write { objects in
                var item = try #require(try objects.object("Item", primaryKey: "c37"))
                item["quantity"] = "thirty-seven"
                try objects.update(item)
            }
            try store.close()
        }
        let before = try Store.inspect(at: try kind.location(in: dir))
        let plan = try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [Self.parse])
        #expect {
            try Store.open(at: try kind.location(in: dir), schema: Self.v2, options: kind.options.migrating(with: plan))
        } throws: { error in
            (error as? MoltError)?.message == "Item \"c37\" has a quantity that is not a number."
        }
        let after = try Store.inspect(at: try kind.location(in: dir))
        #expect(after.version == 1)
        #expect(after.schemaHash == before.schemaHash)
        #expect(after.objectCounts == before.objectCounts)
        #expect(after.history == before.history)
        let store = try Store.open(at: try kind.location(in: dir), schema: Self.v1, options: kind.options)
        let quantities = try store.read { try $0.fetch("Item").map { $0["quantity"] } }
        #expect(quantities.count == 50)
        #expect(quantities[37] == "thirty-seven")
        #expect(quantities[36] == "72")
    }

    @Test("a cancelled migration rolls back and says so", arguments: StoreKind.durable)
    func cancellation(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(try kind.location(in: dir), kind: kind, count: 3000)
        let cancellation = MigrationCancellation()
        var options = kind.options.migrating(
            with: try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [Self.parse]))
        options.cancellation = cancellation
        options.progress = { progress in
            if progress.entity == "Item", progress.completed >= 1024 { cancellation.cancel() }
        }
        #expect {
            try Store.open(at: try kind.location(in: dir), schema: Self.v2, options: options)
        } throws: { error in
            (error as? MoltError)?.message
                == "The migration was cancelled during the step from version 1 to 2; it was rolled back and the store is still at its old version."
        }
        #expect(try Store.version(at: try kind.location(in: dir)) == 1)
        #expect(try Store.inspect(at: try kind.location(in: dir)).objectCounts["Item"] == 3000)
    }

    @Test("progress goes forward, names the entity, and ends at 1", arguments: StoreKind.durable)
    func progress(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(try kind.location(in: dir), kind: kind, count: 2500)
        let events = Events()
        var options = kind.options.migrating(
            with: try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [Self.parse]))
        options.progress = { events.append($0) }
        _ = try Store.open(at: try kind.location(in: dir), schema: Self.v2, options: options)
        let all = events.all
        let fractions = all.map(\.fractionCompleted)
        #expect(fractions == fractions.sorted())
        #expect(fractions.last == 1)
        let items = all.filter { $0.phase == "enumerating 'Item'" }
        #expect(items.map(\.completed) == [0, 1024, 2048, 2500])
        #expect(
            items.allSatisfy { $0.total == 2500 && $0.entity == "Item" && $0.fromVersion == 1 && $0.toVersion == 2 })
        // The table rebuilt at the end of the stage reports the rows it copied.
        #expect(all.filter { $0.phase == "rebuilding 'Item'" }.map(\.completed) == [0, 2500])
    }

    @Test(
        "progress never goes back when a stage walks several entities, then a mapping stage runs",
        arguments: StoreKind.files)
    func progressOverSeveralUnits(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try ImmutableOldSideTests.makeStore(dir.file(), kind: kind)
        let v3 = ImmutableOldSideTests.v2.next(3) {
            $0.edit("Tag") { $0.attributes.append(Attribute("upper", .string, isOptional: true)) }
        }
        let plan = try MigrationPlan(
            schemas: [ImmutableOldSideTests.v1, ImmutableOldSideTests.v2, v3],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    try migration.enumerateObjects(ofType: "Note") { old, new in new["summary"] = old["title"] }
                    try migration.enumerateObjects(ofType: "Folder") { _, _ in }
                    try migration.enumerateObjects(ofType: "Tag") { _, _ in }
                },
                .mapping(from: 2, to: 3, [EntityMapping(destination: "Tag", attributes: ["upper": "upper(label)"])]),
            ])
        let events = Events()
        var options = kind.options.migrating(with: plan)
        options.progress = { events.append($0) }
        _ = try Store.open(at: dir.file(), schema: v3, options: options)
        let fractions = events.all.map(\.fractionCompleted)
        #expect(fractions == fractions.sorted())
        #expect(fractions.last == 1)
        let phases = events.all.compactMap(\.phase)
        for phase in ["enumerating 'Note'", "enumerating 'Folder'", "enumerating 'Tag'", "mapping", "validating"] {
            #expect(phases.contains(phase), "\(phase)")
        }
    }

    @Test("a required attribute the stage leaves empty is reported with its name; nothing is committed")
    func requiredLeftEmpty() throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.file(dir.file()), kind: .wal)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    try migration.enumerateObjects(ofType: "Item") { old, new in
                        if old["code"] != "c7" { new["quantity"] = 1 }
                    }
                }
            ])
        #expect {
            try Store.open(at: dir.file(), schema: Self.v2, options: StoreKind.wal.options.migrating(with: plan))
        } throws: { error in
            (error as? MoltError)?.message
                == "Attribute 'Item.quantity' is required in version 2, but 1 object(s) have no value after the stage 1 → 2. Set it for every object in the stage (for example `new[\"quantity\"] = …` in `enumerateObjects(ofType: \"Item\")`), give the attribute a default, or make it optional. The store was left at version 1."
        }
        #expect(try Store.version(at: dir.file()) == 1)
    }

    @Test("writing an unknown attribute or a value of the wrong type throws with the name")
    func badWrites() throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.file(dir.file()), kind: .wal)
        typealias Write = @Sendable (inout MigrationObject) -> Void
        let cases: [(Write, String)] = [
            (
                { $0["quantiti"] = 1 },
                "Entity 'Item' has no attribute 'quantiti' in version 2; it has code, quantity, price, legacyNote."
            ),
            ({ $0["quantity"] = "12" }, "Attribute 'Item.quantity' holds int values in version 2, not \"12\"."),
        ]
        for (body, message) in cases {
            let plan = try MigrationPlan(
                schemas: [Self.v1, Self.v2],
                stages: [
                    .custom(from: 1, to: 2) { migration in
                        try migration.enumerateObjects(ofType: "Item") { _, new in body(&new) }
                    }
                ])
            #expect {
                try Store.open(at: dir.file(), schema: Self.v2, options: StoreKind.wal.options.migrating(with: plan))
            } throws: { error in
                (error as? MoltError)?.message == message
            }
        }
        #expect(try Store.version(at: dir.file()) == 1)
    }

    @Test("a mapping whose expression gives a value of the wrong type is refused with the attribute and an object")
    func mappingWrongType() throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.file(dir.file()), kind: .wal)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2],
            stages: [
                .mapping(
                    from: 1, to: 2,
                    [
                        EntityMapping(
                            destination: "Item",
                            attributes: ["quantity": "CASE WHEN code = 'c3' THEN 'many' ELSE 1 END"])
                    ])
            ])
        #expect {
            try Store.open(at: dir.file(), schema: Self.v2, options: StoreKind.wal.options.migrating(with: plan))
        } throws: { error in
            (error as? MoltError)?.message
                == "The mapping of 'Item' into 'Item' gives 'Item.quantity' a text value ('many' for _id 4), but the attribute holds int values. Fix its expression `CASE WHEN code = 'c3' THEN 'many' ELSE 1 END` (for example with CAST); the store was left at version 1."
        }
        #expect(try Store.version(at: dir.file()) == 1)
    }

    @Test("a string attribute mapped from a blob expression is refused too")
    func mappingBlobIntoString() throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.file(dir.file()), kind: .wal)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2],
            stages: [
                .mapping(
                    from: 1, to: 2,
                    [
                        EntityMapping(
                            destination: "Item",
                            attributes: [
                                "quantity": "CAST(quantity AS INTEGER)", "legacyNote": "CAST(code AS BLOB)",
                            ])
                    ])
            ])
        #expect {
            try Store.open(at: dir.file(), schema: Self.v2, options: StoreKind.wal.options.migrating(with: plan))
        } throws: { error in
            (error as? MoltError)?.message
                == "The mapping of 'Item' into 'Item' gives 'Item.legacyNote' a blob value (X'6330' for _id 1), but the attribute holds string values. Fix its expression `CAST(code AS BLOB)` (for example with CAST); the store was left at version 1."
        }
    }

    @Test("objects deleted in a stage are unlinked from the objects that pointed to them")
    func deletionsUnlink() throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.file(dir.file()), kind: .wal)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    try migration.enumerateObjects(ofType: "Item") { old, new in
                        new["quantity"] = .int(Int64(old["quantity"].string!)!)
                    }
                    try migration.new.deleteAll("Shelf", where: .equal("label", "A"))
                }
            ])
        let store = try Store.open(
            at: dir.file(), schema: Self.v2, options: StoreKind.wal.options.migrating(with: plan))
        try store.read { (objects: Objects) throws in
            let items = try objects.fetch("Item")
            #expect(try items.filter { try objects.destination("shelf", of: $0) == nil }.count == 25)
            #expect(try objects.count("Shelf") == 1)
        }
    }

    @Test("enumerating an entity that is new, or that the new version removed, is refused with the fix")
    func wrongEntity() throws {
        let dir = TemporaryDirectory()
        try Self.makeStore(.file(dir.file()), kind: .wal)
        for (type, message) in [
            (
                "Legacy",
                "Entity 'Legacy' does not exist in version 2: enumerate its old objects with `enumerateOldObjects(ofType: \"Legacy\")` and create what replaces them."
            ),
            (
                "Nothing",
                "Entity 'Nothing' exists in neither version 1 (Item, Shelf, Legacy) nor version 2 (Item, Shelf)."
            ),
        ] {
            let plan = try MigrationPlan(
                schemas: [Self.v1, Self.v2],
                stages: [
                    .custom(from: 1, to: 2) { migration in try migration.enumerateObjects(ofType: type) { _, _ in } }
                ])
            #expect {
                try Store.open(at: dir.file(), schema: Self.v2, options: StoreKind.wal.options.migrating(with: plan))
            } throws: { error in
                (error as? MoltError)?.message == message
            }
        }
    }
}

/// Collects progress events from the migrating thread.
final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [MigrationProgress] = []
    func append(_ event: MigrationProgress) { lock.lock(); events.append(event); lock.unlock() }
    var all: [MigrationProgress] { lock.lock(); defer { lock.unlock() }; return events }
}
