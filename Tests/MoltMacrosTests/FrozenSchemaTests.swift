import Foundation
import MoltMacros
import Testing

/// Version 1 of the notes app as it shipped, and as someone edited it afterwards.
enum ShippedV1: VersionedSchema {
    static let version = 1
    static let models: [any PersistentModel.Type] = [Person.self]
    @Model struct Person {
        var name: String
        var age: Int = 0
    }
}

enum EditedV1: VersionedSchema {
    static let version = 1
    static let models: [any PersistentModel.Type] = [Person.self]
    @Model struct Person {
        var name: String
        var age: String?
        var email: String?
    }
}

enum RenamedHintV1: VersionedSchema {
    static let version = 1
    static let models: [any PersistentModel.Type] = [Person.self]
    @Model struct Person {
        @Attribute(originalName: "fullName") var name: String
        var age: Int = 0
    }
}

enum PeopleV2: VersionedSchema {
    static let version = 2
    static let models: [any PersistentModel.Type] = [Person.self]
    @Model struct Person {
        var name: String
        var age: Int = 0
        var email: String?
    }
}

enum ShippedPlan: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [ShippedV1.self, PeopleV2.self]
}

enum EditedPlan: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [EditedV1.self, PeopleV2.self]
}

@Suite("Frozen versions")
struct FrozenSchemaTests {
    final class Folder: Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("molt-frozen-\(UUID().uuidString)")
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    @Test("An unchanged shipped version passes; the newest may have no snapshot yet")
    func unchanged() throws {
        let folder = Folder()
        try SnapshotFolder(folder.url).record(ShippedV1.schema)
        try SnapshotFolder(folder.url).verify(ShippedPlan.self)
        try SnapshotFolder.verify(
            ShippedV1.schema, snapshot: Data(contentsOf: SnapshotFolder(folder.url).url(version: 1)), named: "1.json")
    }

    @Test("A shipped version edited afterwards is caught, naming entity and attribute")
    func edited() throws {
        let folder = Folder()
        try SnapshotFolder(folder.url).record(ShippedV1.schema)
        let error = #expect(throws: MoltError.self) { try SnapshotFolder(folder.url).verify(EditedPlan.self) }
        #expect(error?.code == .schemaChangedWithoutVersionBump)
        #expect(error?.entity == "Person")
        #expect(error?.property == "age")
        #expect(
            error?.message == """
                Version 1 was edited after it shipped; it differs from 1.json:
                - Attribute 'Person.age' has changed type from 'int' to 'string'.
                - Attribute 'Person.age' has been made optional.
                - Attribute 'Person.email' has been added.
                A shipped version must not change: restore version 1 as recorded, and declare the change as version 2.
                """)
    }

    @Test("A changed migration hint in a shipped version is caught too")
    func changedHint() throws {
        let snapshot = try ShippedV1.schema.snapshotJSON()
        let error = #expect(throws: MoltError.self) {
            try SnapshotFolder.verify(RenamedHintV1.schema, snapshot: snapshot, named: "1.json")
        }
        #expect(
            error?.message == """
                Version 1 was edited after it shipped; it differs from 1.json:
                - Attribute 'Person.name' has changed its originalName from none to 'fullName'.
                A shipped version must not change: restore version 1 as recorded, and declare the change as version 2.
                """)
    }

    @Test("A shipped version without a snapshot is reported; recording never overwrites a shipped snapshot")
    func missingAndOverwrite() throws {
        let folder = Folder()
        let missing = #expect(throws: MoltError.self) {
            try SnapshotFolder(folder.url).verify(ShippedPlan.self)
        }
        #expect(
            missing?.message
                == "Version 1 has no snapshot 1.json in \(folder.url.path), although a newer version exists, so it has shipped. Record it from the code of the release that shipped it: `try SnapshotFolder(folder).record(schema)`."
        )
        try SnapshotFolder(folder.url).record(ShippedV1.schema)
        #expect(throws: MoltError.self) { try SnapshotFolder(folder.url).record(EditedV1.schema) }
        try SnapshotFolder.verify(
            ShippedV1.schema, snapshot: Data(contentsOf: SnapshotFolder(folder.url).url(version: 1)))
    }

    @Test("The deprecated FrozenSchemas and verifyFrozen still forward to SnapshotFolder")
    @available(*, deprecated)
    func deprecatedForwarders() throws {
        let folder = Folder()
        let file = try FrozenSchemas.record(ShippedV1.schema, in: folder.url)
        #expect(file == FrozenSchemas.url(version: 1, in: folder.url))
        try FrozenSchemas.verify(ShippedPlan.self, against: folder.url)
        try FrozenSchemas.verify([ShippedV1.schema], against: folder.url)
        try FrozenSchemas.verify(ShippedV1.schema, snapshot: Data(contentsOf: file))
        try ShippedV1.verifyFrozen(snapshot: Data(contentsOf: file))
        #expect(throws: MoltError.self) { try FrozenSchemas.verify(EditedPlan.self, against: folder.url) }
    }
}
