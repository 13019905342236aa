import Foundation
import MoltMacros
import Testing

/// The typed upsert on models the macros declared: by the `@Attribute(.primaryKey)` UUID, and by an
/// `@Attribute(.unique)` name, with the to-one's inverse kept in step.
@Suite("Typed upsert of @Model values")
struct TypedUpsertMacroTests {
    typealias Note = NotesV1.Note
    typealias Folder = NotesV1.Folder

    @Test(
        "upsert by the primary key and by a unique attribute keeps identifiers and links",
        arguments: TypedStoreKind.allCases)
    func upsert(kind: TypedStoreKind) throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(NotesV1.schema, in: folder.url)
        let id = UUID()
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        let (home, work) = try store.write { objects in
            (try objects.upsert(Folder(name: "Home"), uniqueBy: \.name), try objects.insert(Folder(name: "Work")))
        }
        #expect(
            try store.write { try $0.upsert(Folder(name: "Home"), uniqueBy: \.name) }.persistentID == home.persistentID)
        let first = try store.write {
            try $0.upsert(Note(uuid: id, title: "Milk", count: 1, created: day, folder: ToOne(home)))
        }
        let second = try store.write {
            try $0.upsert(Note(uuid: id, title: "Oat milk", count: 2, created: day, folder: ToOne(work)))
        }
        #expect(second.persistentID == first.persistentID)
        let (notes, inHome, inWork) = try store.read { objects in
            (
                try objects.fetch(Note.self).map { "\($0.title) \($0.count)" },
                try objects.destinations(\.notes, of: home).map(\.title),
                try objects.destinations(\.notes, of: work).map(\.title)
            )
        }
        #expect(notes == ["Oat milk 2"])
        #expect(inHome == [])
        #expect(inWork == ["Oat milk"])
    }
}
