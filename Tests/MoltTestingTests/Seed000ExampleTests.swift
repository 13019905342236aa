import Foundation
import Testing
import MoltTesting

/// The memo app of seed 000 through all its versions, tested the way the README shows: every shipped
/// version recorded, and a store of each migrated to version 6 with its memos checked.
@Suite("Seed 000 with the test kit (the README example)")
struct Seed000ExampleTests {

    static let base: [Attribute] = [
        Attribute("objectID", .uuid), Attribute("memoTitle", .string), Attribute("memoDate", .date),
        Attribute("memoSubtitle", .string, isOptional: true), Attribute("memoContent", .string, isOptional: true),
        Attribute("favorite", .bool, default: false),
    ]
    static func renamed(_ attributes: [Attribute]) -> [Attribute] {
        attributes.map { $0.name == "memoTitle" ? Attribute("title", .string, originalName: "memoTitle") : $0 }
    }
    static func plain(_ attributes: [Attribute]) -> [Attribute] {
        attributes.map {
            var a = $0; a.originalName = nil; return a
        }
    }

    static let v0 = Schema(version: 0, entities: [Entity("UserMemo", primaryKey: "objectID", attributes: base)])
    static let v1 = Schema(
        version: 1,
        entities: [
            Entity("UserMemo", primaryKey: "objectID", attributes: base + [Attribute("count", .int, default: 0)])
        ])
    static let v2 = Schema(version: 2, entities: [Entity("UserMemo", primaryKey: "objectID", attributes: base)])
    static let v3 = Schema(
        version: 3, entities: [Entity("UserMemo", primaryKey: "objectID", attributes: renamed(base))])
    static let v4 = Schema(
        version: 4,
        entities: [
            Entity(
                "UserMemo", primaryKey: "objectID",
                attributes: plain(renamed(base)) + [Attribute("memoDescription", .string)])
        ])
    static let v5 = Schema(
        version: 5,
        entities: [
            Entity(
                "UserMemo", primaryKey: "objectID",
                attributes: v4.entities[0].attributes + [Attribute("count", .int, isOptional: true, default: 100)])
        ])
    static let v6 = Schema(
        version: 6,
        entities: [
            Entity(
                "UserMemo", primaryKey: "objectID",
                attributes: v4.entities[0].attributes + [Attribute("count", .double)])
        ])
    static let schemas = [v0, v1, v2, v3, v4, v5, v6]

    static let stages: [MigrationStage] = [
        .custom(from: 3, to: 4) { migration in
            try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                new["memoDescription"] = .string("\(old["title"].string ?? "") - \(old["memoSubtitle"].string ?? "")")
            }
        },
        .custom(from: 5, to: 6) { migration in
            try migration.enumerateObjects(ofType: "UserMemo") { old, new in
                new["count"] = .double(Double(old["count"].int ?? 0))
            }
        },
    ]

    static let id = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!
    static let day = Date(timeIntervalSince1970: 1_700_000_000)

    /// One memo, in the schema of `version`.
    static func fixtures(at version: Int) -> [Fixture] {
        var values: [String: Value] = [
            "objectID": .uuid(id), version >= 3 ? "title" : "memoTitle": "Groceries", "memoDate": .date(day),
            "memoSubtitle": "milk, eggs",
        ]
        if version >= 4 { values["memoDescription"] = "Groceries - milk, eggs" }
        if version == 5 { values["count"] = 7 }
        return [Fixture("UserMemo", "groceries", values)]
    }

    @Test("every shipped version of the memo app reaches version 6 with its memo intact")
    func everyVersionReachesTheNewest() throws {
        let dir = TemporaryDirectory()
        let snapshots = SchemaSnapshots(directory: dir.url.appendingPathComponent("__Schemas__"), recordMode: .never)
        try snapshots.record(Self.schemas)
        try snapshots.verify(Self.schemas)

        // A memo's count never nears 2^53, the one value the int → double widening of 6 refuses (before the stage
        // runs, so the stage could not convert it either): the app says so, and the kit does not generate it.
        let tester = MigrationTester(
            plan: try MigrationPlan(schemas: Self.schemas, stages: Self.stages), snapshots: snapshots
        )
        .assumingNeverStored("UserMemo.count", from: 5, to: 6)
        // The kit predicts what the schemas carry over (the title renamed in 3, count added with 100 in 5 and
        // widened to a double in 6); the test gives what a stage computes.
        let runs = try tester.migrateFromEveryVersion(fixtures: Self.fixtures(at:), expectedCounts: ["UserMemo": 1]) {
            _ in
            .survives(["memoDescription": "Groceries - milk, eggs"])
        } check: { migrated in
            let memo = try #require(try migrated.object("groceries"))
            #expect(memo["count"] == (migrated.fromVersion == 5 ? 7.0 : 100.0))
        }
        #expect(runs.map(\.path.count) == [7, 6, 5, 4, 3, 2])
    }

    @Test("forgetting the 5 → 6 stage is caught before any user runs it")
    func forgottenStage() throws {
        let tester = MigrationTester(schemas: Self.schemas, stages: [Self.stages[0]])
        let error = try #require(throws: MigrationTestError.self) {
            try tester.migrateFromEveryVersion(fixtures: Self.fixtures(at:))
        }
        #expect(error.failures.map(\.code) == Array(repeating: .missingStage, count: 6))
        #expect(error.failures.map(\.attribute) == Array(repeating: "count", count: 6))
        #expect(
            error.failures[5].message == """
                From version 5: no stage leads from version 5 to 6, and Molt cannot infer that step:
                - Attribute 'UserMemo.count' has been made required between versions 5 and 6, but it has no default value for the objects where it is null. Give it a default (`default: …`), or fill the null values in a custom stage from version 5 to 6.
                Add a stage `.custom(from: 5, to: 6) { migration in … }` to the plan.
                """)
    }
}
