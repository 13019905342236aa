import Foundation
import GRDB
import Testing
@testable import Molt

/// Validation checks links where a migration wrote rows (and in the tables that link there), not in the
/// whole store: the store was valid before the run, so a link can only break where rows changed.
@Suite("Link validation after a migration")
struct LinkValidationTests {
    static let v1 = Schema(version: 1) {
        Entity("Folder") { Attribute("name", .string) }
        Entity("Note") {
            Attribute("text", .string)
            Relationship("folder", to: "Folder")
        }
    }

    /// A store whose only note points to a folder deleted behind Molt's back (foreign keys off).
    static func brokenStore(_ url: URL) throws {
        let store = try Store.open(at: url, schema: v1, options: StoreKind.rollback.options)
        try store.write { objects in
            let folder = try objects.insert("Folder", ["name": "Inbox"])
            let note = try objects.insert("Note", ["text": "milk"])
            try objects.set("folder", of: note, to: folder)
        }
        try store.close()
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.write { try $0.execute(sql: "DELETE FROM Folder") }
        try queue.close()
    }

    @Test("a rebuilt table with a broken link is refused, naming the table, the row and the missing entity")
    func rebuildChecksLinks() throws {
        let dir = TemporaryDirectory()
        try Self.brokenStore(dir.file())
        var v2 = Self.v1.withVersion(2)
        v2.entities[1].attributes[0].isOptional = true  // required → optional: Note is rebuilt
        #expect {
            try Store.open(at: dir.file(), schema: v2, options: StoreKind.rollback.options)
        } throws: { error in
            (error as? MoltError)?.message
                == "The migration to version 2 left 1 broken link(s), so nothing was committed: a row of 'Note' (_id 1) points to a missing 'Folder'. Delete or relink such objects in a custom stage."
        }
        #expect(try Store.version(at: dir.file()) == 1)
    }

    @Test("a metadata-only change elsewhere does not scan the untouched tables")
    func untouchedTablesAreNotScanned() throws {
        let dir = TemporaryDirectory()
        try Self.brokenStore(dir.file())
        var v2 = Self.v1.withVersion(2)
        v2.entities[0].attributes.append(Attribute("color", .string, isOptional: true))  // ADD COLUMN on Folder
        let store = try Store.open(at: dir.file(), schema: v2, options: StoreKind.rollback.options)
        #expect(store.schema.version == 2)
    }

    /// Notes linking to a folder and to a parent note (both parents have a `name`, as the note has): v2 widens
    /// `count` to double, which SQLite rebuilds (copying every link) and PostgreSQL converts in place (writing none).
    static let linked = Schema(version: 1) {
        Entity("Folder") { Attribute("name", .string) }
        Entity("Note") {
            Attribute("name", .string)
            Attribute("count", .int)
            Relationship("folder", to: "Folder")
            Relationship("parent", to: "Note")
        }
    }

    static func makeLinked(_ location: StoreLocation, kind: StoreKind) throws {
        let store = try Store.open(at: location, schema: linked, options: kind.options)
        try store.write { objects in
            let folder = try objects.insert("Folder", ["name": "Inbox"])
            let first = try objects.insert("Note", ["name": "first", "count": 1])
            let second = try objects.insert("Note", ["name": "second", "count": 2])
            try objects.set("folder", of: first, to: folder)
            try objects.set("parent", of: second, to: first)
        }
        try store.close()
    }

    @Test(
        "a converted table's links are checked where the conversion wrote them, left as they were where it did not",
        arguments: StoreKind.durable)
    func convertedTableLinks(kind: StoreKind) throws {
        var v2 = Self.linked.withVersion(2)
        v2.entities[1].attributes[1].type = .double
        // Whole links: the conversion commits, every link kept.
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        try Self.makeLinked(location, kind: kind)
        let store = try Store.open(at: location, schema: v2, options: kind.options)
        let links = try store.read { objects in
            try objects.fetch("Note", orderBy: [.ascending("name")]).map { note in
                [
                    try objects.destination("folder", of: note)?["name"],
                    try objects.destination("parent", of: note)?["name"], note["count"],
                ]
            }
        }
        #expect(links == [["Inbox", nil, 1.0], [nil, "first", 2.0]])
        try store.close()
        // A parent deleted behind Molt's back (references off). SQLite's rebuild copied the link: refused, naming
        // the row, nothing written.
        let broken = TemporaryDirectory()
        let brokenLocation = try kind.location(in: broken)
        try Self.makeLinked(brokenLocation, kind: kind)
        guard kind == .postgres else {
            try RawSQL.execute(brokenLocation, "DELETE FROM Note WHERE name = 'first'")
            let error = moltError { _ = try Store.open(at: brokenLocation, schema: v2, options: kind.options) }
            #expect(
                error?.message
                    == "The migration to version 2 left 1 broken link(s), so nothing was committed: a row of 'Note' (_id 2) points to a missing 'Note'. Delete or relink such objects in a custom stage."
            )
            #expect(try Store.version(at: brokenLocation) == 1)
            return
        }
        // PostgreSQL's `ALTER COLUMN … TYPE` wrote `count` alone: the link is the store's own, as in a table the
        // run does not touch (see `untouchedTablesAreNotScanned`), and is kept as it was, neither checked nor cut.
        try RawSQL.execute(
            brokenLocation, "SET LOCAL session_replication_role = replica", #"DELETE FROM "Note" WHERE name = 'first'"#)
        let converted = try Store.open(at: brokenLocation, schema: v2, options: kind.options)
        try converted.close()
        let kept = try RawSQL.strings(
            brokenLocation, #"SELECT concat_ws(' ', "name", "parent", pg_typeof("count"), "count") FROM "Note""#)
        #expect(kept == ["second 1 double precision 2"])
    }

    @Test(
        "the check before migrating refuses a link broken behind Molt's back in a table the migration rewrites, nothing written",
        arguments: StoreKind.durable)
    func integrityCheckFindsBrokenLinksWhereTheRunRewrites(kind: StoreKind) throws {
        // v2 widens Note.count to double: SQLite rebuilds Note, PostgreSQL converts the column in place.
        var v2 = Self.linked.withVersion(2)
        v2.entities[1].attributes[1].type = .double
        let dir = TemporaryDirectory()
        let (location, checking) = try Self.brokenParentLink(kind, in: dir)
        let error = moltError { _ = try Store.open(at: location, schema: v2, options: checking) }
        #expect(error?.code == .corruptStore)
        #expect(
            error?.message
                == "The store at \(location) has 1 broken link(s), written behind Molt's back with references off: a row of 'Note' (_id 2) points to a missing 'Note'. It was not migrated; it is still at version 1 and nothing was written. Delete or relink such objects at version 1 (or in a custom stage), then migrate again."
        )
        #expect(try Store.version(at: location) == 1)
    }

    @Test(
        "a step that only adds a column reads no row, so the check before migrating looks at none; molt check still finds the broken link",
        arguments: StoreKind.durable)
    func schemaOnlyStepChecksNothing(kind: StoreKind) throws {
        var v2 = Self.linked.withVersion(2)
        v2.entities[0].attributes.append(Attribute("color", .string, isOptional: true))
        let dir = TemporaryDirectory()
        let (location, checking) = try Self.brokenParentLink(kind, in: dir)
        let store = try Store.open(at: location, schema: v2, options: checking)
        #expect(try Store.version(at: location) == 2)
        let error = moltError { try store.verify() }
        #expect(error?.code == .corruptStore)
        #expect(error?.message.contains("points to a missing row of 'Note'") == true, "\(error?.message ?? "")")
    }

    @Test(
        "the tables a run reads whole: rebuilt, converted, dropped columns and seeded joins; none for schema-only steps; every table for a stage"
    )
    func tablesReadWhole() throws {
        let db = try SQLiteDatabase.inMemory()
        func tables(stage: Bool = false, _ edit: (inout Schema) -> Void) throws -> [String]? {
            var v2 = Self.linked.withVersion(2)
            edit(&v2)
            let plan = try MigrationPlan(
                schemas: [Self.linked, v2], stages: stage ? [.custom(from: 1, to: 2) { _ in }] : [])
            let path = try plan.path(from: Self.linked)
            return try db.read { try Migrator.tablesReadWhole(by: path, in: $0) }?.sorted()
        }
        #expect(try tables { $0.entities[0].attributes.append(Attribute("color", .string, isOptional: true)) } == [])
        #expect(
            try tables {
                $0.entities[0].attributes[0].originalName = "name"; $0.entities[0].attributes[0].name = "title"
            } == [])
        #expect(try tables { $0.entities[1].attributes[1].type = .double } == ["Note"])
        #expect(try tables { $0.entities[1].attributes.removeLast() } == ["Note"])
        #expect(
            try tables(stage: true) { $0.entities[0].attributes.append(Attribute("color", .string, isOptional: true)) }
                == nil)
    }

    /// The linked store with the note that another note points to as its parent deleted behind Molt's back, and
    /// options that check the store before migrating.
    static func brokenParentLink(_ kind: StoreKind, in dir: TemporaryDirectory) throws -> (StoreLocation, Store.Options)
    {
        let location = try kind.location(in: dir)
        try makeLinked(location, kind: kind)
        if kind == .postgres {
            try RawSQL.execute(
                location, "SET LOCAL session_replication_role = replica", #"DELETE FROM "Note" WHERE name = 'first'"#)
        } else {
            try RawSQL.execute(location, "DELETE FROM Note WHERE name = 'first'")
        }
        var checking = kind.options
        checking.checksIntegrityBeforeMigrating = true
        return (location, checking)
    }
}
