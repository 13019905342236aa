import Foundation
import Testing
@testable import Molt

/// Steps that migrate an empty development store and are refused on a user's store holding some data: each rule
/// of the engine is named once by `SchemaDiff.dataDependencies(_:)`, and each named rule is the engine's: an
/// empty store migrates, a store holding the named data is refused and left as it was.
@Suite("No silent surprise: steps whose success depends on the data")
struct DataDependencyTests {
    /// One rule: the step, how it runs, the data that makes it fail, and what the diff and the engine say.
    struct Rule: Sendable, CustomTestStringConvertible {
        var name: String
        var from: Schema
        var to: Schema
        /// Whether a custom stage (that does nothing) runs the step.
        var isStage = false
        /// Writes the failing data into a store of `from`.
        var fill: @Sendable (Objects) throws -> Void
        /// The dependency, as the diff describes it.
        var dependency: String
        /// The engine's refusal: its code and the start of its message.
        var code: MoltError.Code
        var refusal: String

        var testDescription: String { name }
        var form: SchemaDiff.StepForm { isStage ? .stage : .inferred }

        func plan() throws -> MigrationPlan {
            try MigrationPlan(
                schemas: [from, to], stages: isStage ? [.custom(from: from.version, to: to.version) { _ in }] : [])
        }
    }

