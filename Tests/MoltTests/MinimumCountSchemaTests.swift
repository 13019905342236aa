import Foundation
import Molt
import Testing

/// Minimum counts in schemas: the snapshot field, validation, the diff and the data-dependent steps.
@Suite("Minimum counts in schemas")
struct MinimumCountSchemaTests {
    static let none = MinimumCountTests.schema(1, minimum: 0)
    static let two = MinimumCountTests.schema(2, minimum: 2)

    @Test("a snapshot writes 'minimumCount' only when there is one, so older snapshots and hashes read unchanged")
    func snapshot() throws {
        func fields(_ relationship: Relationship) throws -> [String: String] {
            let object = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(relationship))
            return ((object as? [String: Any]) ?? [:]).mapValues { "\($0)" }
        }
        #expect(
            try fields(Relationship("options", toMany: "Option")) == [
                "name": "options", "destination": "Option", "kind": "toMany", "ordered": "0", "deleteRule": "nullify",
            ])
        #expect(try fields(Relationship("options", toMany: "Option", minimumCount: 2))["minimumCount"] == "2")
        #expect(try Schema(snapshotJSON: try Self.two.snapshotJSON()) == Self.two)
        let old = #"{"name": "options", "destination": "Option", "kind": "toMany", "deleteRule": "nullify"}"#
        #expect(try JSONDecoder().decode(Relationship.self, from: Data(old.utf8)).minimumCount == 0)
        // A minimum of 0 is no minimum: the same hash as a relationship without one; another minimum changes it.
        var zero = Self.none
        zero.edit("Question") { $0.relationships[0].minimumCount = 0 }
        #expect(zero.contentHash == Self.none.contentHash)
        var raised = Self.none
        raised.edit("Question") { $0.relationships[0].minimumCount = 1 }
        #expect(raised.contentHash != Self.none.contentHash)
    }

    @Test("a negative minimum, or a minimum on a to-one, is refused naming the relationship and the fix")
    func validation() throws {
        var negative = Self.none
        negative.edit("Question") { $0.relationships[0].minimumCount = -1 }
        #expect(
            moltError { try negative.validate() }?.message
                == "Invalid schema version 1: relationship 'Question.options' has the minimum count -1; a minimum count is 0 (none) or more."
        )
        var toOne = Self.none
        toOne.edit("Option") { $0.relationships[0].minimumCount = 1 }
        #expect(
            moltError { try toOne.validate() }?.message
                == "Invalid schema version 1: relationship 'Option.question' is to-one and cannot have a minimum count; make it required instead (`isOptional: false`)."
        )
        try Self.two.validate()
    }

    @Test("the diff names a minimum raised or lowered, both inferable")
    func diff() throws {
        let raised = SchemaDiff(from: Self.none, to: Self.two).changes
        #expect(
            raised.map(\.description) == [
                "Relationship 'Question.options' has changed its minimum count from none to 2."
            ])
        #expect(raised.map(\.kind) == [.relationshipMinimumCountChanged(from: 0, to: 2)])
        #expect(raised.map(\.isInferable) == [true])
        let lowered = SchemaDiff(from: Self.two, to: MinimumCountTests.schema(3, minimum: 1)).changes
        #expect(
            lowered.map(\.description) == [
                "Relationship 'Question.options' has changed its minimum count from 2 to 1."
            ])
        #expect(lowered.map(\.isInferable) == [true])
    }

    @Test(
        "raising a minimum, or adding a relationship with one, is a data-dependent step only into a version that refuses short owners; lowering it never is"
    )
    func dataDependencies() throws {
        let kept = SchemaDiff(from: MinimumCountTests.schema(1, minimum: 1), to: Self.two)
        #expect(kept.dataDependencies(.inferred).isEmpty)
        #expect(
            kept.raisedMinimums().map { "\($0.entity).\($0.relationship.name) from \($0.before?.minimumCount ?? -1)" }
                == ["Question.options from 1"])
        let raised = SchemaDiff(from: MinimumCountTests.schema(1, minimum: 1), to: Self.two.refusingShortOwners())
            .dataDependencies(.inferred)
        #expect(
            raised.map(\.description) == [
                "step 1 → 2 depends on the data: 'Question.options' must hold at least 2 (its minimum count was 1): a store at version 1 where a 'Question' object holds fewer than 2 through 'options' is refused. Link enough 'Option' objects to every 'Question' object in a custom stage from version 1 to 2 (`migration.new.add(destination, to: \"options\", of: object)`), delete the ones that hold too few, lower the minimum count of 'Question.options', or keep the short owners (remove `refusingShortOwners()` from version 2)."
            ])
        #expect(raised.first?.kind == .requiredLink)
        #expect(raised.first?.witness == .object(entity: "Question", attribute: nil, value: .null))
        var added = Self.none
        added.version = 2
        added.edit("Option") { $0.relationships.append(Relationship("related", toMany: "Option", minimumCount: 1)) }
        #expect(SchemaDiff(from: Self.none, to: added).dataDependencies(.stage).isEmpty)
        #expect(
            SchemaDiff(from: Self.none, to: added.refusingShortOwners()).dataDependencies(.stage).map(\.description)
                == [
                    "step 1 → 2 depends on the data: 'Option.related' is added with the minimum count 1: a store at version 1 where an 'Option' object exists (it starts with no 'related') is refused. Make the stage from version 1 to 2 link enough 'Option' objects to every 'Option' object (or delete the ones that hold too few), lower the minimum count of 'Option.related', or keep the short owners (remove `refusingShortOwners()` from version 2)."
                ])
        #expect(
            SchemaDiff(from: Self.two, to: MinimumCountTests.schema(3, minimum: 0).refusingShortOwners())
                .dataDependencies(.inferred).isEmpty)
    }

    @Test(
        "a version that refuses short owners says so in its snapshot, and reads back the same; the default writes nothing"
    )
    func strictSnapshot() throws {
        let strict = Self.two.refusingShortOwners()
        let json = String(decoding: try strict.snapshotJSON(), as: UTF8.self)
        #expect(json.contains("\"shortOwners\" : \"refused\""))
        #expect(try Schema(snapshotJSON: try strict.snapshotJSON()) == strict)
        #expect(!String(decoding: try Self.two.snapshotJSON(), as: UTF8.self).contains("shortOwners"))
        #expect(strict.contentHash == Self.two.contentHash)
        #expect(strict != Self.two)
    }
}
