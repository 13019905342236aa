import Foundation
import Molt
import MoltMacros
import Testing

/// Typed writes with relationships: a one-to-one inverse kept in step on insert, and a relationship to a value
/// that was never inserted refused rather than stored empty.
@Suite("Typed links")
struct TypedLinkTests {
    @Model struct Person {
        var name: String
        @Relationship(inverse: "owner") var passport: ToOne<Passport> = nil
    }

    @Model struct Passport {
        var number: String
        @Relationship(inverse: "passport") var owner: ToOne<Person> = nil
    }

    static let schema = Schema(version: 1, entities: [Person.entity, Passport.entity])

    @Test("inserting with a one-to-one link points the destination back, and takes it from its previous owner")
    func oneToOne() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.write { objects in
            let passport = try objects.insert(Passport(number: "X1"))
            let ada = try objects.insert(Person(name: "Ada", passport: ToOne(passport)))
            func owner() throws -> Int64? { try objects.model(Passport.self, id: passport.persistentID!)?.owner.id }
            #expect(try owner() == ada.persistentID)
            let bob = try objects.insert(Person(name: "Bob", passport: ToOne(passport)))
            #expect(try owner() == bob.persistentID)
            let adaNow = try objects.model(Person.self, id: ada.persistentID!)
            #expect(adaNow?.passport.id == nil, "\(String(describing: adaNow))")
        }
    }

    @Test("a relationship to a value that was never inserted is refused, naming it")
    func uninserted() throws {
        let store = try Store.inMemory(schema: Self.schema)
        let error = #expect(throws: MoltError.self) {
            try store.write { objects in
                try objects.insert(Person(name: "Ada", passport: ToOne(Passport(number: "never inserted"))))
            }
        }
        #expect(error?.code == .objectNotFound)
        #expect(
            error?.message
                == "Relationship 'Person.passport' points to a 'Passport' value that was never inserted (its persistentID is nil), so it would be stored empty. Insert the 'Passport' first and link the value `insert` returned."
        )
        #expect(try store.read { try $0.count(Person.self) } == 0)
    }

    @Model struct Writer {
        var name: String
        @Relationship(inverse: "writer") var books: ToMany<Book> = []
    }

    @Model struct Book {
        var title: String
        @Relationship(inverse: "books", isOptional: false) var writer: ToOne<Writer> = nil
    }

    @Test("a to-one marked isOptional: false is required: a typed write that leaves it empty is refused, naming it")
    func required() throws {
        #expect(Book.entity.relationship(named: "writer")?.isOptional == false)
        #expect(Writer.entity.relationship(named: "books")?.isOptional == true)
        let store = try Store.inMemory(schema: Schema(version: 1, entities: [Writer.entity, Book.entity]))
        let book = try store.write { objects in
            try objects.insert(Book(title: "Emma", writer: ToOne(try objects.insert(Writer(name: "Austen")))))
        }
        let error = #expect(throws: MoltError.self) {
            try store.write { objects in
                var unlinked = book
                unlinked.writer = nil
                try objects.save(unlinked)
            }
        }
        #expect(
            error?.message
                == "Relationship 'Book.writer' is required, so nothing was written: 1 'Book' object (_id 1) has no 'writer' when the write ends. Link each to a 'Writer' in the same write (`objects.set(\"writer\", of: object, to: destination)`), or delete them; to delete a 'Writer' together with the objects that require it, give 'Writer.books' the delete rule cascade."
        )
        #expect(throws: MoltError.self) { try store.write { try $0.insert(Book(title: "Anonymous")) } }
        #expect(try store.read { try $0.fetch(Book.self).map(\.writer.id) } == [1])
    }

    @Model struct Poll {
        var title: String
        @Relationship(inverse: "poll", minimumCount: 2) var choices: ToMany<Choice> = []
    }

    @Model struct Choice {
        var label: String
        @Relationship(inverse: "choices") var poll: ToOne<Poll> = nil
    }

    @Test("a ToMany with minimumCount holds that many: a typed write that leaves fewer is refused, naming the owner")
    func minimumCount() throws {
        #expect(Poll.entity.relationship(named: "choices")?.minimumCount == 2)
        #expect(Choice.entity.relationship(named: "poll")?.minimumCount == 0)
        let store = try Store.inMemory(schema: Schema(version: 1, entities: [Poll.entity, Choice.entity]))
        let poll = try store.write { objects in
            let poll = try objects.insert(Poll(title: "Lunch?"))
            for label in ["Soup", "Salad"] { try objects.insert(Choice(label: label, poll: ToOne(poll))) }
            return poll
        }
        #expect(try store.read { try $0.destinations(\.choices, of: poll).map(\.label) } == ["Soup", "Salad"])
        let error = #expect(throws: MoltError.self) {
            try store.write { objects in
                let soup = try objects.fetch(Choice.self, where: \.label == "Soup")[0]
                try objects.remove(soup, from: \.choices, of: poll)
            }
        }
        #expect(
            error?.message
                == "Relationship 'Poll.choices' must hold at least 2 objects, so nothing was written: 1 'Poll' object holds fewer than 2 'choices' (_id 1: 1) when the write ends. Link enough 'Choice' to each in the same write (`objects.add(destination, to: \"choices\", of: object)`), or delete them."
        )
        #expect(throws: MoltError.self) { try store.write { try $0.insert(Poll(title: "Dinner?")) } }
        #expect(try store.read { try $0.count(Poll.self) } == 1)
    }

    @Test(
        "a poll already under its minimum (as Core Data leaves them) saves, typed; removing one more of its choices is refused"
    )
    func alreadyShort() throws {
        let store = try Store.inMemory(schema: Schema(version: 1, entities: [Poll.entity, Choice.entity]))
        var poll = try store.write { objects in
            let poll = try objects.insert(Poll(title: "Lunch?"))
            for label in ["Soup", "Salad"] { try objects.insert(Choice(label: label, poll: ToOne(poll))) }
            return poll
        }
        // SQL of the test's own, as an adoption leaves a store: Molt's write records no table, so checks nothing.
        try store.write { objects in
            _ = try objects.db.execute(.update, "DELETE FROM \"Poll_choices\" WHERE \"target\" = 2")
            _ = try objects.db.execute(.update, "UPDATE \"Choice\" SET \"poll\" = NULL WHERE \"_id\" = 2")
        }
        poll.title = "Lunch today?"
        try store.write { [poll] objects in try objects.save(poll) }
        #expect(try store.read { try $0.fetch(Poll.self).map(\.title) } == ["Lunch today?"])
        let error = #expect(throws: MoltError.self) {
            try store.write { objects in
                let soup = try objects.fetch(Choice.self, where: \.label == "Soup")[0]
                try objects.remove(soup, from: \.choices, of: poll)
            }
        }
        #expect(error?.message.contains("1 'Poll' object holds fewer than 2 'choices' (_id 1: 0)") == true)
    }
}
