import Foundation
import Molt
import Testing

/// Migrations in and out of a minimum count: a raised (or added) minimum is inferred, keeping the owners under it
/// and listing them in the step's history entry, as Core Data's lightweight migration keeps them, or refused
/// naming them when the version refuses short owners; a lowered one always; a stage that leaves an owner it
/// inserted or unlinked short is refused. Every refusal leaves the store as it was.
@Suite("Migrations of relationships with a minimum count")
struct MinimumCountMigrationTests {
    static func schema(_ version: Int, minimum: Int) -> Schema {
        MinimumCountTests.schema(version, minimum: minimum)
    }

    @Test("raising a minimum is inferred when every owner meets it", arguments: StoreKind.durable)
    func raised(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try MinimumCountTests.seed(try kind.open(in: dir, schema: Self.schema(1, minimum: 0)))
        let store = try kind.open(in: dir, schema: Self.schema(2, minimum: 2))
        #expect(
            try store.history().last?.steps == [
                "1 → 2 inferred: Relationship 'Question.options' has changed its minimum count from none to 2."
            ])
        let color = try store.read { try MinimumCountTests.one("Question", "title", "Color?", in: $0) }
        #expect(try store.read { try $0.destinations("options", of: color).map { $0["label"] } } == ["Red", "Blue"])
        #expect(moltError { try store.write { _ = try $0.insert("Question", ["title": "Empty?"]) } } != nil)
    }

    /// The history line a raise to 2 keeps for the seeded short questions.
    static let keptQuestions = "2 'Question' objects (_id 2: 0, _id 3: 1) hold fewer than 2 'options'"

    @Test(
        "raising a minimum keeps the owners under it, lists them in the step's history entry and in verify(), and holds later writes to it",
        arguments: StoreKind.durable)
    func raisedKept(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let old = try kind.open(in: dir, schema: Self.schema(1, minimum: 0))
        try MinimumCountTests.seed(old, short: true)
        let before = try StoreDump(old)
        try old.close()
        let store = try kind.open(in: dir, schema: Self.schema(2, minimum: 2))
        let entry = try #require(try store.history().last)
        #expect(entry.stepRecords.map(\.underMinimumCount) == [[Self.keptQuestions]])
        // Every object and link is as it was.
        #expect(try StoreDump(store) == before)
        #expect(
            try store.verify().underMinimumCount == [
                "the relationship 'Question.options' is under its minimum count of 2: 2 'Question' objects hold fewer than 2 'options' (_id 2: 0, _id 3: 1)"
            ])
        // A write may change the short owners' attributes, but not insert a short owner or unlink one further.
        try store.write { objects in
            var empty = try MinimumCountTests.one("Question", "title", "Empty?", in: objects)
            empty["title"] = "Still empty?"
            try objects.update(empty)
        }
        let unlinked = moltError {
            try store.write { objects in
                let pick = try MinimumCountTests.one("Question", "title", "Pick?", in: objects)
                try objects.remove(try objects.destinations("options", of: pick)[0], from: "options", of: pick)
            }
        }
        #expect(unlinked?.code == .constraintViolation)
        #expect(unlinked?.message.contains("1 'Question' object holds fewer than 2 'options' (_id 3: 0)") == true)
        #expect(moltError { try store.write { _ = try $0.insert("Question", ["title": "New?"]) } } != nil)
        #expect(try store.read { try $0.count("Question") } == 3)
    }

    @Test(
        "a version that refuses short owners refuses the raise naming them and their counts, and the store is unchanged",
        arguments: StoreKind.durable)
    func raisedRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Self.schema(1, minimum: 0)
        let old = try kind.open(in: dir, schema: v1)
        try MinimumCountTests.seed(old, short: true)
        let before = try StoreDump(old)
        try old.close()
        let error = moltError { _ = try kind.open(in: dir, schema: Self.schema(2, minimum: 2).refusingShortOwners()) }
        #expect(error?.code == .validationFailed)
        #expect(error?.entity == "Question")
        #expect(
            error?.message
                == "The migration to version 2 left the relationship 'Question.options' under its minimum count of 2, so nothing was committed: 2 'Question' objects hold fewer than 2 'options' (_id 2: 0, _id 3: 1). Link them (or delete them) in a custom stage, or lower the minimum count of 'Question.options'."
        )
        #expect(try StoreDump(try kind.open(in: dir, schema: v1)) == before)
    }

    @Test(
        "a raise a shortcut crosses keeps the owners under it, listed in the shortcut's entry; a strict version it ends at refuses them",
        arguments: StoreKind.durable)
    func shortcut(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Self.schema(1, minimum: 0)
        let old = try kind.open(in: dir, schema: v1)
        try MinimumCountTests.seed(old, short: true)
        try old.close()
        var v3 = Self.schema(3, minimum: 2)
        v3.edit("Question") { $0.attributes.append(Attribute("hint", .string, isOptional: true)) }
        let plan = try MigrationPlan(
            schemas: [v1, Self.schema(2, minimum: 1), v3], stages: [.lightweight(from: 1, to: 3)])
        let strict = try MigrationPlan(
            schemas: [v1, Self.schema(2, minimum: 1), v3.refusingShortOwners()], stages: [.lightweight(from: 1, to: 3)])
        let refused = moltError {
            _ = try kind.open(in: dir, schema: v3.refusingShortOwners(), options: kind.options.migrating(with: strict))
        }
        #expect(refused?.message.contains("2 'Question' objects hold fewer than 2 'options'") == true)
        let store = try kind.open(in: dir, schema: v3, options: kind.options.migrating(with: plan))
        let records = try #require(try store.history().last).stepRecords
        #expect(records.map { [$0.fromVersion, $0.toVersion] } == [[1, 3]])
        #expect(records.map(\.underMinimumCount) == [[Self.keptQuestions]])
    }

    @Test(
        "a custom stage that links the short owners migrates; one that removes links below the minimum is refused",
        arguments: StoreKind.durable)
    func customStage(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Self.schema(1, minimum: 0)
        let v2 = Self.schema(2, minimum: 1)
        let old = try kind.open(in: dir, schema: v1)
        try MinimumCountTests.seed(old)
        let before = try StoreDump(old)
        try old.close()
        let careless = MigrationStage.custom(from: 1, to: 2) { migration in
            _ = try migration.new.deleteAll("Option", where: nil)
        }
        let refused = moltError {
            _ = try kind.open(
                in: dir, schema: v2,
                options: kind.options.migrating(with: try MigrationPlan(schemas: [v1, v2], stages: [careless])))
        }
        #expect(
            refused?.message
                == "The migration to version 2 left the relationship 'Question.options' under its minimum count of 1, so nothing was committed: 1 'Question' object (_id 1) has no 'options'. Link them (or delete them) in a custom stage, or lower the minimum count of 'Question.options'."
        )
        #expect(try StoreDump(try kind.open(in: dir, schema: v1)) == before)
        let replacing = MigrationStage.custom(from: 1, to: 2) { migration in
            _ = try migration.new.deleteAll("Option", where: nil)
            let other = try migration.new.insert("Option", ["label": "Other"])
            try migration.new.add(other, to: "options", of: try migration.new.fetch("Question")[0])
        }
        let store = try kind.open(
            in: dir, schema: v2,
            options: kind.options.migrating(with: try MigrationPlan(schemas: [v1, v2], stages: [replacing])))
        #expect(try store.read { try $0.fetch("Option").map { $0["label"] } } == ["Other"])
    }

    @Test(
        "a stage that empties the destination is held to the minimum for the owners it unlinked, not for one kept short",
        arguments: StoreKind.durable)
    func deleteData(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Self.schema(1, minimum: 0)
        let v2 = Self.schema(2, minimum: 1)
        let old = try kind.open(in: dir, schema: v1)
        try MinimumCountTests.seed(old, short: true)
        let before = try StoreDump(old)
        try old.close()
        func replacing(_ titles: [String]) -> MigrationStage {
            MigrationStage.custom(from: 1, to: 2) { migration in
                try migration.deleteData(forType: "Option")
                for title in titles {
                    let question = try MinimumCountTests.one("Question", "title", title, in: migration.new)
                    try migration.new.add(
                        try migration.new.insert("Option", ["label": .string("Other")]), to: "options", of: question)
                }
            }
        }
        // Question 3 ("Pick?") lost its one option and got none back: the stage's doing, refused for it alone.
        let careless = moltError {
            _ = try kind.open(
                in: dir, schema: v2,
                options: kind.options.migrating(
                    with: try MigrationPlan(schemas: [v1, v2], stages: [replacing(["Color?"])])))
        }
        #expect(
            careless?.message
                == "The migration to version 2 left the relationship 'Question.options' under its minimum count of 1, so nothing was committed: 1 'Question' object (_id 3) has no 'options'. Link them (or delete them) in a custom stage, or lower the minimum count of 'Question.options'."
        )
        #expect(try StoreDump(try kind.open(in: dir, schema: v1)) == before)
        // Relinking both commits; question 2 ("Empty?"), which held none before, is kept and listed.
        let store = try kind.open(
            in: dir, schema: v2,
            options: kind.options.migrating(
                with: try MigrationPlan(schemas: [v1, v2], stages: [replacing(["Color?", "Pick?"])])))
        #expect(
            try store.history().last?.stepRecords.map(\.underMinimumCount) == [
                ["1 'Question' object (_id 2) holds fewer than 1 'options'"]
            ])
        #expect(try store.read { try $0.fetch("Option").map { $0["label"] } } == ["Other", "Other"])
    }

    /// `Folder.items` into the hierarchy `Item` ← `Note` with `minimum`; `Task`, another sub-entity, when `tasks`.
    static func folders(_ version: Int, minimum: Int, tasks: Bool = false) -> Schema {
        Schema(version: version) {
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("items", toMany: "Item", minimumCount: minimum)
            }
            Entity("Item") { Attribute("title", .string) }
            Entity("Note", parent: "Item") { Attribute("body", .string, isOptional: true) }
            if tasks { Entity("Task", parent: "Item") { Attribute("done", .bool, default: false) } }
        }
    }

    @Test(
        "in a hierarchy, a raise keeps the owners under it, and a later step over the hierarchy checks only the owners it unlinked",
        arguments: StoreKind.durable)
    func hierarchy(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let old = try kind.open(in: dir, schema: Self.folders(1, minimum: 0))
        try old.write { objects in
            let full = try objects.insert("Folder", ["name": "Full"])
            try objects.add(try objects.insert("Note", ["title": "Milk"]), to: "items", of: full)
            try objects.insert("Folder", ["name": "Empty"])
        }
        try old.close()
        let raised = try kind.open(in: dir, schema: Self.folders(2, minimum: 1))
        #expect(
            try raised.history().last?.stepRecords.map(\.underMinimumCount) == [
                ["1 'Folder' object (_id 2) holds fewer than 1 'items'"]
            ])
        try raised.close()
        // Adding a sub-entity is a step over the hierarchy: folder 2 lost no link there, so it is not refused.
        let store = try kind.open(in: dir, schema: Self.folders(3, minimum: 1, tasks: true))
        #expect(try store.history().last?.stepRecords.map(\.underMinimumCount) == [[]])
        #expect(try store.read { try $0.count("Folder") } == 2)
        #expect(
            try store.verify().underMinimumCount == [
                "the relationship 'Folder.items' is under its minimum count of 1: 1 'Folder' object (_id 2) has no 'items'"
            ])
    }

    @Test(
        "a renamed owner and relationship keep their minimum and their short owners, which a later step does not refuse",
        arguments: StoreKind.durable)
    func renamed(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let old = try kind.open(in: dir, schema: Self.schema(1, minimum: 0))
        try MinimumCountTests.seed(old, short: true)
        try old.close()
        try kind.open(in: dir, schema: Self.schema(2, minimum: 2)).close()
        let v3 = Schema(version: 3) {
            Entity("Poll", originalName: "Question") {
                Attribute("title", .string)
                Relationship(
                    "choices", toMany: "Option", inverse: "question", originalName: "options", minimumCount: 2)
            }
            Entity("Option") {
                Attribute("label", .string)
                Relationship("question", to: "Poll", inverse: "choices")
            }
        }
        let store = try kind.open(in: dir, schema: v3)
        #expect(try store.history().last?.stepRecords.map(\.underMinimumCount) == [[]])
        #expect(
            try store.verify().underMinimumCount == [
                "the relationship 'Poll.choices' is under its minimum count of 2: 2 'Poll' objects hold fewer than 2 'choices' (_id 2: 0, _id 3: 1)"
            ])
    }

    @Test("lowering or dropping a minimum is always inferred", arguments: StoreKind.durable)
    func lowered(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        try MinimumCountTests.seed(try kind.open(in: dir, schema: Self.schema(1, minimum: 2)))
        let store = try kind.open(in: dir, schema: Self.schema(2, minimum: 0))
        #expect(
            try store.history().last?.steps == [
                "1 → 2 inferred: Relationship 'Question.options' has changed its minimum count from 2 to none."
            ])
        try store.write { _ = try $0.insert("Question", ["title": "Empty?"]) }
        #expect(try store.read { try $0.count("Question") } == 2)
    }

    @Test(
        "adding a relationship with a minimum to an entity with objects keeps them, listed; a strict version refuses them",
        arguments: StoreKind.durable)
    func added(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Self.schema(1, minimum: 0)
        let old = try kind.open(in: dir, schema: v1)
        try MinimumCountTests.seed(old)
        let before = try StoreDump(old)
        try old.close()
        var v2 = Self.schema(2, minimum: 0)
        v2.edit("Option") { $0.relationships.append(Relationship("related", toMany: "Option", minimumCount: 1)) }
        let error = moltError { _ = try kind.open(in: dir, schema: v2.refusingShortOwners()) }
        #expect(
            error?.message
                == "The migration to version 2 left the relationship 'Option.related' under its minimum count of 1, so nothing was committed: 2 'Option' objects (_id 1, 2) have no 'related'. Link them (or delete them) in a custom stage, or lower the minimum count of 'Option.related'."
        )
        #expect(try StoreDump(try kind.open(in: dir, schema: v1)) == before)
        let store = try kind.open(in: dir, schema: v2)
        #expect(
            try store.history().last?.stepRecords.map(\.underMinimumCount) == [
                ["2 'Option' objects (_id 1, 2) hold fewer than 1 'related'"]
            ])
        #expect(try store.read { try $0.count("Option") } == 2)
    }
}
