import Foundation
import Testing
@testable import Molt

/// `deleteAll` under deny rules, on every store kind: one query per deny rule refuses the whole deletion, deleting
/// nothing and naming the first object (by identifier) as deleting it alone would; otherwise one `DELETE`.
@Suite("deleteAll with deny rules")
struct DenyDeleteAllTests {
    /// A project denies its deletion while it has folders (to-many, with an inverse); a ticket while it has a seat
    /// (to-one); a group ticket, a sub-entity, also while it has guests (to-many, no inverse).
    static let schema = Schema(version: 1) {
        Entity("Project") {
            Attribute("name", .string)
            Relationship("folders", toMany: "Folder", inverse: "project", deleteRule: .deny)
        }
        Entity("Folder") {
            Attribute("name", .string)
            Relationship("project", to: "Project", inverse: "folders")
        }
        Entity("Seat") { Attribute("number", .int) }
        Entity("Guest") { Attribute("name", .string) }
        Entity("Ticket") {
            Attribute("code", .string)
            Relationship("seat", to: "Seat", deleteRule: .deny)
        }
        Entity("GroupTicket", parent: "Ticket") {
            Relationship("guests", toMany: "Guest", deleteRule: .deny)
        }
    }

    /// The statements a body runs, recorded from the connection of its transaction.
    final class Statements: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [String] = []
        /// The distinct `DELETE` statements (SQLite's trace repeats a statement for each trigger program it runs).
        var deletes: Set<String> { lock.withLock { Set(recorded.filter { $0.hasPrefix("DELETE") }) } }
        func append(_ sql: String) { lock.withLock { recorded.append(sql) } }

        static func recording<T>(_ objects: Objects, _ body: () throws -> T) rethrows -> (T, Statements) {
            let statements = Statements()
            objects.db.statementObserver = { sql, _ in statements.append(sql) }
            defer { objects.db.statementObserver = nil }
            return (try body(), statements)
        }
    }

    @Test(
        "a to-many deny rule refuses the whole deleteAll, naming the first object; else one DELETE",
        arguments: StoreKind.allCases)
    func toManyDeny(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try store.write { (objects: Objects) throws in
            let projects = try ["a", "b", "c", "d"].map { try objects.insert("Project", ["name": .string($0)]) }
            for (project, folder) in [(1, "f1"), (2, "f2"), (2, "f3")] {
                let folder = try objects.insert("Folder", ["name": .string(folder)])
                try objects.set("project", of: folder, to: projects[project])
            }
            let all = moltError { try objects.deleteAll("Project") }
            #expect(all?.code == .constraintViolation)
            #expect(
                all?.message
                    == "Cannot delete 'Project' _id \(projects[1].id!): its relationship 'folders' has the delete rule deny and still points to 1 object(s). Remove them first."
            )
            // Refused before anything was deleted, even for a caller that goes on in the same transaction.
            #expect(try objects.count("Project") == 4)
            let c = moltError { try objects.deleteAll("Project", where: .equal("name", "c")) }
            #expect(c?.message.hasPrefix("Cannot delete 'Project' _id \(projects[2].id!): ") == true)
            #expect(c?.message.contains("still points to 2 object(s)") == true)
            let (deleted, statements) = try Statements.recording(objects) {
                try objects.deleteAll("Project", where: .in("name", ["a", "d"]))
            }
            #expect(deleted == 2)
            #expect(statements.deletes.count == 1)
            #expect(try objects.fetch("Project").map { $0["name"] } == ["b", "c"])
            // Once their folders are gone, the rest goes in one statement too.
            #expect(try objects.deleteAll("Folder") == 3)
            #expect(try Statements.recording(objects) { try objects.deleteAll("Project") }.1.deletes.count == 1)
            #expect(try objects.count("Project") == 0)
        }
    }

    @Test(
        "to-one deny rules and a sub-entity's own deny rule refuse deleteAll naming the object's entity",
        arguments: StoreKind.allCases)
    func toOneAndSubEntityDeny(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        try store.write { (objects: Objects) throws in
            let seats = try (1...2).map { try objects.insert("Seat", ["number": .int(Int64($0))]) }
            let guest = try objects.insert("Guest", ["name": "Ada"])
            let a = try objects.insert("Ticket", ["code": "a"])
            let b = try objects.insert("GroupTicket", ["code": "b"])
            try objects.add(guest, to: "guests", of: b)
            let c = try objects.insert("Ticket", ["code": "c"])
            try objects.set("seat", of: c, to: seats[0])
            let d = try objects.insert("GroupTicket", ["code": "d"])
            try objects.set("seat", of: d, to: seats[1])
            let expected = [
                (nil, b, "GroupTicket", "guests"), (ObjectPredicate.notEqual("code", "b"), c, "Ticket", "seat"),
                (.equal("code", "d"), d, "GroupTicket", "seat"),
            ]
            for (predicate, object, entity, relationship) in expected {
                let error = moltError { try objects.deleteAll("Ticket", where: predicate) }
                #expect(
                    error?.message
                        == "Cannot delete '\(entity)' _id \(object.id!): its relationship '\(relationship)' has the delete rule deny and still points to 1 object(s). Remove them first."
                )
            }
            #expect(moltError { try objects.deleteAll("GroupTicket", where: .equal("code", "d")) }?.property == "seat")
            #expect(try objects.count("Ticket") == 4)
            let (deleted, statements) = try Statements.recording(objects) {
                try objects.deleteAll("Ticket", where: .equal("code", "a"))
            }
            #expect(deleted == 1 && statements.deletes.count == 1)
            #expect(try objects.object("Ticket", id: a.id!) == nil)
            #expect(try objects.fetch("Ticket", orderBy: [.ascending("code")]).map { $0["code"] } == ["b", "c", "d"])
        }
    }
}
