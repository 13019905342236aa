import Foundation
import MoltMacros
import Testing

@Suite("Typed aggregates by key path")
struct TypedAggregateTests {
    typealias Note = NotesV1.Note

    static let day = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("sum, min, max, average, distinct values and counts per value", arguments: TypedStoreKind.allCases)
    func aggregates(kind: TypedStoreKind) throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(NotesV1.schema, in: folder.url)
        let notes = [("a", 3, 1.5, "x"), ("b", 4, 2.5, nil), ("c", 5, 3.5, "y"), ("d", 4, 0.5, "x")]
        try store.write { objects in
            for (index, (title, count, rating, subtitle)) in notes.enumerated() {
                try objects.insert(
                    Note(
                        uuid: UUID(), title: title, count: count, rating: rating, subtitle: subtitle,
                        created: Self.day.addingTimeInterval(Double(index))))
            }
        }
        try store.read { (objects: Objects) throws in
            #expect(try objects.sum(\Note.count) == 16)
            #expect(try objects.sum(\Note.rating, where: \.count == 4) == 3)
            #expect(try objects.min(\Note.count) == 3)
            #expect(try objects.max(\Note.created) == Self.day.addingTimeInterval(3))
            #expect(try objects.max(\Note.subtitle) == "y")
            #expect(try objects.min(\Note.count, where: \.count > 10) == nil)
            #expect(try objects.average(\Note.count) == 4)
            #expect(try objects.distinctValues(\Note.count) == [3, 4, 5])
            #expect(try objects.distinctValues(\Note.subtitle) == [nil, "x", "y"])
            #expect(try objects.counts(groupedBy: \Note.count) == [3: 1, 4: 2, 5: 1])
            #expect(try objects.counts(groupedBy: \Note.subtitle) == [nil: 1, "x": 2, "y": 1])
        }
    }

    @Test("a key path to a computed property is refused, naming the fix")
    func computedProperty() throws {
        let store = try Store.inMemory(schema: NotesV1.schema)
        let error = #expect(throws: MoltError.self) { try store.read { try $0.distinctValues(\Note.shout) } }
        #expect(error?.message.contains("not a stored property of 'Note'") == true)
    }

    @Test("updateAll by key path sets values on the matching models only", arguments: TypedStoreKind.allCases)
    func typedUpdateAll(kind: TypedStoreKind) throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(NotesV1.schema, in: folder.url)
        try store.write { objects in
            for (title, count) in [("a", 1), ("b", 2), ("c", 3)] {
                try objects.insert(Note(uuid: UUID(), title: title, count: count, subtitle: "s", created: Self.day))
            }
        }
        let updated = try store.write {
            try $0.updateAll(
                Note.self, where: \.count >= 2, set: [.set(\.pinned, to: true), .set(\.subtitle, to: nil)])
        }
        #expect(updated == 2)
        let notes = try store.read { try $0.fetch(Note.self, orderBy: [.ascending(\.title)]) }
        #expect(notes.map(\.pinned) == [false, true, true])
        #expect(notes.map(\.subtitle) == ["s", nil, nil])
        let computed = #expect(throws: MoltError.self) {
            try store.write { try $0.updateAll(Note.self, set: [.set(\.shout, to: "X")]) }
        }
        #expect(computed?.message.contains("not a stored property") == true)
    }
}
