import Foundation
import Testing
import Molt

/// The README's quick start, as written, so that it keeps compiling and doing what it says.
@Suite("README quick start")
struct ReadmeQuickStartTests {
    @Test("a version-1 store reaches version 2 with the custom stage, then is used", arguments: [false, true])
    func quickStart(asMapping: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let v1 = Schema(version: 1) {
            Entity("Person") {
                Attribute("firstName", .string)
                Attribute("lastName", .string)
                Attribute("age", .int)
            }
        }
        let v2 = Schema(version: 2) {
            Entity("Person") {
                Attribute("fullName", .string)
                Attribute("yearsSinceBirth", .int, originalName: "age")
                Attribute("email", .string, isOptional: true)
            }
        }
        let old = try Store.open(at: url, schema: v1)
        try old.write { objects in
            try objects.insert("Person", ["firstName": "Grace", "lastName": "Hopper", "age": 85])
        }
        try old.close()

        let stage: MigrationStage =
            asMapping
            ? .mapping(
                from: 1, to: 2,
                [EntityMapping(destination: "Person", attributes: ["fullName": "firstName || ' ' || lastName"])])
            : .custom(from: 1, to: 2) { migration in
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    new["fullName"] = .string("\(old["firstName"].string ?? "") \(old["lastName"].string ?? "")")
                }
            }
        let plan = try MigrationPlan(schemas: [v1, v2], stages: [stage])
        let store = try Store.open(at: url, schema: v2, options: .init().migrating(with: plan))
        try store.write { objects in
            try objects.insert("Person", ["fullName": "Ada Lovelace", "yearsSinceBirth": 36])
        }
        let adults = try store.read { objects in
            try objects.fetch(
                "Person", where: .greaterOrEqual("yearsSinceBirth", 18), orderBy: [.ascending("fullName")])
        }
        #expect(adults.map { $0["fullName"] } == ["Ada Lovelace", "Grace Hopper"])
        #expect(adults.map { $0["yearsSinceBirth"] } == [36, 85])
        #expect(adults.map { $0["email"] } == [.null, .null])
    }
}
