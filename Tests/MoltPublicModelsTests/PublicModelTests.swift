import Foundation
import Molt
import MoltPublicModelsFixture
import Testing

/// `public` `@Model` structs declared in a library target of their own (`MoltPublicModelsFixture`, which alone
/// imports MoltMacros) and used from this module, as an app uses the models module it depends on: created with
/// the generated public memberwise initializer, stored, fetched, linked and migrated.
@Suite("Public models used from another module")
struct PublicModelTests {
    typealias V1 = JournalV1
    typealias V2 = JournalV2

    static let created = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let paris = Place(city: "Paris", latitude: 48.8566, longitude: 2.3522)
    static let milkID = UUID(uuidString: "00000000-0000-0000-0000-0000000000A1")!
    static let quoteID = UUID(uuidString: "00000000-0000-0000-0000-0000000000B2")!

    @Test(
        "A public model without an initializer of its own is created from another module with its memberwise initializer"
    )
    func memberwiseInitializer() {
        // The case of the issue: `@Model public struct Note` with no init used to fail to compile
        // ("declaration name 'init(id:kind:…)' is not covered by macro 'Model'").
        let note = V1.Note(id: Self.milkID, kind: .idea, title: "Milk and honey", created: Self.created)
        #expect(
            note.id == Self.milkID && note.kind == .idea && note.title == "Milk and honey"
                && note.created == Self.created)
        // Every other argument defaults as Swift's own memberwise initializer does: to the initial value, or nil.
        #expect(note.words == 0 && note.views == -1 && note.rating == 2.5 && note.pinned == false)
        #expect(note.attachment == nil && note.subtitle == nil && note.mood == nil && note.place == nil)
        #expect(note.folder.id == nil && note.isSelected == false && note.persistentID == nil)

