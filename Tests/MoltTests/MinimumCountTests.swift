import Foundation
import Molt
import Testing

/// To-many relationships with a minimum count (`minimumCount`): enforced when a write commits, whichever way a count
/// drops (an owner inserted without links, links removed or moved, a destination deleted), checked after every
/// migration, listed by `verify()`; every refusal leaves the store as it was.
@Suite("Relationships with a minimum count")
struct MinimumCountTests {
    /// `Question.options` to `Option` with `minimum`; `Option.question` its inverse, deleted with `rule`.
    static func schema(_ version: Int, minimum: Int, rule: Relationship.DeleteRule = .nullify) -> Schema {
        Schema(version: version) {
            Entity("Question") {
                Attribute("title", .string)
                Relationship("options", toMany: "Option", inverse: "question", minimumCount: minimum)
            }
            Entity("Option") {
                Attribute("label", .string)
                Relationship("question", to: "Question", inverse: "options", deleteRule: rule)
            }
        }
    }

    /// Question 1 ("Color?") with options 1 ("Red") and 2 ("Blue"); when `short` (possible only under a minimum of
    /// 0), question 2 ("Empty?") with none and question 3 ("Pick?") with option 3 ("Green") only.
    static func seed(_ store: Store, short: Bool = false) throws {
        try store.write { objects in
            let color = try objects.insert("Question", ["title": "Color?"])
            for label in ["Red", "Blue"] {
                try objects.add(try objects.insert("Option", ["label": .string(label)]), to: "options", of: color)
            }
            guard short else { return }
            try objects.insert("Question", ["title": "Empty?"])
            let pick = try objects.insert("Question", ["title": "Pick?"])
            try objects.add(try objects.insert("Option", ["label": "Green"]), to: "options", of: pick)
        }
    }

    static func one(_ entity: String, _ attribute: String, _ value: String, in objects: Objects) throws -> DynamicObject
    {
        let found: [DynamicObject] = try objects.fetch(entity, where: .equal(attribute, .string(value)))
        return found[0]
    }

    /// The refusal of a write that leaves question 1 short of a minimum of 2.
    static let questionOneShort =
        "Relationship 'Question.options' must hold at least 2 objects, so nothing was written: 1 'Question' object holds fewer than 2 'options' (_id 1: 1) when the write ends. Link enough 'Option' to each in the same write (`objects.add(destination, to: \"options\", of: object)`), or delete them."

    // MARK: - Writes

