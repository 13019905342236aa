import Foundation
import Testing
import Molt

/// The JSON snapshot form of a schema, and its content hash.
@Suite("Schema snapshots and hashes")
struct SchemaSnapshotTests {
    /// A schema using every type as a default, every relationship option, indexes and rename hints.
    static func everything() -> Schema {
        Schema(version: 7) {
            Entity("Folder", originalName: "Directory") {
                Attribute("name", .string, default: "Untitled")
                Relationship("notes", toMany: "Note", ordered: true, inverse: "folder", deleteRule: .cascade)
            }
            Entity("Note", primaryKey: "key") {
                Attribute("key", .uuid, default: .uuid(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!))
                Attribute("count", .int, default: -3)
                Attribute("ratio", .double, default: 0.5)
                Attribute("done", .bool, default: false)
                Attribute("due", .date, default: .date(Date(timeIntervalSince1970: 1_700_000_000.25)))
                Attribute("blob", .data, isOptional: true, default: .data(Data([0, 255, 16])))
                Attribute("body", .string, isOptional: true, originalName: "text")
                Relationship("folder", to: "Folder", inverse: "notes", deleteRule: .nullify, originalName: "directory")
                Relationship("links", toMany: "Note", deleteRule: .deny)
                Index(["count", "ratio"])
                Index(["body"], unique: true)
            }
        }
    }

    @Test("a snapshot reads back as the same schema")
    func roundTrip() throws {
        let schema = Self.everything()
        let json = try schema.snapshotJSON()
        let read = try Schema(snapshotJSON: json)
        #expect(read == schema)
        #expect(try read.snapshotJSON() == json)
        #expect(read.contentHash == schema.contentHash)
    }

