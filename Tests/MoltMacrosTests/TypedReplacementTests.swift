import Foundation
import MoltMacros
import Testing

/// Version 2 replaces `Note.rating`, text, by an integer of the same name: a type that does not convert.
enum RatedV1: VersionedSchema {
    static let version = 1
    static let models: [any PersistentModel.Type] = [Note.self]
    @Model struct Note {
        var title: String
        var rating: String
    }
}

enum RatedV2: VersionedSchema {
    static let version = 2
    static let models: [any PersistentModel.Type] = [Note.self]
    static let deletions: [Deletion] = [.replaced("rating", of: "Note")]
    @Model struct Note {
        var title: String
        var rating: Int?
    }
}

enum RatedPlan: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [RatedV1.self, RatedV2.self]
}

@Suite("Typed replaced properties")
struct TypedReplacementTests {
    @Test("a VersionedSchema declares a property replaced: the old values go, the new property starts empty")
    func typedReplacement() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-typed-replaced-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let old = try Store.open(at: url, schema: RatedV1.schema)
        try old.write { objects in
            try objects.insert(RatedV1.Note(title: "Dune", rating: "five stars"))
            try objects.insert(RatedV1.Note(title: "Emma", rating: "four stars"))
        }
        try old.close()
        let store = try Store.open(at: url, plan: RatedPlan.self)
        defer { try? store.close() }
        let notes = try store.read { try $0.fetch(RatedV2.Note.self, orderBy: [.ascending(\.title)]) }
        #expect(notes.map(\.title) == ["Dune", "Emma"])
        #expect(notes.map(\.rating) == [nil, nil])
        #expect(
            try store.history().last?.dropped == [
                DroppedData(entity: "Note", property: "rating", count: 2, isDeclared: true, isReplaced: true)
            ])
    }
}