        let full = V1.Note(
            id: Self.quoteID, kind: .quote, title: "Stay hungry", words: 2, views: 1 << 40, rating: -0.5, pinned: true,
            created: Self.created, attachment: Data([0, 255]), subtitle: "Jobs", mood: .high, place: Self.paris,
            folder: ToOne(id: 7), isSelected: true)
        #expect(
            full.views == 1 << 40 && full.attachment == Data([0, 255]) && full.mood == .high && full.place == Self.paris
        )
        #expect(full.folder.id == 7 && full.isSelected)
    }

    @Test(
        "The generated entity is public and records every attribute type, optionals, literal defaults and both relationship sides"
    )
    func publicEntity() throws {
        let note = V1.Note.entity
        #expect(note.name == "Note" && note.primaryKey == "id")
        let types = note.attributes.map { "\($0.name):\($0.type)\($0.isOptional ? "?" : "")" }
        #expect(
            types == [
                "id:uuid", "kind:string", "title:string", "words:int", "views:int", "rating:double", "pinned:bool",
                "created:date",
                "attachment:data?", "subtitle:string?", "mood:int?", "place:string?",
            ])
        let defaults = note.attributes.compactMap { attribute in
            attribute.defaultValue.map { "\(attribute.name)=\($0)" }
        }
        #expect(
            defaults == [
                "words=\(Value.int(0))", "views=\(Value.int(-1))", "rating=\(Value.double(2.5))",
                "pinned=\(Value.bool(false))",
            ])
        #expect(
            note.relationships.map { "\($0.name)->\($0.destination)/\($0.inverse ?? "")" } == ["folder->Folder/notes"])
        #expect(
            V1.Folder.entity.relationships.map { "\($0.name)->\($0.destination)/\($0.inverse ?? "")" } == [
                "notes->Note/folder"
            ])
        #expect(V2.Note.entity.attributes.first { $0.name == "heading" }?.originalName == "title")
        try V2.schema.validate()
    }

    @Test(
        "Public models are inserted, fetched by enum and JSON values, and followed both ways",
        arguments: PublicStoreKind.allCases)
    func storeAndFetch(kind: PublicStoreKind) throws {
        let folder = ScratchFolder()
        let store = try kind.makeStore(V1.schema, in: folder.url)
        defer { try? store.close() }
        try store.write { objects in
            let home = try objects.insert(V1.Folder(name: "Home"))
            let work = try objects.insert(V1.Folder(name: "Work"))
            try objects.insert(
                V1.Note(
                    id: Self.milkID, kind: .idea, title: "Milk and honey", words: 3, views: 1 << 40, rating: 4.5,
                    pinned: true,
                    created: Self.created, attachment: Data([1, 2, 3]), subtitle: "shopping", mood: .low,
                    place: Self.paris,
                    folder: ToOne(home)))
            try objects.insert(
                V1.Note(
                    id: Self.quoteID, kind: .quote, title: "Stay hungry", created: Self.created, folder: ToOne(work)))
        }
        try store.read { objects in
            let ideas = try objects.fetch(V1.Note.self, where: \.kind == .idea)
            #expect(ideas.count == 1)
            let milk = try #require(ideas.first)
            #expect(
                milk.id == Self.milkID && milk.title == "Milk and honey" && milk.words == 3 && milk.views == 1 << 40)
            #expect(
                milk.rating == 4.5 && milk.pinned && milk.created == Self.created && milk.attachment == Data([1, 2, 3]))
            #expect(
                milk.subtitle == "shopping" && milk.mood == .low && milk.place == Self.paris && milk.persistentID != nil
            )

            let quote = try #require(try objects.model(V1.Note.self, primaryKey: Self.quoteID))
            #expect(quote.words == 0 && quote.views == -1 && quote.rating == 2.5 && !quote.pinned)
            #expect(quote.attachment == nil && quote.subtitle == nil && quote.mood == nil && quote.place == nil)

            #expect(try objects.fetch(V1.Note.self, where: \.place == Self.paris).map(\.id) == [Self.milkID])
            #expect(try objects.fetch(V1.Note.self, where: \.mood == .low).map(\.id) == [Self.milkID])
            #expect(try objects.destination(\.folder, of: milk)?.name == "Home")
            #expect(try objects.destination(\.folder, of: quote)?.name == "Work")
            let home = try #require(try objects.fetch(V1.Folder.self, where: \.name == "Home").first)
            #expect(try objects.destinations(\.notes, of: home).map(\.id) == [Self.milkID])
        }
    }

    /// A version-1 store: folder Home with two notes (every value set on one, the defaults on the other) and an empty
    /// folder Work.
    func seedVersion1(at url: URL, journalMode: Store.Options.JournalMode) throws {
        var options = Store.Options()
        options.journalMode = journalMode
        let store = try Store.open(at: url, schema: V1.schema, options: options)
        try store.write { objects in
            let home = try objects.insert(V1.Folder(name: "Home"))
            try objects.insert(V1.Folder(name: "Work"))
            try objects.insert(
                V1.Note(
                    id: Self.milkID, kind: .idea, title: "Milk and honey", words: 3, views: 1 << 40, rating: 4.5,
                    pinned: true,
                    created: Self.created, attachment: Data([1, 2, 3]), subtitle: "shopping", mood: .low,
                    place: Self.paris,
                    folder: ToOne(home)))
            try objects.insert(
                V1.Note(
                    id: Self.quoteID, kind: .quote, title: "Stay hungry", created: Self.created, folder: ToOne(home)))
        }
        try store.close()
    }

    @Test(
        "A store of the first public version migrates to the second with the public plan, every value kept",
        arguments: PublicStoreKind.fileKinds)
    func migrate(kind: PublicStoreKind) throws {
        let folder = ScratchFolder()
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let url = folder.url.appendingPathComponent("journal.sqlite")
        try seedVersion1(at: url, journalMode: kind.journalMode)

        let store = try Store.open(at: url, plan: JournalPlan.self)
        defer { try? store.close() }
        #expect(store.outcome == .migrated(fromVersion: 1) && store.schema.version == 2)
        #expect(try store.history().map { "\($0.fromVersion)->\($0.toVersion)" } == ["1->2"])
        try store.write { objects in
            let milk = try #require(try objects.model(V2.Note.self, primaryKey: Self.milkID))
            #expect(milk.heading == "Milk and honey" && milk.summary == "idea: Milk" && milk.kind == .idea)
            #expect(
                milk.words == 3 && milk.views == 1 << 40 && milk.rating == 4.5 && milk.pinned
                    && milk.created == Self.created)
            #expect(
                milk.attachment == Data([1, 2, 3]) && milk.subtitle == "shopping" && milk.mood == .low
                    && milk.place == Self.paris)
            let quote = try #require(try objects.model(V2.Note.self, primaryKey: Self.quoteID))
            #expect(quote.heading == "Stay hungry" && quote.summary == "quote: Stay" && quote.kind == .quote)
            #expect(
                quote.words == 0 && quote.views == -1 && quote.mood == nil && quote.place == nil
                    && quote.attachment == nil)

            // The to-one and its to-many inverse still agree after the stage rewrote every note.
            let home = try #require(try objects.fetch(V2.Folder.self, where: \.name == "Home").first)
            #expect(Set(try objects.destinations(\.notes, of: home).map(\.id)) == [Self.milkID, Self.quoteID])
            #expect(try objects.destination(\.folder, of: quote)?.name == "Home")

            // The new many-to-many pair works both ways on the migrated store.
            let short = try objects.insert(V2.Tag(label: "short"))
            try objects.add(short, to: \.tags, of: milk)
            try objects.add(short, to: \.tags, of: quote)
            #expect(try objects.destinations(\.tags, of: milk).map(\.label) == ["short"])
            #expect(Set(try objects.destinations(\.notes, of: short).map(\.id)) == [Self.milkID, Self.quoteID])
        }
    }
}
