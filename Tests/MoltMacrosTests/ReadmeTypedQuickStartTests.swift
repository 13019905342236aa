import Foundation
import MoltMacros
import Testing

// The README's typed quick start, as written there.

enum AppV1: VersionedSchema {
    static let version = 1
    static let models: [any PersistentModel.Type] = [Person.self]
    @Model struct Person {
        var firstName: String
        var lastName: String
        var age: Int
    }
}

enum AppV2: VersionedSchema {
    static let version = 2
    static let models: [any PersistentModel.Type] = [Person.self]
    @Model struct Person {
        var fullName: String
        @Attribute(originalName: "age") var yearsSinceBirth: Int
        var email: String?
    }
}

enum AppPlan: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [AppV1.self, AppV2.self]
    static var stages: [MigrationStage] {
        [
            .custom(from: 1, to: 2) { migration in
                try migration.enumerateObjects(AppV1.Person.self, to: AppV2.Person.self) { old in
                    AppV2.Person(fullName: "\(old.firstName) \(old.lastName)", yearsSinceBirth: old.age, email: nil)
                }
            }
        ]
    }
}

/// A model declared with the module-qualified macro, as a file that also imports SwiftData must write it.
enum QualifiedV1: VersionedSchema {
    static let version = 1
    static let models: [any PersistentModel.Type] = [Tag.self]
    @MoltMacros.Model struct Tag {
        @MoltMacros.Attribute(.unique) var label: String
    }
}

@Suite("README typed quick start")
struct ReadmeTypedQuickStartTests {
    @Test("the typed quick start migrates version 1's people to version 2 and queries them by key path")
    func quickStart() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-readme-typed-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let first = try Store.open(at: url, schema: AppV1.schema)
        try first.write { objects in
            _ = try objects.insert(AppV1.Person(firstName: "Ada", lastName: "Lovelace", age: 36))
            _ = try objects.insert(AppV1.Person(firstName: "Tim", lastName: "Small", age: 9))
        }
        try first.close()

        let store = try Store.open(at: url, plan: AppPlan.self)
        defer { try? store.close() }
        let adults = try store.read { objects in
            try objects.fetch(AppV2.Person.self, where: \.yearsSinceBirth >= 18, orderBy: [.ascending(\.fullName)])
        }
        #expect(adults.map(\.fullName) == ["Ada Lovelace"])
        #expect(adults.map(\.yearsSinceBirth) == [36])
        #expect(try store.read { try $0.count(AppV2.Person.self) } == 2)
        let perAge = try store.read { objects in try objects.counts(groupedBy: \AppV2.Person.yearsSinceBirth) }
        #expect(perAge == [36: 1, 9: 1])
    }

    @Test("the README's observed count of adults: the first result, then one after a commit that changes it")
    func observedCount() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-readme-observe-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try await Store.open(at: url, schema: AppV2.schema)
        defer { try? store.close() }
        var seen: [Int] = []
        for try await adults in store.observe({ try $0.count(AppV2.Person.self, where: \.yearsSinceBirth >= 18) }) {
            seen.append(adults)
            if adults == 1 { break }
            try await store.write { objects in
                _ = try objects.insert(AppV2.Person(fullName: "Tim Small", yearsSinceBirth: 9, email: nil))
                _ = try objects.insert(AppV2.Person(fullName: "Ada Lovelace", yearsSinceBirth: 36, email: nil))
            }
        }
        #expect(seen == [0, 1])
    }

    @Test("@MoltMacros.Model and @MoltMacros.Attribute, module-qualified, derive the same entity")
    func qualifiedMacros() {
        #expect(QualifiedV1.Tag.entity.attributes == [Attribute("label", .string)])
        #expect(QualifiedV1.Tag.entity.indexes == [Index(["label"], unique: true)])
    }
}