    @Test("a snapshot is sorted, pretty-printed JSON with plain values")
    func snapshotText() throws {
        let schema = Schema(version: 2) {
            Entity("Note") {
                Attribute("text", .string, originalName: "body")
                Attribute("due", .date, default: .date(Date(timeIntervalSince1970: 0.5)))
                Relationship("tags", toMany: "Tag", ordered: true)
            }
            Entity("Tag") {
                Attribute("label", .string); Index(["label"], unique: true)
            }
        }
        let text = String(decoding: try schema.snapshotJSON(), as: UTF8.self)
        #expect(
            text == """
                {
                  "entities" : [
                    {
                      "attributes" : [
                        {
                          "name" : "text",
                          "optional" : false,
                          "originalName" : "body",
                          "type" : "string"
                        },
                        {
                          "default" : "1970-01-01T00:00:00.500Z",
                          "name" : "due",
                          "optional" : false,
                          "type" : "date"
                        }
                      ],
                      "name" : "Note",
                      "relationships" : [
                        {
                          "deleteRule" : "nullify",
                          "destination" : "Tag",
                          "kind" : "toMany",
                          "name" : "tags",
                          "ordered" : true
                        }
                      ]
                    },
                    {
                      "attributes" : [
                        {
                          "name" : "label",
                          "optional" : false,
                          "type" : "string"
                        }
                      ],
                      "indexes" : [
                        {
                          "attributes" : [
                            "label"
                          ],
                          "unique" : true
                        }
                      ],
                      "name" : "Tag"
                    }
                  ],
                  "formatVersion" : 1,
                  "version" : 2
                }
                """)
    }

    @Test("the content hash ignores declaration order, the version and originalName hints")
    func hashIsStable() throws {
        let schema = Self.everything()
        var shuffled = schema.withVersion(99)
        shuffled.entities.reverse()
        shuffled.edit("Note") {
            $0.attributes.reverse()
            $0.relationships.reverse()
            $0.indexes.reverse()
            $0.editAttribute("body") { $0.originalName = nil }
            $0.editRelationship("folder") { $0.originalName = "elsewhere" }
        }
        shuffled.edit("Folder") { $0.originalName = nil }
        #expect(shuffled.contentHash == schema.contentHash)
        #expect(schema.contentHash.count == 64)
        #expect(schema.contentHash.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test("the content hash changes with any structural change")
    func hashChanges() throws {
        let schema = Self.everything()
        let changes: [(String, (inout Schema) -> Void)] = [
            (
                "type",
                {
                    $0.edit("Note") {
                        $0.editAttribute("count") {
                            $0.type = .double; $0.defaultValue = -3.0
                        }
                    }
                }
            ),
            ("optionality", { $0.edit("Note") { $0.editAttribute("done") { $0.isOptional = true } } }),
            ("default", { $0.edit("Note") { $0.editAttribute("count") { $0.defaultValue = 4 } } }),
            ("attribute name", { $0.edit("Note") { $0.editAttribute("body") { $0.name = "text" } } }),
            ("index", { $0.edit("Note") { $0.indexes.removeFirst() } }),
            ("uniqueness", { $0.edit("Note") { $0.indexes[1].isUnique = false } }),
            ("delete rule", { $0.edit("Note") { $0.editRelationship("links") { $0.deleteRule = .cascade } } }),
            ("ordering", { $0.edit("Folder") { $0.editRelationship("notes") { $0.isOrdered = false } } }),
            ("primary key", { $0.edit("Note") { $0.primaryKey = nil } }),
        ]
        var hashes: Set<String> = [schema.contentHash]
        for (name, change) in changes {
            var changed = schema
            change(&changed)
            #expect(hashes.insert(changed.contentHash).inserted, "\(name) did not change the hash")
        }
    }

    /// A damaged snapshot and its exact message.
    struct BadSnapshot: CustomTestStringConvertible, Sendable {
        var name: String
        var json: String
        var code: MoltError.Code
        var message: String
        var testDescription: String { name }
    }

    static let badSnapshots: [BadSnapshot] = [
        BadSnapshot(
            name: "missing key",
            json: #"{"version": 1, "entities": [{"name": "Note", "attributes": [{"name": "a"}]}]}"#,
            code: .invalidSchema,
            message: "The schema snapshot lacks the key 'type' at 'entities[0].attributes[0]'."),
        BadSnapshot(
            name: "newer format", json: #"{"formatVersion": 2, "version": 1, "entities": []}"#,
            code: .unsupportedFormat,
            message: "The schema snapshot uses format 2, but this Molt reads format 1 at most; update Molt."),
        BadSnapshot(
            name: "format below 1", json: #"{"formatVersion": -3, "version": 1, "entities": []}"#, code: .invalidSchema,
            message:
                "The schema snapshot says it uses format -3, which no Molt ever wrote (formats start at 1): the file is damaged or was not written by Molt. Write it again with `Schema.snapshotJSON()` or `molt schema`."
        ),
        BadSnapshot(
            name: "invalid schema inside",
            json:
                #"{"version": 1, "entities": [{"name": "Note", "attributes": [], "relationships": [{"name": "f", "destination": "F", "kind": "toOne"}]}]}"#,
            code: .invalidSchema,
            message: "Invalid schema version 1: relationship 'Note.f' points to entity 'F', which is not in the schema."
        ),
        BadSnapshot(
            name: "unknown type",
            json: #"{"version": 1, "entities": [{"name": "Note", "attributes": [{"name": "a", "type": "money"}]}]}"#,
            code: .invalidSchema,
            message:
                "The schema snapshot is not valid JSON: Cannot initialize AttributeType from invalid String value money."
        ),
        // Found by Fuzz/run snapshot: ICU's date parser trapped (SIGFPE) on a fraction of dozens of digits.
        BadSnapshot(
            name: "date default with a fraction of 48 digits",
            json:
                #"{"version": 1, "entities": [{"name": "Note", "attributes": [{"name": "due", "type": "date", "default": "1970-01-01T00:00:00.333333333333333333333333333333333333333333333500Z"}]}]}"#,
            code: .invalidSchema,
            message: "The schema snapshot is not valid JSON: expected an ISO 8601 date for a date default."),
    ]

    @Test("a damaged snapshot is refused with an exact message", arguments: badSnapshots)
    func badSnapshot(_ bad: BadSnapshot) {
        let error = moltError { _ = try Schema(snapshotJSON: Data(bad.json.utf8)) }
        #expect(error?.code == bad.code)
        #expect(error?.message == bad.message)
    }

    @Test(
        "a default written as another literal is kept in the attribute's type, so a stored schema equals the app's",
        arguments: StoreKind.files)
    func defaultsTakeTheAttributeType(kind: StoreKind) throws {
        let v0 = Schema(version: 0) {
            Entity("Gauge") {
                Attribute("ratio", .double, default: 3)
                Attribute("on", .bool, default: 1)
                Attribute("key", .uuid, default: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
            }
        }
        let gauge = try #require(v0.entity(named: "Gauge"))
        #expect(gauge.attribute(named: "ratio")?.defaultValue == .double(3))
        #expect(gauge.attribute(named: "on")?.defaultValue == .bool(true))
        #expect(
            gauge.attribute(named: "key")?.defaultValue
                == .uuid(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!))
        var edited = gauge.attribute(named: "ratio")!
        edited.defaultValue = 4
        #expect(edited.defaultValue == .double(4))
        #expect(try Schema(snapshotJSON: v0.snapshotJSON()) == v0)

        let dir = TemporaryDirectory()
        let url = dir.file()
        try Store.open(at: url, schema: v0, options: kind.options).close()
        #expect(try Store.inspect(at: url).schema == v0)
        let v1 = v0.next(1) { $0.edit("Gauge") { $0.attributes.append(Attribute("label", .string, isOptional: true)) } }
        let store = try Store.open(at: url, schema: v1, options: kind.options)
        defer { try? store.close() }
        #expect(try store.history().map(\.steps) == [["0 → 1 inferred: Attribute 'Gauge.label' has been added."]])
    }
}