    static let person1 = Schema(version: 1) {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("nickname", .string, isOptional: true)
        }
    }

    static let rules: [Rule] = [
        Rule(
            name: "an optional attribute renamed to a required one, in a stage (the issue's case)",
            from: person1,
            to: Schema(version: 2) {
                Entity("Person") {
                    Attribute("name", .string)
                    Attribute("handle", .string, originalName: "nickname")
                }
            },
            isStage: true,
            fill: { _ = try $0.insert("Person", ["name": "Ada"]) },
            dependency:
                #"step 1 → 2 depends on the data: 'Person.handle' becomes required with no default (it was the optional 'Person.nickname'): a store at version 1 where a 'Person' object has no value in 'nickname' is refused. Set it for every object in the stage from version 1 to 2 (`new["handle"] = …` in `enumerateObjects(ofType: "Person")`), give it a default, or make it optional."#,
            code: .validationFailed,
            refusal:
                "Attribute 'Person.handle' is required in version 2, but 1 object(s) have no value after the stage 1 → 2."
        ),
        Rule(
            name: "a required attribute added in a stage",
            from: person1,
            to: Schema(version: 2) {
                Entity("Person") {
                    Attribute("name", .string)
                    Attribute("nickname", .string, isOptional: true)
                    Attribute("score", .int)
                }
            },
            isStage: true,
            fill: { _ = try $0.insert("Person", ["name": "Ada"]) },
            dependency:
                #"step 1 → 2 depends on the data: 'Person.score' is added as required with no default: a store at version 1 where a 'Person' object exists is refused. Set it for every object in the stage from version 1 to 2 (`new["score"] = …` in `enumerateObjects(ofType: "Person")`), give it a default, or make it optional."#,
            code: .validationFailed,
            refusal:
                "Attribute 'Person.score' is required in version 2, but 1 object(s) have no value after the stage 1 → 2."
        ),
        Rule(
            name: "a uniqueness constraint added",
            from: Schema(version: 1) { Entity("Person") { Attribute("email", .string) } },
            to: Schema(version: 2) {
                Entity("Person") {
                    Attribute("email", .string)
                    Index(["email"], unique: true)
                }
            },
            fill: { objects in
                for _ in 0..<2 { _ = try objects.insert("Person", ["email": "ada@example.com"]) }
            },
            dependency:
                #"step 1 → 2 depends on the data: 'Person.email' becomes unique: a store at version 1 where two 'Person' objects hold the same 'email' is refused. Make the values unique in a custom stage from version 1 to 2 (`enumerateObjects(ofType: "Person")`), or drop the constraint."#,
            code: .constraintViolation,
            refusal:
                #"Cannot add the uniqueness constraint on 'Person'(email) in version 2: the value ("ada@example.com") is held by 2 objects."#
        ),
        Rule(
            name: "a widening from int to double",
            from: Schema(version: 1) { Entity("Reading") { Attribute("value", .int) } },
            to: Schema(version: 2) { Entity("Reading") { Attribute("value", .double) } },
            fill: { _ = try $0.insert("Reading", ["value": .int(SchemaDiff.firstInexactInteger)]) },
            dependency:
                "step 1 → 2 depends on the data: 'Reading.value' widens from int to double: a store at version 1 where a 'Reading' object holds in 'value' an integer beyond 2^53, which has no exact double (such as 9007199254740993) is refused. Keep 'Reading.value' an int, or add a new double attribute and fill it in a custom stage from version 1 to 2, rounding as you choose.",
            code: .migrationNotInferable,
            refusal:
                "Attribute 'Reading.value' cannot be widened from 'int' to 'double' in version 2: the value 9007199254740993 of the object with _id 1 has no exact double"
        ),
        Rule(
            name: "an undeclared likely rename",
            from: Schema(version: 1) { Entity("Person") { Attribute("age", .int, isOptional: true) } },
            to: Schema(version: 2) { Entity("Person") { Attribute("years", .int, isOptional: true) } },
            fill: { _ = try $0.insert("Person", ["age": 36]) },
            dependency:
                #"step 1 → 2 depends on the data: 'Person.age' is removed while 'years' of the same type is added (a likely rename): a store at version 1 where a 'Person' object holds a value in 'age' is refused. If it was renamed to 'years', declare `originalName: "age"` on attribute 'years'. If the values are meant to go, declare it: `Schema(version: 2, deleting: [.property("age", of: "Person")])`."#,
            code: .dataLossRefused,
            refusal:
                "Molt will not migrate from version 1 to 2: it would delete stored data that the schema does not declare deleted."
        ),
        Rule(
            name: "an undeclared likely move",
            from: Schema(version: 1) {
                Entity("Person") {
                    Attribute("name", .string)
                    Attribute("street", .string, isOptional: true)
                }
            },
            to: Schema(version: 2) {
                Entity("Person") { Attribute("name", .string) }
                Entity("ContactInfo") { Attribute("street", .string, isOptional: true) }
            },
            fill: { _ = try $0.insert("Person", ["name": "Ada", "street": "Elm St"]) },
            dependency:
                #"step 1 → 2 depends on the data: 'Person.street' is removed while 'ContactInfo.street' of the same name is added (a likely move): a store at version 1 where a 'Person' object holds a value in 'street' is refused. If it moved to 'ContactInfo.street', move its values in a custom stage or a mapping from version 1 to 2. If the values are meant to go, declare it: `Schema(version: 2, deleting: [.property("street", of: "Person")])`."#,
            code: .dataLossRefused,
            refusal:
                "Molt will not migrate from version 1 to 2: it would delete stored data that the schema does not declare deleted."
        ),
        Rule(
            name: "an undeclared entity removal",
            from: Schema(version: 1) {
                Entity("Person") { Attribute("name", .string) }
                Entity("Draft") { Attribute("text", .string) }
            },
            to: Schema(version: 2) { Entity("Person") { Attribute("name", .string) } },
            fill: { _ = try $0.insert("Draft", ["text": "unsent"]) },
            dependency:
                #"step 1 → 2 depends on the data: entity 'Draft' is removed without a declared deletion: a store at version 1 where 'Draft' holds an object is refused. If its objects are meant to go, declare it: `Schema(version: 2, deleting: [.entity("Draft")])`. If its objects become other objects, read them in a custom stage from version 1 to 2."#,
            code: .dataLossRefused,
            refusal:
                "Molt will not migrate from version 1 to 2: it would delete stored data that the schema does not declare deleted."
        ),
        Rule(
            name: "a new to-one inverse of a to-many that links an object from two",
            from: Schema(version: 1) {
                Entity("Owner") {
                    Attribute("name", .string)
                    Relationship("items", toMany: "Item")
                }
                Entity("Item") { Attribute("title", .string) }
            },
            to: Schema(version: 2) {
                Entity("Owner") {
                    Attribute("name", .string)
                    Relationship("items", toMany: "Item", inverse: "owner")
                }
                Entity("Item") {
                    Attribute("title", .string)
                    Relationship("owner", to: "Owner", inverse: "items")
                }
            },
            fill: { objects in
                let item = try objects.insert("Item", ["title": "lamp"])
                for name in ["Ada", "Bob"] {
                    try objects.set("items", of: try objects.insert("Owner", ["name": .string(name)]), to: [item])
                }
            },
            dependency:
                "step 1 → 2 depends on the data: 'Item.owner' is added as the to-one inverse of 'Owner.items': a store at version 1 where one 'Item' object is linked from two 'Owner' objects through 'Owner.items' is refused. Make 'Item.owner' to-many, or keep one link per object in a custom stage from version 1 to 2.",
            code: .dataLossRefused,
            refusal:
                "Version 2 adds 'Item.owner' as the to-one inverse of 'Owner.items', but Item #1 is linked from 2 Owner objects (#1, #2)"
        ),
        Rule(
            name: "two separate relationships declared inverses",
            from: Schema(version: 1) {
                Entity("Owner") {
                    Attribute("name", .string)
                    Relationship("items", toMany: "Item")
                }
                Entity("Item") {
                    Attribute("title", .string)
                    Relationship("owner", to: "Owner")
                }
            },
            to: Schema(version: 2) {
                Entity("Owner") {
                    Attribute("name", .string)
                    Relationship("items", toMany: "Item", inverse: "owner")
                }
                Entity("Item") {
                    Attribute("title", .string)
                    Relationship("owner", to: "Owner", inverse: "items")
                }
            },
            fill: { objects in
                let owner = try objects.insert("Owner", ["name": "Ada"])
                try objects.set("owner", of: try objects.insert("Item", ["title": "lamp"]), to: owner)
            },
            dependency:
                "step 1 → 2 depends on the data: 'Item.owner' and 'Owner.items' become each other's inverse: a store at version 1 where an 'Item' object links through 'owner' to an 'Owner' object whose 'items' does not link back is refused. Make both sides agree in a custom stage from version 1 to 2 (link through `migration.new`, which keeps both sides in step), or keep them separate relationships.",
            code: .validationFailed,
            refusal:
                "The migration to version 2 left the two sides of a relationship disagreeing, so nothing was committed: 'Item.owner' and its inverse 'Owner.items' disagree on 1 link"
        ),
    ]

    @Test(
        "each rule: the diff names it with the data, an empty store migrates, a store holding the data is refused and left unchanged",
        arguments: Self.rules, StoreKind.durable)
    func rule(_ rule: Rule, kind: StoreKind) throws {
        let diff = SchemaDiff(from: rule.from, to: rule.to)
        #expect(diff.dataDependencies(rule.form).map(\.description) == [rule.dependency])
        let plan = try rule.plan()

        let empty = TemporaryDirectory()
        try kind.open(in: empty, schema: rule.from).close()
        try kind.open(in: empty, schema: rule.to, options: kind.options.migrating(with: plan)).close()

        let dir = TemporaryDirectory()
        let store = try kind.open(in: dir, schema: rule.from)
        try store.write { try rule.fill($0) }
        try store.close()
        let before = FileState(try kind.location(in: dir))
        let error = moltError {
            _ = try kind.open(in: dir, schema: rule.to, options: kind.options.migrating(with: plan))
        }
        #expect(error?.code == rule.code)
        #expect(error?.message.hasPrefix(rule.refusal) == true, "\(error?.message ?? "no error")")
        #expect(FileState(try kind.location(in: dir)) == before)
    }

    @Test(
        "optional to required with a default depends on nothing: a null takes the default, inferred or in a stage",
        arguments: StoreKind.durable)
    func requiredWithDefault(kind: StoreKind) throws {
        let v2 = Schema(version: 2) {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("handle", .string, default: "anonymous", originalName: "nickname")
            }
        }
        for stages in [[], [MigrationStage.custom(from: 1, to: 2) { _ in }]] {
            let form: SchemaDiff.StepForm = stages.isEmpty ? .inferred : .stage
            #expect(SchemaDiff(from: Self.person1, to: v2).dataDependencies(form).isEmpty)
            let dir = TemporaryDirectory()
            let store = try kind.open(in: dir, schema: Self.person1)
            try store.write { objects in _ = try objects.insert("Person", ["name": "Ada"]) }
            try store.close()
            let plan = try MigrationPlan(schemas: [Self.person1, v2], stages: stages)
            let migrated = try kind.open(in: dir, schema: v2, options: kind.options.migrating(with: plan))
            #expect(try migrated.read { try $0.fetch("Person").map { $0["handle"] } } == ["anonymous"])
            try migrated.close()
        }
    }

    @Test("a constraint already unique before, and a new column that stays null, depend on nothing")
    func uniquenessAlreadyGuaranteed() {
        let v1 = Schema(version: 1) {
            Entity("Person") {
                Attribute("email", .string)
                Index(["email"], unique: true)
            }
        }
        let v2 = Schema(version: 2) {
            Entity("Person") {
                Attribute("email", .string)
                Attribute("phone", .string, isOptional: true)
                Index(["email", "phone"], unique: true)
                Index(["phone"], unique: true)
            }
        }
        #expect(SchemaDiff(from: v1, to: v2).dataDependencies(.inferred).isEmpty)
        #expect(SchemaDiff(from: v1, to: v2).dataDependencies(.stage).map(\.subject) == ["Person.phone"])
    }
}
