import Foundation
import Molt
import Testing

/// Migrations in and out of a minimum count: a raised minimum is inferred when every owner meets it and refused
/// naming the owners otherwise; a lowered one always; a step that leaves an owner short is refused. Every refusal
/// leaves the store as it was.
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

    @Test(
        "raising a minimum is refused naming the owners under it and their counts, and the store is unchanged",
        arguments: StoreKind.durable)
    func raisedRefused(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let v1 = Self.schema(1, minimum: 0)
        let old = try kind.open(in: dir, schema: v1)
        try MinimumCountTests.seed(old, short: true)
        let before = try StoreDump(old)
        try old.close()
        let error = moltError { _ = try kind.open(in: dir, schema: Self.schema(2, minimum: 2)) }
        #expect(error?.code == .validationFailed)
        #expect(error?.entity == "Question")
        #expect(
            error?.message
                == "The migration to version 2 left the relationship 'Question.options' under its minimum count of 2, so nothing was committed: 2 'Question' objects hold fewer than 2 'options' (_id 2: 0, _id 3: 1). Link them (or delete them) in a custom stage, or lower the minimum count of 'Question.options'."
        )
        #expect(try StoreDump(try kind.open(in: dir, schema: v1)) == before)
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
        "adding a relationship with a minimum to an entity with objects is refused naming them",
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
        let error = moltError { _ = try kind.open(in: dir, schema: v2) }
        #expect(
            error?.message
                == "The migration to version 2 left the relationship 'Option.related' under its minimum count of 1, so nothing was committed: 2 'Option' objects (_id 1, 2) have no 'related'. Link them (or delete them) in a custom stage, or lower the minimum count of 'Option.related'."
        )
        #expect(try StoreDump(try kind.open(in: dir, schema: v1)) == before)
    }
}
