// Seed 003: Realm basics. The version number goes up with every change; adding an optional property and
// deleting one are automatic; a new property with an initial value, a rename and a combination need a block.
import Foundation
import MoltMacros

enum RealmBasics {
    enum V0: VersionedSchema {
        static let version = 0
        static let models: [any PersistentModel.Type] = [Person.self]
        @Model struct Person {
            var firstName: String
            var lastName: String
            var age: Int
        }
    }

    /// v1: an optional property added, `age` deleted. Automatic.
    enum V1: VersionedSchema {
        static let version = 1
        static let models: [any PersistentModel.Type] = [Person.self]
        @Model struct Person {
            var firstName: String
            var lastName: String
            var email: String?
        }
    }

    /// v2: a property that needs an initial value, and a rename. Automatic too: the default is in the model.
    enum V2: VersionedSchema {
        static let version = 2
        static let models: [any PersistentModel.Type] = [Person.self]
        @Model struct Person {
            var firstName: String
            var lastName: String
            @Attribute(originalName: "email") var mail: String?
            var status: String = "active"
        }
    }

    /// v3: `firstName` and `lastName` combined into `fullName`: a block (a typed stage).
    enum V3: VersionedSchema {
        static let version = 3
        static let models: [any PersistentModel.Type] = [Person.self]
        @Model struct Person {
            var fullName: String
            var mail: String?
            var status: String = "active"
        }
    }

    enum BasicsPlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [V0.self, V1.self, V2.self, V3.self]
        static var stages: [MigrationStage] {
            [
                .custom(from: 2, to: 3) { migration in
                    try migration.enumerateObjects(V2.Person.self, to: V3.Person.self) { old in
                        V3.Person(fullName: "\(old.firstName) \(old.lastName)", mail: old.mail, status: old.status)
                    }
                }
            ]
        }
    }

    static func run(_ check: Checker) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-example-basics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("basics.sqlite")

        let v0 = try Store.open(at: url, schema: V0.schema)
        try v0.write { objects in
            try objects.insert(V0.Person(firstName: "Taro", lastName: "Yamada", age: 30))
            try objects.insert(V0.Person(firstName: "Hanako", lastName: "Suzuki", age: 25))
        }
        try v0.close()
        check.expect(try Store.version(at: url), 0, "the schema version starts at 0")

        // Opening with v1 alone: automatic, no plan needed.
        let v1 = try Store.open(at: url, schema: V1.schema)
        try v1.write { objects in
            var taro = try objects.fetch(V1.Person.self, where: \.firstName == "Taro")[0]
            taro.email = "taro@example.jp"
            try objects.save(taro)
        }
        try v1.close()

        // Opening with the plan: the migration runs on this first open.
        let store = try Store.open(at: url, plan: BasicsPlan.self)
        let people = try store.read { try $0.fetch(V3.Person.self, orderBy: [.ascending(\.fullName)]) }
        check.expect(people.map(\.fullName), ["Hanako Suzuki", "Taro Yamada"], "names combined into fullName")
        check.expect(people.map(\.mail), [nil, "taro@example.jp"], "email renamed to mail, value kept")
        check.expect(people.map(\.status), ["active", "active"], "status given its initial value")
        check.expect(try Store.version(at: url), 3, "the store is at version 3")
        try store.close()
    }
}
