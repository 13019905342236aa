import Foundation
import Testing
import MoltTesting

/// A plan cannot pass the kit and then be refused on a user's store for data the fixtures lack: for every step
/// whose success depends on the data, the kit generates a store holding that data at the step's version and
/// migrates it with the plan.
@Suite("Steps whose success depends on the data")
struct DataDependentStepTests {
    static let v1 = Schema(version: 1) {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("nickname", .string, isOptional: true)
        }
    }
    /// `nickname` renamed to `handle`, now required with no default.
    static let v2 = Schema(version: 2) {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("handle", .string, originalName: "nickname")
        }
    }
    /// A stage that does not touch people: the developer counted on the rename to carry the value.
    static let idle = MigrationStage.custom(from: 1, to: 2) { _ in }
    /// Tidy fixtures: every person has a nickname, as in a development store.
    static let tidy = [Fixture("Person", "ada", ["name": "Ada", "nickname": "ace"])]

    static let renameFailure = #"""
        Step 1 → 2 depends on the data: 'Person.handle' becomes required with no default (it was the optional 'Person.nickname'), and a store at version 1 where a 'Person' object has no value in 'nickname' cannot migrate. The kit generated such a store, and the migration to version 2 failed: Attribute 'Person.handle' is required in version 2, but 1 object(s) have no value after the stage 1 → 2. Set it for every object in the stage (for example `new["handle"] = …` in `enumerateObjects(ofType: "Person")`), give the attribute a default, or make it optional. The store was left at version 1.
        Set it for every object in the stage from version 1 to 2 (`new["handle"] = …` in `enumerateObjects(ofType: "Person")`), give it a default, or make it optional. If no store of version 1 can hold such data, say so: `tester.assumingNeverStored("Person.handle", from: 1, to: 2)`.
        """#

    @Test(
        "the issue's case: a rename from optional to required passes with tidy fixtures, and fails the kit for the null a user's store holds"
    )
    func optionalToRequiredRename() throws {
        let tester = MigrationTester(plan: try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [Self.idle]))
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion { _ in
                Self.tidy
            } expect: { _ in
                .survives(["handle": "ace"])
            }
        }
        #expect(error.code == .dataDependentStepFails)
        #expect(error.version == 1)
        #expect(error.entity == "Person")
        #expect(error.attribute == "handle")
        #expect(error.message == Self.renameFailure)
        // The same from one starting version, and alone.
        let single = try #require(throws: MigrationTestError.self) { try tester.migrate(from: 1, fixtures: Self.tidy) }
        #expect(single.message == Self.renameFailure)
        let alone = try #require(throws: MigrationTestError.self) { try tester.checkDataDependentSteps() }
        #expect(alone.message == Self.renameFailure)
    }

    @Test("a stage that sets the value where it was null passes, fixtures and generated data alike")
    func stageThatFillsPasses() throws {
        let fill = MigrationStage.custom(from: 1, to: 2) { migration in
            try migration.enumerateObjects(ofType: "Person") { old, new in
                new["handle"] = old["nickname"].isNull ? "anonymous" : old["nickname"]
            }
        }
        let tester = MigrationTester(plan: try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [fill]))
        let runs = try tester.migrateFromEveryVersion { _ in
            Self.tidy
        } expect: { _ in
            .survives(["handle": "ace"])
        }
        #expect(runs.map(\.fromVersion) == [1])
        #expect(try tester.dataDependentSteps().map(\.subject) == ["Person.handle"])
    }

    @Test("data the app never stores can be ruled out for one step; an assumption that names nothing fails")
    func assumptions() throws {
        let tester = MigrationTester(plan: try MigrationPlan(schemas: [Self.v1, Self.v2], stages: [Self.idle]))
        try tester.assumingNeverStored("Person.handle", from: 1, to: 2)
            .migrateFromEveryVersion { _ in
                Self.tidy
            } expect: { _ in
                .survives(["handle": "ace"])
            }

        let typo = try #require(throws: MigrationTestError.self) {
            try tester.assumingNeverStored("Person.nickname", from: 1, to: 2).checkDataDependentSteps()
        }
        #expect(typo.code == .severalFailures)
        #expect(typo.failures.map(\.code) == [.invalidFixture, .dataDependentStepFails])
        #expect(
            typo.failures.first?.message
                == #"The assumption `assumingNeverStored("Person.nickname", from: 1, to: 2)` names no step whose success depends on the data; the plan has "Person.handle" from 1 to 2. Fix the subject or the versions, or remove it."#
        )
    }

    static let people1 = Schema(version: 1) {
        Entity("Person") {
            Attribute("email", .string)
            Attribute("score", .int, default: 0)
        }
    }
    static let people2 = Schema(version: 2) {
        Entity("Person") {
            Attribute("email", .string)
            Attribute("score", .double, default: 0)
            Index(["email"], unique: true)
        }
    }

    @Test("an inferred step: two equal emails and an integer beyond 2^53 are generated; each refusal is named")
    func inferredStep() throws {
        let tester = MigrationTester(plan: try MigrationPlan(schemas: [Self.people1, Self.people2]))
        #expect(
            try tester.dataDependentSteps().map(\.description) == [
                "step 1 → 2 depends on the data: 'Person.score' widens from int to double: a store at version 1 where a 'Person' object holds in 'score' an integer beyond 2^53, which has no exact double (such as 9007199254740993) is refused. Keep 'Person.score' an int, or add a new double attribute and fill it in a custom stage from version 1 to 2, rounding as you choose.",
                #"step 1 → 2 depends on the data: 'Person.email' becomes unique: a store at version 1 where two 'Person' objects hold the same 'email' is refused. Make the values unique in a custom stage from version 1 to 2 (`enumerateObjects(ofType: "Person")`), or drop the constraint."#,
            ])
        let fixtures = [Fixture("Person", "ada", ["email": "ada@example.com", "score": 3])]
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion { _ in
                fixtures
            } expect: { _ in
                .survives()
            }
        }
        #expect(error.code == .severalFailures)
        #expect(error.failures.map(\.code) == [.dataDependentStepFails, .dataDependentStepFails])
        #expect(error.message.hasPrefix("2 steps fail on data a user's store may hold:\n"))
        #expect(
            error.failures.map(\.message) == [
                #"""
                Step 1 → 2 depends on the data: 'Person.score' widens from int to double, and a store at version 1 where a 'Person' object holds in 'score' an integer beyond 2^53, which has no exact double (such as 9007199254740993) cannot migrate. The kit generated such a store, and the migration to version 2 failed: Attribute 'Person.score' cannot be widened from 'int' to 'double' in version 2: the value 9007199254740993 of the object with _id 1 has no exact double, and Molt never rounds a value silently. Convert the values in a custom stage to version 2, or keep the attribute an int.
                Keep 'Person.score' an int, or add a new double attribute and fill it in a custom stage from version 1 to 2, rounding as you choose. If no store of version 1 can hold such data, say so: `tester.assumingNeverStored("Person.score", from: 1, to: 2)`.
                """#,
                #"""
                Step 1 → 2 depends on the data: 'Person.email' becomes unique, and a store at version 1 where two 'Person' objects hold the same 'email' cannot migrate. The kit generated such a store, and the migration to version 2 failed: Cannot add the uniqueness constraint on 'Person'(email) in version 2: the value ("sample 0") is held by 2 objects. Make the values unique in a custom stage before this version, or drop the constraint.
                Make the values unique in a custom stage from version 1 to 2 (`enumerateObjects(ofType: "Person")`), or drop the constraint. If no store of version 1 can hold such data, say so: `tester.assumingNeverStored("Person.email", from: 1, to: 2)`.
                """#,
            ])
    }

    /// A unique index over a to-one relationship and an attribute: the data that breaks it is two notes of one
    /// folder with the same title, so the kit must link both probes to one folder (two unlinked notes never clash).
    static func notes(version: Int, unique: Bool) -> Schema {
        Schema(version: version) {
            Entity("Folder") { Attribute("name", .string) }
            Entity("Note") {
                Attribute("title", .string)
                Relationship("folder", to: "Folder")
                if unique { Index(["folder", "title"], unique: true) }
            }
        }
    }

    @Test("a unique index over a to-one link is named as data-dependent, and the kit links both probes to one object")
    func uniqueOverToOne() throws {
        let tester = MigrationTester(
            plan: try MigrationPlan(schemas: [
                Self.notes(version: 1, unique: false), Self.notes(version: 2, unique: true),
            ]))
        #expect(
            try tester.dataDependentSteps().map(\.description) == [
                #"step 1 → 2 depends on the data: 'Note'(folder, title) becomes unique: a store at version 1 where two 'Note' objects hold the same values of 'folder', 'title' is refused. Make the values unique in a custom stage from version 1 to 2 (`enumerateObjects(ofType: "Note")`), or drop the constraint."#
            ])
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion { _ in
                [Fixture("Folder", "home", ["name": "home"])]
            } expect: { _ in
                .survives()
            }
        }
        #expect(error.code == .dataDependentStepFails)
        #expect(
            error.message.contains("Cannot add the uniqueness constraint on 'Note'(folder, title) in version 2"),
            "\(error.message)")
    }

    @Test("a step of a later version is checked from that version, even when the fixtures start earlier")
    func laterStep() throws {
        // Version 2 adds an attribute (inferred); version 3 is the rename, in a stage that sets nothing.
        var v2 = Self.v1.withVersion(2)
        v2.entities[0].attributes.append(Attribute("joined", .date, isOptional: true))
        var v3 = Self.v2.withVersion(3)
        v3.entities[0].attributes.append(Attribute("joined", .date, isOptional: true))
        let plan = try MigrationPlan(schemas: [Self.v1, v2, v3], stages: [.custom(from: 2, to: 3) { _ in }])
        let error = try #require(throws: MigrationTestError.self) {
            try MigrationTester(plan: plan).migrate(from: 1, fixtures: Self.tidy) { _ in .survives(["handle": "ace"]) }
        }
        #expect(error.code == .dataDependentStepFails)
        #expect(error.version == 2)
        #expect(
            error.message.hasPrefix(
                "Step 2 → 3 depends on the data: 'Person.handle' becomes required with no default (it was the optional 'Person.nickname'), and a store at version 2 where a 'Person' object has no value in 'nickname' cannot migrate."
            ))
    }
}

/// The data the kit generates for the rules the other tests do not reach: a value in a removed attribute, an
/// object of a removed entity, an object linked from two, a link one side holds alone. Each plan passes tidy
/// fixtures (none) and fails the generated store, naming the step and the data.
@Suite("Generated data for every kind of rule")
struct GeneratedDataTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var from: Schema
        var to: Schema
        var opening: String
        var testDescription: String { name }
    }

    static let owners1 = Schema(version: 1) {
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("items", toMany: "Item")
        }
        Entity("Item") {
            Attribute("title", .string)
            Relationship("holder", to: "Owner")
        }
    }
    static let owners2 = Schema(version: 2) {
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("items", toMany: "Item", inverse: "owner")
        }
        Entity("Item") {
            Attribute("title", .string)
            Relationship("holder", to: "Owner")
            Relationship("owner", to: "Owner", inverse: "items")
        }
    }
    static let holders2 = Schema(version: 2) {
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("items", toMany: "Item", inverse: "holder")
        }
        Entity("Item") {
            Attribute("title", .string)
            Relationship("holder", to: "Owner", inverse: "items")
        }
    }

    /// `owners1` at version 2 with `holder` as given, and a required `Owner.heir` when `heir`.
    ///
    /// With `keeper`, `Item.keeper` too, required when `keeperRequired`; `Owner.items` with the minimum `items`.
    static func owners2(
        holder: Relationship, heir: Bool = false, keeper: Bool = false, keeperRequired: Bool = false, items: Int = 0
    ) -> Schema {
        Schema(
            version: 2,
            entities: [
                Entity(
                    "Owner", attributes: [Attribute("name", .string)],
                    relationships: [Relationship("items", toMany: "Item", minimumCount: items)]
                        + (heir ? [Relationship("heir", to: "Owner", isOptional: false)] : [])),
                Entity(
                    "Item", attributes: [Attribute("title", .string)],
                    relationships: [holder]
                        + (keeper ? [Relationship("keeper", to: "Owner", isOptional: !keeperRequired)] : [])),
            ])
    }

    static let cases: [Case] = [
        Case(
            name: "a value in an attribute removed as a likely rename",
            from: Schema(version: 1) { Entity("Person") { Attribute("age", .int, isOptional: true) } },
            to: Schema(version: 2) { Entity("Person") { Attribute("years", .int, isOptional: true) } },
            opening:
                "Step 1 → 2 depends on the data: 'Person.age' is removed while 'years' of the same type is added (a likely rename), and a store at version 1 where a 'Person' object holds a value in 'age' cannot migrate. The kit generated such a store, and the migration to version 2 failed: Molt will not migrate from version 1 to 2"
        ),
        Case(
            name: "an object of an entity removed without a declaration",
            from: Schema(version: 1) {
                Entity("Person") { Attribute("name", .string) }
                Entity("Draft") { Attribute("text", .string) }
            },
            to: Schema(version: 2) { Entity("Person") { Attribute("name", .string) } },
            opening:
                "Step 1 → 2 depends on the data: entity 'Draft' is removed without a declared deletion, and a store at version 1 where 'Draft' holds an object cannot migrate. The kit generated such a store, and the migration to version 2 failed: Molt will not migrate from version 1 to 2"
        ),
        Case(
            name: "an object linked from two, for a new to-one inverse",
            from: owners1, to: owners2,
            opening:
                "Step 1 → 2 depends on the data: 'Item.owner' is added as the to-one inverse of 'Owner.items', and a store at version 1 where one 'Item' object is linked from two 'Owner' objects through 'Owner.items' cannot migrate. The kit generated such a store, and the migration to version 2 failed: Version 2 adds 'Item.owner' as the to-one inverse of 'Owner.items', but Item #1 is linked from 2 Owner objects (#1, #2)"
        ),
        Case(
            name: "a link one side holds alone, for two relationships made inverses",
            from: owners1, to: holders2,
            opening:
                "Step 1 → 2 depends on the data: 'Item.holder' and 'Owner.items' become each other's inverse, and a store at version 1 where an 'Item' object links through 'holder' to an 'Owner' object whose 'items' does not link back cannot migrate. The kit generated such a store, and the migration to version 2 failed: The migration to version 2 left the two sides of a relationship disagreeing"
        ),
        Case(
            name: "an object linked to nothing, for a to-one made required",
            from: owners1, to: Self.owners2(holder: Relationship("holder", to: "Owner", isOptional: false)),
            opening:
                "Step 1 → 2 depends on the data: 'Item.holder' becomes required (it was optional), and a store at version 1 where an 'Item' object links to nothing through 'holder' cannot migrate. The kit generated such a store, and the migration to version 2 failed: The migration to version 2 left the required relationship 'Item.holder' empty, so nothing was committed: 1 'Item' object (_id 1) has no 'holder'."
        ),
        Case(
            name: "an object linked to nothing, in a version that already requires another of its links",
            from: Self.owners2(holder: Relationship("holder", to: "Owner", isOptional: false), keeper: true)
                .withVersion(1),
            to: Self.owners2(
                holder: Relationship("holder", to: "Owner", isOptional: false), keeper: true, keeperRequired: true),
            opening:
                "Step 1 → 2 depends on the data: 'Item.keeper' becomes required (it was optional), and a store at version 1 where an 'Item' object links to nothing through 'keeper' cannot migrate. The kit generated such a store, and the migration to version 2 failed: The migration to version 2 left the required relationship 'Item.keeper' empty"
        ),
        Case(
            name: "any object, for a to-one added as required",
            from: owners1,
            to: Self.owners2(holder: Relationship("holder", to: "Owner"), heir: true),
            opening:
                "Step 1 → 2 depends on the data: 'Owner.heir' is added as required, and a store at version 1 where an 'Owner' object exists (it starts with no 'heir') cannot migrate. The kit generated such a store, and the migration to version 2 failed: The migration to version 2 left the required relationship 'Owner.heir' empty"
        ),
        Case(
            name:
                "an owner holding only the older minimum, for a minimum count raised by a version that refuses short owners",
            from: Self.owners2(holder: Relationship("holder", to: "Owner"), items: 1).withVersion(1),
            to: Self.owners2(holder: Relationship("holder", to: "Owner"), items: 2).refusingShortOwners(),
            opening:
                "Step 1 → 2 depends on the data: 'Owner.items' must hold at least 2 (its minimum count was 1), and a store at version 1 where an 'Owner' object holds fewer than 2 through 'items' cannot migrate. The kit generated such a store, and the migration to version 2 failed: The migration to version 2 left the relationship 'Owner.items' under its minimum count of 2"
        ),
    ]

    @Test("the kit generates the data and names the refusal", arguments: Self.cases)
    func generated(_ rule: Case) throws {
        let tester = MigrationTester(plan: try MigrationPlan(schemas: [rule.from, rule.to]))
        let error = try #require(throws: MigrationTestError.self) { try tester.migrate(from: 1, fixtures: []) }
        #expect(error.code == .dataDependentStepFails)
        #expect(error.version == 1)
        #expect(error.message.hasPrefix(rule.opening), "\(error.message)")
    }
}

extension DataDependentStepTests {
    static func recipe(_ version: Int, _ fields: [ValueShape.Field]) -> Schema {
        Schema(version: version) { Entity("Recipe") { Attribute("main", .string, shape: .object(fields)) } }
    }

    @Test(
        "a required field added to a JSON value fails the kit for a stored value of the old shape, and a stage that fills it passes"
    )
    func valueShape() throws {
        let v1 = Self.recipe(1, [.init("name", .string)])
        let v2 = Self.recipe(2, [.init("name", .string), .init("unit", .string)])
        let careless = MigrationTester(plan: try MigrationPlan(schemas: [v1, v2]))
        let error = try #require(throws: MigrationTestError.self) { try careless.checkDataDependentSteps() }
        #expect(error.code == .dataDependentStepFails)
        #expect(error.entity == "Recipe")
        #expect(error.attribute == "main")
        #expect(error.message.contains(#"in _id 1, field 'unit' is missing."#))
        let fill = MigrationStage.custom(from: 1, to: 2) { migration in
            for var recipe in try migration.new.fetch("Recipe") {
                guard case .string(let text) = recipe["main"],
                    var value = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                else { continue }
                value["unit"] = "g"
                recipe["main"] = .string(
                    String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self))
                try migration.new.update(recipe)
            }
        }
        try MigrationTester(plan: try MigrationPlan(schemas: [v1, v2], stages: [fill])).checkDataDependentSteps()
    }
}