    @Test(
        "an owner inserted without enough links is refused naming it and its count, and one linked in the same write commits",
        arguments: StoreKind.allCases)
    func insert(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(1, minimum: 1), in: dir)
        try Self.seed(store)
        let before = try StoreDump(store)
        let error = moltError {
            try store.write { objects in
                try objects.insert("Question", ["title": "Empty?"])
                try objects.insert("Question", ["title": "Blank?"])
            }
        }
        #expect(error?.code == .constraintViolation)
        #expect(error?.entity == "Question")
        #expect(error?.property == "options")
        #expect(
            error?.message
                == "Relationship 'Question.options' must hold at least 1 object, so nothing was written: 2 'Question' objects (_id 2, 3) have no 'options' when the write ends. Link an 'Option' to each in the same write (`objects.add(destination, to: \"options\", of: object)`), or delete them."
        )
        #expect(try StoreDump(store) == before)
        try store.write { objects in
            let size = try objects.insert("Question", ["title": "Size?"])
            try objects.add(try objects.insert("Option", ["label": "Small"]), to: "options", of: size)
        }
        #expect(try store.read { try $0.count("Question") } == 2)
    }

    @Test(
        "removing links below the minimum is refused, through the relationship or its inverse, and nothing is written",
        arguments: StoreKind.allCases)
    func removeLinks(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(1, minimum: 2), in: dir)
        try Self.seed(store)
        let before = try StoreDump(store)
        let removed = moltError {
            try store.write { objects in
                let color = try Self.one("Question", "title", "Color?", in: objects)
                try objects.remove(try Self.one("Option", "label", "Red", in: objects), from: "options", of: color)
            }
        }
        #expect(removed?.message == Self.questionOneShort)
        let replaced = moltError {
            try store.write { objects in
                let color = try Self.one("Question", "title", "Color?", in: objects)
                try objects.set("options", of: color, to: [try Self.one("Option", "label", "Red", in: objects)])
            }
        }
        #expect(replaced?.message == Self.questionOneShort)
        let unlinked = moltError {
            try store.write { objects in
                try objects.set("question", of: try Self.one("Option", "label", "Blue", in: objects), to: nil)
            }
        }
        #expect(unlinked?.message == Self.questionOneShort)
        let moved = moltError {
            try store.write { objects in
                let size = try objects.insert("Question", ["title": "Size?"])
                try objects.add(try objects.insert("Option", ["label": "Small"]), to: "options", of: size)
                try objects.set("question", of: try Self.one("Option", "label", "Blue", in: objects), to: size)
            }
        }
        #expect(moved?.message == Self.questionOneShort)
        #expect(try StoreDump(store) == before)
    }

    @Test(
        "a write may drop below the minimum while it runs, and commits when it ends at it; an owner deleted takes its links",
        arguments: StoreKind.allCases)
    func endsAtMinimum(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(1, minimum: 2), in: dir)
        try Self.seed(store)
        try store.write { objects in
            let color = try Self.one("Question", "title", "Color?", in: objects)
            try objects.set("options", of: color, to: [DynamicObject]())
            for label in ["Green", "Cyan"] {
                try objects.add(try objects.insert("Option", ["label": .string(label)]), to: "options", of: color)
            }
        }
        let color = try store.read { try Self.one("Question", "title", "Color?", in: $0) }
        #expect(try store.read { try $0.destinations("options", of: color).map { $0["label"] } } == ["Green", "Cyan"])
        try store.write { objects in try objects.delete(try Self.one("Question", "title", "Color?", in: objects)) }
        #expect(try store.read { try $0.count("Question") } == 0)
    }

    @Test(
        "deleting a destination under nullify is refused (one object, or a batch); under cascade the owner goes with it; under deny the deletion is refused",
        arguments: StoreKind.allCases)
    func deleteDestination(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema(1, minimum: 2), in: dir)
        try Self.seed(store)
        let before = try StoreDump(store)
        let one = moltError {
            try store.write { objects in try objects.delete(try Self.one("Option", "label", "Red", in: objects)) }
        }
        #expect(one?.message == Self.questionOneShort)
        let batch = moltError { try store.write { _ = try $0.deleteAll("Option", where: .equal("label", "Blue")) } }
        #expect(batch?.message == Self.questionOneShort)
        #expect(try StoreDump(store) == before)

        let other = TemporaryDirectory()
        let cascading = try kind.makeStore(schema: Self.schema(1, minimum: 2, rule: .cascade), in: other)
        try Self.seed(cascading)
        try cascading.write { objects in try objects.delete(try Self.one("Option", "label", "Red", in: objects)) }
        #expect(try cascading.read { try $0.count("Question") } == 0)
        #expect(try cascading.read { try $0.fetch("Option").map { $0["label"] } } == ["Blue"])

        let third = TemporaryDirectory()
        let denying = try kind.makeStore(schema: Self.schema(1, minimum: 2, rule: .deny), in: third)
        try Self.seed(denying)
        let denied = moltError {
            try denying.write { objects in try objects.delete(try Self.one("Option", "label", "Red", in: objects)) }
        }
        #expect(denied?.message.hasPrefix("Cannot delete 'Option' _id 1: its relationship 'question'") == true)
        #expect(try denying.read { try $0.count("Option") } == 2)
    }

    @Test(
        "a write checks the owners it touched, not every owner of the table",
        arguments: StoreKind.durable)
    func checksTheOwnersTouched(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.open(in: dir, schema: Self.schema(1, minimum: 1))
        try Self.seed(store)
        // Damage behind Molt's back: question 1 loses its links. A write about another question does not scan
        // every question to find it; one that touches question 1 names it.
        try RawSQL.execute(try kind.location(in: dir), "DELETE FROM \"Question_options\"")
        try store.write { objects in
            let size = try objects.insert("Question", ["title": "Size?"])
            try objects.add(try objects.insert("Option", ["label": "Small"]), to: "options", of: size)
        }
        #expect(try store.read { try $0.count("Question") } == 2)
        let error = moltError {
            try store.write { objects in
                let color = try Self.one("Question", "title", "Color?", in: objects)
                try objects.remove(try Self.one("Option", "label", "Small", in: objects), from: "options", of: color)
            }
        }
        #expect(
            error?.message.contains("1 'Question' object (_id 1) has no 'options'") == true,
            "\(String(describing: error))")
    }

    @Test(
        "a minimum on a parent entity holds for the objects of its sub-entities, in their shared table",
        arguments: StoreKind.allCases)
    func inherited(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let schema = Schema(version: 1) {
            Entity("Wheel") { Attribute("size", .int) }
            Entity("Vehicle", isAbstract: true) { Relationship("wheels", toMany: "Wheel", minimumCount: 2) }
            Entity("Car", parent: "Vehicle") { Attribute("seats", .int) }
            Entity("Truck", parent: "Vehicle") { Attribute("load", .int) }
        }
        let store = try kind.makeStore(schema: schema, in: dir)
        try store.write { objects in
            let car = try objects.insert("Car", ["seats": 4])
            for size: Int64 in [16, 17] {
                try objects.add(try objects.insert("Wheel", ["size": .int(size)]), to: "wheels", of: car)
            }
        }
        let before = try StoreDump(store)
        let error = moltError {
            try store.write { objects in
                let truck = try objects.insert("Truck", ["load": 9])
                try objects.add(try objects.insert("Wheel", ["size": 22]), to: "wheels", of: truck)
            }
        }
        #expect(
            error?.message.hasPrefix(
                "Relationship 'Vehicle.wheels' must hold at least 2 objects, so nothing was written: 1 'Vehicle' object holds fewer than 2 'wheels' (_id 2: 1) when the write ends."
            ) == true, "\(String(describing: error))")
        #expect(try StoreDump(store) == before)
    }

    // MARK: - Verify

    @Test(
        "verify() lists owners left under their minimum behind Molt's back, without calling the store damaged",
        arguments: StoreKind.durable)
    func verify(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.open(in: dir, schema: Self.schema(1, minimum: 2))
        try Self.seed(store)
        #expect(try store.verify().underMinimumCount == [])
        // Both sides of the link, as another tool would unlink them.
        try RawSQL.execute(try kind.location(in: dir), "DELETE FROM \"Question_options\" WHERE \"target\" = 2")
        try RawSQL.execute(try kind.location(in: dir), "UPDATE \"Option\" SET \"question\" = NULL WHERE \"_id\" = 2")
        #expect(
            try store.verify().underMinimumCount == [
                "the relationship 'Question.options' is under its minimum count of 2: 1 'Question' object holds fewer than 2 'options' (_id 1: 1)"
            ])
    }
}
