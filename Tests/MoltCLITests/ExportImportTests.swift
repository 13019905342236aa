import Foundation
import Molt
import Testing

@Suite("molt export and molt import")
struct ExportImportTests {
    @Test("export → import → export gives the same file, and every value of every type is exact")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        let original = dir.file("original.sqlite")
        try Fixtures.fillEverything(at: original)
        try Fixtures.write(Fixtures.everything, to: dir.file("schema.json"))

        let export = try Molt.run(["export", "original.sqlite"], in: dir.url)
        #expect(export.status == 0, "\(export)")
        try Data(export.stdout.utf8).write(to: dir.file("data.json"))
        let imported = try Molt.run(["import", "copy.sqlite", "--schema", "schema.json", "data.json"], in: dir.url)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout == "Imported 9 objects into \(dir.file("copy.sqlite").path) (version 3).\n")
        let again = try Molt.run(["export", "copy.sqlite"], in: dir.url)
        #expect(again.stdout == export.stdout)

        // Value by value, through the library: attributes, identifiers, and relationships in order.
        func dump(_ url: URL) throws -> [String] {
            let store = try Store.open(at: url, schema: Fixtures.everything)
            defer { try? store.close() }
            return try store.read { objects in
                var lines: [String] = []
                for entity in Fixtures.everything.entities {
                    for object in try objects.fetch(entity.name) {
                        var line = "\(entity.name) \(object.id!):"
                        for attribute in entity.attributes {
                            let value = object[attribute.name]
                            // Compare doubles and dates by their bits, not by ==.
                            switch value {
                            case .double(let d): line += " \(attribute.name)=d\(d.bitPattern)"
                            case .date(let d): line += " \(attribute.name)=t\(d.timeIntervalSince1970.bitPattern)"
                            default: line += " \(attribute.name)=\(value)"
                            }
                        }
                        for relationship in entity.relationships {
                            line +=
                                " \(relationship.name)=\(try objects.destinations(relationship.name, of: object).map { $0.id! })"
                        }
                        lines.append(line)
                    }
                }
                return lines
            }
        }
        let expected = try dump(original)
        #expect(expected.count == 9)
        #expect(try dump(dir.file("copy.sqlite")) == expected)
    }

    @Test("the JSON form: dates as exact seconds, data as Base64, infinities as strings, relationships as _ids")
    func format() throws {
        let dir = TemporaryDirectory()
        try Fixtures.fillEverything(at: dir.file("s.sqlite"))
        let export = try Molt.run(["export", "s.sqlite", "--entity", "Folder"], in: dir.url)
        #expect(export.status == 0, "\(export)")
        #expect(
            export.stdout == """
                {
                  "entities" : {
                    "Folder" : [
                      {
                        "_id" : 1,
                        "name" : "Inbox",
                        "notes" : [
                          4,
                          1,
                          6
                        ]
                      },
                      {
                        "_id" : 2,
                        "name" : "Ünïcødé \\"quoted\\", comma\\nnewline",
                        "notes" : [

                        ]
                      }
                    ]
                  },
                  "format" : "molt-data",
                  "formatVersion" : 1,
                  "identifierMarks" : {
                    "Folder" : 2
                  },
                  "schemaVersion" : 3
                }

                """)
        let notes = try Molt.run(["export", "s.sqlite", "--entity", "Note"], in: dir.url).stdout
        for fragment in [
            "\"score\" : \"Infinity\"", "\"score\" : \"-Infinity\"", "\"created\" : -86400.5",
            "\"created\" : 1700000000.1234567",
            "\"count\" : 9223372036854775807", "\"count\" : -9223372036854775808", "\"blob\" : \"\"",
            "\"score\" : 5e-324",
        ] {
            #expect(notes.contains(fragment), "missing \(fragment)")
        }
    }

    @Test("export --format csv: one entity, quoted text, empty cells for null")
    func csv() throws {
        let dir = TemporaryDirectory()
        try Fixtures.fillEverything(at: dir.file("s.sqlite"))
        let result = try Molt.run(["export", "s.sqlite", "--format", "csv", "--entity", "Folder"], in: dir.url)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout
                == "_id,name,notes\n1,\"Inbox\",\"4 1 6\"\n2,\"Ünïcødé \"\"quoted\"\", comma\nnewline\",\"\"\n")
        let memos = TemporaryDirectory()
        try Fixtures.memoStore(at: memos.file("m.sqlite"), count: 2)
        let memo = try Molt.run(["export", "m.sqlite", "--format", "csv"], in: memos.url)
        let lines = memo.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "_id,objectID,memoTitle,memoDate,memoSubtitle,favorite")
        #expect(lines[1].hasSuffix(",\"Memo 0\",1700000000.0,,true"))
        #expect(lines[2].hasSuffix(",\"Memo 1\",1700000001.0,\"sub 1\",false"))
        let several = try Molt.run(["export", "s.sqlite", "--format", "csv"], in: dir.url)
        #expect(several.status == 2)
        #expect(
            several.stderr
                == "error: CSV holds one entity, and this store has 2: choose one with --entity (Folder, Note).\n")
    }

    @Test("import adds to an existing store with new _ids and relationships that follow")
    func addToExisting() throws {
        let dir = TemporaryDirectory()
        try Fixtures.fillEverything(at: dir.file("s.sqlite"))
        try Fixtures.write(Fixtures.everything, to: dir.file("schema.json"))
        try Data(try Molt.run(["export", "s.sqlite"], in: dir.url).stdout.utf8).write(to: dir.file("data.json"))
        // Keys are unique, so give the second batch fresh ones.
        var text = try String(contentsOf: dir.file("data.json"), encoding: .utf8)
        let info = try Store.open(at: dir.file("s.sqlite"), schema: Fixtures.everything).read { try $0.fetch("Note") }
        for note in info { text = text.replacingOccurrences(of: note["key"].uuid!.uuidString, with: UUID().uuidString) }
        try Data(text.utf8).write(to: dir.file("data2.json"))
        let result = try Molt.run(["import", "s.sqlite", "--schema", "schema.json", "data2.json"], in: dir.url)
        #expect(result.status == 0, "\(result)")
        let store = try Store.open(at: dir.file("s.sqlite"), schema: Fixtures.everything)
        try store.read { objects in
            #expect(try objects.count("Folder") == 4)
            #expect(try objects.count("Note") == 14)
            let inboxes = try objects.fetch("Folder", where: .equal("name", "Inbox"))
            #expect(inboxes.count == 2)
            let texts = try inboxes.map { try objects.destinations("notes", of: $0).map { $0["text"] } }
            #expect(texts[0] == texts[1])
            #expect(try objects.destinations("notes", of: inboxes[1]).allSatisfy { $0.id! > 8 })
        }
    }

    @Test(
        "an export carries each entity's identifier mark: no store made from it hands out an id the exporting store gave"
    )
    func identifierMarksSurviveExportAndImport() throws {
        let dir = TemporaryDirectory()
        let schema = Schema(version: 1) { Entity("Note") { Attribute("text", .string) } }
        try Fixtures.write(schema, to: dir.file("schema.json"))
        let original = try Store.open(at: dir.file("original.sqlite"), schema: schema)
        let ids = try original.write { objects in
            try (0..<4).map { try objects.insert("Note", ["text": .string("n\($0)")]).id! }
        }
        // The two newest go: the store's mark stays at the fourth id.
        try original.write { objects in
            for id in ids[2...] { try objects.delete(try #require(try objects.object("Note", id: id))) }
        }
        try original.close()
        let export = try Molt.run(["export", "original.sqlite"], in: dir.url)
        #expect(export.status == 0, "\(export)")
        #expect(export.stdout.contains("\"identifierMarks\" : {\n    \"Note\" : \(ids[3])\n  },"), "\(export.stdout)")
        try Data(export.stdout.utf8).write(to: dir.file("data.json"))

        // A new store keeps the file's ids and numbers past the mark.
        #expect(
            try Molt.run(["import", "copy.sqlite", "--schema", "schema.json", "data.json"], in: dir.url).status == 0)
        let copy = try Store.open(at: dir.file("copy.sqlite"), schema: schema)
        #expect(try copy.read { try $0.fetch("Note").map(\.id!) } == Array(ids[..<2]))
        #expect(try copy.write { try $0.insert("Note", ["text": "new"]).id! } > ids[3])
        try copy.close()

        // An existing store that deleted its own newest objects numbers the imported ones past its mark, and past
        // the file's shifted mark afterwards.
        let target = try Store.open(at: dir.file("target.sqlite"), schema: schema)
        let own = try target.write { objects in
            try (0..<3).map { try objects.insert("Note", ["text": .string("own \($0)")]).id! }
        }
        try target.write { objects in try objects.delete(try #require(try objects.object("Note", id: own[2]))) }
        try target.close()
        #expect(
            try Molt.run(["import", "target.sqlite", "--schema", "schema.json", "data.json"], in: dir.url).status == 0)
        let merged = try Store.open(at: dir.file("target.sqlite"), schema: schema)
        let imported = try merged.read { try $0.fetch("Note", where: .hasPrefix("text", "n")).map(\.id!) }
        #expect(imported == ids[..<2].map { $0 + own[2] }, "imported objects took ids the store had handed out")
        #expect(try merged.write { try $0.insert("Note", ["text": "later"]).id! } > ids[3] + own[2])
    }

    @Test(
        "bad data is refused with one line naming it, and no store is left behind",
        arguments: [
            ("{", "error: data.json is not a molt export file (invalid JSON"),
            // Another format is refused on its first key, before any object is read (the entity is unknown too).
            (
                "{\"format\": \"csv-data\", \"formatVersion\": 1, \"entities\": {\"Nope\": [{}]}}",
                "error: data.json is format 'csv-data', but this molt reads 'molt-data' 1 at most.\n"
            ),
            (
                "{\"format\": \"molt-data\", \"formatVersion\": 9, \"entities\": {\"Nope\": [{}]}}",
                "error: data.json is format 'molt-data' 9, but this molt reads 'molt-data' 1 at most.\n"
            ),
            (
                "{\"format\": \"molt-data\", \"formatVersion\": 1, \"entities\": {\"Nope\": [{}]}}",
                "error: data.json holds objects of entity 'Nope', which schema version 3 does not have.\n"
            ),
            (
                "{\"format\": \"molt-data\", \"formatVersion\": 1, \"entities\": {\"Folder\": [{\"_id\": 1, \"name\": 5}]}}",
                "error: data.json: 'Folder' _id 1 has 5 for attribute 'Folder.name', which holds string values.\n"
            ),
            (
                "{\"format\": \"molt-data\", \"formatVersion\": 1, \"entities\": {\"Folder\": [{\"_id\": 1, \"name\": \"a\", \"notes\": [9]}]}}",
                "error: 'Folder' _id 1 points through 'notes' to 'Note' _id 9, which is not in the file.\n"
            ),
            (
                "{\"format\": \"molt-data\", \"formatVersion\": 1, \"entities\": {\"Folder\": [{\"_id\": 1}]}}",
                "error: Attribute 'Folder.name' is required; give it a value (or a default in the schema).\n"
            ),
        ])
    func badData(data: String, message: String) throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.everything, to: dir.file("schema.json"))
        try Data(data.utf8).write(to: dir.file("data.json"))
        let before = try snapshotOfFiles(in: dir.url)
        let result = try Molt.run(["import", "new.sqlite", "--schema", "schema.json", "data.json"], in: dir.url)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try snapshotOfFiles(in: dir.url) == before)
    }

    @Test("import reads the data from a pipe: molt import new --schema s <(molt export old)")
    func pipe() throws {
        let dir = TemporaryDirectory()
        try Fixtures.memoStore(at: dir.file("old.sqlite"), count: 4)
        try Fixtures.write(Fixtures.memoV0, to: dir.file("0.json"))
        let result = try Molt.run(
            ["-c", "molt import new.sqlite --schema 0.json <(molt export old.sqlite) && molt export new.sqlite"],
            in: dir.url, shell: true)
        #expect(result.status == 0, "\(result)")
        let export = try Molt.run(["export", "old.sqlite"], in: dir.url)
        #expect(
            result.stdout == "Imported 4 objects into \(dir.file("new.sqlite").path) (version 0).\n" + export.stdout)
    }
}
