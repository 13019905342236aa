import Foundation
import Molt
import Testing

/// A model conformed by hand, without the macros, as ``PersistentModel``'s documentation shows.
struct HandNote: PersistentModel {
    var persistentID: Int64?
    var title: String
    var pinned: Bool = false

    static let entity = Entity(
        "HandNote",
        attributes: [
            Attribute("title", .string),
            Attribute("pinned", .bool, default: false),
        ])
    init(title: String) { self.title = title }
    init(row: ModelRow) throws {
        persistentID = row.id
        title = try row.value(at: 0)
        pinned = try row.value(at: 1)
    }
    func encode(to columns: inout ModelColumns) {
        columns.append(title)
        columns.append(pinned)
    }
    static func propertyName(for keyPath: PartialKeyPath<HandNote>) -> String? {
        if keyPath == \HandNote.title { return "title" }
        if keyPath == \HandNote.pinned { return "pinned" }
        return nil
    }
}

@Suite("Conforming to PersistentModel by hand")
struct HandConformanceTests {
    @Test("A hand-written conformance inserts, fetches and converts to a dynamic object like a generated one")
    func handWritten() throws {
        let store = try Store.inMemory(schema: Schema(version: 1, entities: [HandNote.entity]))
        try store.write { objects in
            var milk = try objects.insert(HandNote(title: "Milk"))
            milk.pinned = true
            try objects.save(milk)
            try objects.insert(HandNote(title: "Bread"))
        }
        let pinned = try store.read { try $0.fetch(HandNote.self, where: \.pinned == true) }
        #expect(pinned.map(\.title) == ["Milk"])
        #expect(pinned[0].dynamicObject["title"] == "Milk")
        #expect(pinned[0].dynamicObject.id == 1)
        let dynamic = try store.read { objects in
            try objects.model(HandNote.self, from: objects.object("HandNote", id: 2)!)
        }
        #expect(dynamic.title == "Bread")
        #expect(dynamic.pinned == false)
    }
}
