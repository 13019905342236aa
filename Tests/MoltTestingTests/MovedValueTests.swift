import Foundation
import Testing
import MoltTesting

/// Testing a split with the kit: a value moved to another entity is neither kept in place nor dropped. The
/// expectation says where it goes (`moving(_:to:)`), and the run checks that it is there.
@Suite("Moved values in expectations")
struct MovedValueTests {
    static let v3 = Schema(version: 3) {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("street", .string, isOptional: true)
            Attribute("city", .string, isOptional: true)
        }
    }
    /// Version 4 splits Person: street and city move to a new ContactInfo, linked from Person.contact.
    static let v4 = Schema(version: 4) {
        Entity("Person") {
            Attribute("name", .string)
            Relationship("contact", to: "ContactInfo", inverse: "person")
        }
        Entity("ContactInfo") {
            Attribute("street", .string, isOptional: true)
            Attribute("city", .string, isOptional: true)
            Relationship("person", to: "Person", inverse: "contact")
        }
    }

    /// The split; `keepingCity: false` is the stage that forgets the city.
    static func split(keepingCity: Bool = true) -> MigrationStage {
        .custom(from: 3, to: 4) { migration in
            try migration.enumerateOldObjects(ofType: "Person") { old in
                var values: [String: Value] = ["street": old["street"]]
                if keepingCity { values["city"] = old["city"] }
                let contact = try migration.create("ContactInfo", value: values)
                guard let person = try migration.new.object("Person", id: old.id) else { return }
                try migration.new.set("contact", of: person, to: contact)
            }
        }
    }

    static let fixtures = [
        Fixture("Person", "ada", ["name": "Ada", "street": "Elm St", "city": "Paris"]),
        Fixture("Person", "bob", ["name": "Bob", "street": "Oak St", "city": "Paris"]),
    ]

    static func tester(_ stage: MigrationStage) throws -> MigrationTester {
        MigrationTester(plan: try MigrationPlan(schemas: [v3, v4], stages: [stage]))
    }

    static func moved(_ old: FixtureObject) -> ObjectExpectation {
        .survives().moving("street", to: "ContactInfo.street").moving("city", to: "ContactInfo.city")
    }

    @Test("the split stage moves street and city: the moves are found through Person.contact")
    func splitPasses() throws {
        let run = try Self.tester(Self.split()).migrate(
            from: 3, fixtures: Self.fixtures, expectedCounts: ["ContactInfo": 2], expect: Self.moved)
        #expect(run.path == [3, 4])
    }

    @Test("undeclared, the moved values read as a loss, as before")
    func undeclaredMoveIsALoss() throws {
        let error = try #require(throws: MigrationTestError.self) {
            try Self.tester(Self.split()).migrate(from: 3, fixtures: Self.fixtures)
        }
        #expect(error.code == .lossNotDeclared)
    }

    @Test("a stage that forgets the city fails, naming the value and where it was expected")
    func forgottenCity() throws {
        let error = try #require(throws: MigrationTestError.self) {
            try Self.tester(Self.split(keepingCity: false)).migrate(
                from: 3, fixtures: Self.fixtures, expect: Self.moved)
        }
        #expect(error.code == .valueMismatch)
        #expect(error.object == "ada")
        #expect(error.attribute == "city")
        #expect(
            error.message == """
                From version 3 (path 3 → 4): 2 of 2 fixture objects differ after the migration to version 4:
                'Person' object "ada" (_id 1, stored at version 3):
                  city: expected "Paris" in 'ContactInfo.city', found nothing: version 4 removes it
                'Person' object "bob" (_id 2, stored at version 3):
                  city: expected "Paris" in 'ContactInfo.city', found nothing: version 4 removes it
                Fix the stages on the path 3 → 4 (or the `originalName` hints) to carry the data over, or state the intended change in the expectation.
                """)
    }

    @Test("a value found only in another person's contact is not this person's: the search follows the links")
    func wrongContact() throws {
        // Every contact gets Ada's street: Bob's street is found in no contact linked from Bob.
        let swapped = MigrationStage.custom(from: 3, to: 4) { migration in
            try migration.enumerateOldObjects(ofType: "Person") { old in
                let contact = try migration.create("ContactInfo", value: ["street": "Elm St", "city": old["city"]])
                guard let person = try migration.new.object("Person", id: old.id) else { return }
                try migration.new.set("contact", of: person, to: contact)
            }
        }
        let error = try #require(throws: MigrationTestError.self) {
            try Self.tester(swapped).migrate(from: 3, fixtures: Self.fixtures, expect: Self.moved)
        }
        #expect(
            error.message.contains(
                """
                'Person' object "bob" (_id 2, stored at version 3):
                  street: expected "Oak St" in 'ContactInfo.street', found nothing: version 4 removes it
                """))
        #expect(!error.message.contains("\"ada\""))
    }

    @Test(
        "a move declared for an attribute the migration keeps in place fails; a wrong destination is an invalid fixture"
    )
    func keptInPlaceAndUnknownDestination() throws {
        let kept = try #require(throws: MigrationTestError.self) {
            try Self.tester(Self.split()).migrate(from: 3, fixtures: Self.fixtures) { old in
                Self.moved(old).moving("name", to: "ContactInfo.street")
            }
        }
        #expect(
            kept.message.contains(
                """
                'Person' object "ada" (_id 1, stored at version 3):
                  name: expected "Ada" in 'ContactInfo.street', found "Ada"
                """))

        let unknown = try #require(throws: MigrationTestError.self) {
            try Self.tester(Self.split()).migrate(from: 3, fixtures: Self.fixtures) { _ in
                .survives().moving("street", to: "Contact.street").moving("city", to: "ContactInfo.city")
            }
        }
        #expect(unknown.code == .invalidFixture)
        #expect(
            unknown.message
                == #"From version 3: the expectation of fixture "ada" moves 'street' to 'Contact.street', but version 4 has no attribute 'Contact.street'. Name the destination as `Entity.attribute` of the newest version."#
        )
    }
}
