// Seed 001: Realm in production. Rename `age` to `yearsSinceBirth`, merge `firstName` and `lastName` into
// `fullName`, split one model into two, and run the versions one at a time (Realm's block only sees the oldest
// and the newest schema).
import Foundation
import MoltMacros

enum RealmPeople {
    enum V1: VersionedSchema {
        static let version = 1
        static let models: [any PersistentModel.Type] = [Person.self]
        @Model struct Person {
            var firstName: String
            var lastName: String
            var age: Int
            var street: String
            var city: String
        }
    }

    /// v2 merges the names, renames `age`, and moves the address into a model of its own.
    enum V2: VersionedSchema {
        static let version = 2
        static let models: [any PersistentModel.Type] = [Person.self, Address.self]
        @Model struct Person {
            var fullName: String
            @Attribute(originalName: "age") var yearsSinceBirth: Int
            @Relationship(inverse: "resident", deleteRule: .cascade) var addresses: ToMany<Address> = []
        }
        @Model struct Address {
            var street: String
            var city: String
            @Relationship(inverse: "addresses") var resident: ToOne<Person> = nil
        }
    }

    /// v3 adds an optional e-mail: inferred.
    enum V3: VersionedSchema {
        static let version = 3
        static let models: [any PersistentModel.Type] = [Person.self, Address.self]
        @Model struct Person {
            var fullName: String
            var yearsSinceBirth: Int
            var email: String?
            @Relationship(inverse: "resident", deleteRule: .cascade) var addresses: ToMany<Address> = []
        }
        @Model struct Address {
            var street: String
            var city: String
            @Relationship(inverse: "addresses") var resident: ToOne<Person> = nil
        }
    }

    /// Records which steps ran, to show that a v1 store goes 1 → 2 → 3.
    final class StepLog: @unchecked Sendable {
        private let lock = NSLock()
        private var steps: [String] = []
        func add(_ step: String) { lock.lock(); steps.append(step); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return steps }
    }
    static let steps = StepLog()

    enum PeoplePlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [V1.self, V2.self, V3.self]
        static var stages: [MigrationStage] {
            [
                .custom(from: 1, to: 2) { migration in
                    steps.add("\(migration.fromVersion) → \(migration.toVersion)")
                    // The stage sees exactly versions 1 and 2, whatever the newest version is.
                    try migration.enumerateObjects(V1.Person.self, to: V2.Person.self) { old in
                        V2.Person(fullName: "\(old.firstName) \(old.lastName)", yearsSinceBirth: old.age)
                    }
                    try migration.enumerateOldObjects(V1.Person.self) { old in
                        try migration.new.insert(
                            V2.Address(street: old.street, city: old.city, resident: ToOne(id: old.persistentID)))
                    }
                }
            ]
        }
    }

    static func run(_ check: Checker) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-example-people-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("people.sqlite")

        let v1 = try Store.open(at: url, schema: V1.schema)
        try v1.write { objects in
            try objects.insert(
                V1.Person(firstName: "Kim", lastName: "Minsu", age: 31, street: "Sejong-daero 1", city: "Seoul"))
            try objects.insert(
                V1.Person(firstName: "Lee", lastName: "Jiyoung", age: 27, street: "Haeundae-ro 2", city: "Busan"))
        }
        try v1.close()

        let store = try Store.open(at: url, plan: PeoplePlan.self)
        try store.read { objects in
            let people = try objects.fetch(V3.Person.self, orderBy: [.ascending(\.fullName)])
            check.expect(people.map(\.fullName), ["Kim Minsu", "Lee Jiyoung"], "names merged into fullName")
            check.expect(people.map(\.yearsSinceBirth), [31, 27], "age renamed to yearsSinceBirth, values kept")
            check.expect(people.map(\.email), [nil, nil], "email added as optional")
            check.expect(
                try people.map { try objects.destinations(\.addresses, of: $0).map(\.city) }, [["Seoul"], ["Busan"]],
                "one model split into two, linked")
            check.expect(
                try objects.count(V3.Address.self, where: \.street == "Sejong-daero 1"), 1, "address values moved")
        }
        check.expect(steps.all, ["1 → 2"], "the custom stage ran once, from 1 to 2; 2 → 3 was inferred after it")
        check.expect(
            try store.history().map { "\($0.fromVersion)→\($0.toVersion)" }, ["1→3"], "one recorded run from 1 to 3")
        try store.close()
    }
}
