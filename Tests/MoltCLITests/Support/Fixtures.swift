import Foundation
import Molt

/// Schemas and stores the CLI tests run `molt` on.
enum Fixtures {
    /// The memo app of seed 000 at version 0.
    static let memoV0 = Schema(version: 0) {
        Entity("UserMemo", primaryKey: "objectID") {
            Attribute("objectID", .uuid)
            Attribute("memoTitle", .string)
            Attribute("memoDate", .date)
            Attribute("memoSubtitle", .string, isOptional: true)
            Attribute("favorite", .bool, default: false)
        }
    }

    /// Version 1: `count` added with a default; inferable.
    static let memoV1: Schema = {
        var schema = memoV0.withVersion(1)
        schema.entities[0].attributes.append(Attribute("count", .int, default: 100))
        return schema
    }()

    /// Version 1 with `memoTitle` replaced by `title` and no `originalName`: a likely rename, which Molt infers
    /// as a removal and an addition it refuses (required, no default).
    static let memoV1Renamed: Schema = {
        var schema = memoV0.withVersion(1)
        schema.entities[0].attributes[1] = Attribute("title", .string)
        return schema
    }()

    /// Version 1 with a required attribute and no default: not inferable.
    static let memoV1NeedsCode: Schema = {
        var schema = memoV0.withVersion(1)
        schema.entities[0].attributes.append(Attribute("memoDescription", .string))
        return schema
    }()

    /// A schema with every attribute type, optional and required, and relationships of every kind.
    static let everything = Schema(version: 3) {
        Entity("Folder") {
            Attribute("name", .string)
            Relationship("notes", toMany: "Note", ordered: true, inverse: "folder")
        }
        Entity("Note", primaryKey: "key") {
            Attribute("key", .uuid)
            Attribute("text", .string)
            Attribute("count", .int)
            Attribute("score", .double, isOptional: true)
            Attribute("done", .bool, default: false)
            Attribute("created", .date)
            Attribute("blob", .data, isOptional: true)
            Attribute("comment", .string, isOptional: true)
            Relationship("folder", to: "Folder", inverse: "notes")
            Relationship("related", toMany: "Note")
        }
    }

    /// Writes a schema's snapshot to `url`.
    static func write(_ schema: Schema, to url: URL) throws {
        try schema.snapshotJSON().write(to: url)
    }

    /// Creates a memo store at `schema` (version 0 or a later inferable one) with `count` memos, in rollback
    /// journal mode so that the store is one file.
    @discardableResult
    static func memoStore(at url: URL, count: Int = 20, schema: Schema = memoV0) throws -> URL {
        var options = Store.Options()
        options.journalMode = .rollback
        let store = try Store.open(at: url, schema: memoV0, options: options)
        try store.write { objects in
            for i in 0..<count {
                var values: [String: Value] = [
                    "objectID": .uuid(UUID()), "memoTitle": .string("Memo \(i)"),
                    "memoDate": .date(Date(timeIntervalSince1970: 1_700_000_000 + Double(i))),
                    "favorite": .bool(i.isMultiple(of: 2)),
                ]
                if i % 3 != 0 { values["memoSubtitle"] = .string("sub \(i)") }
                try objects.insert("UserMemo", values)
            }
        }
        try store.close()
        if schema.version != memoV0.version {
            try Store.open(at: url, schema: schema, options: options).close()
        }
        return url
    }

    /// Values that stress every type's text form: extremes, fractions, Unicode, empty and binary data.
    static func fillEverything(at url: URL) throws {
        var options = Store.Options()
        options.journalMode = .rollback
        let store = try Store.open(at: url, schema: everything, options: options)
        try store.write { objects in
            let inbox = try objects.insert("Folder", ["name": "Inbox"])
            let empty = try objects.insert("Folder", ["name": "Ünïcødé \"quoted\", comma\nnewline"])
            _ = empty
            let doubles: [Double?] = [
                0.1, -1e-300, 1.7976931348623157e308, .infinity, -.infinity, nil, 123456789.123456789,
                .leastNonzeroMagnitude,
            ]
            let dates: [Double] = [
                0, -86_400.5, 1_700_000_000.123456789, 4_102_444_800.000001, 1e-6, 978_307_200.25, -1, 0.3,
            ]
            let ints: [Int64] = [0, .max, .min, -1, 42, 1 << 53 + 1, -(1 << 53) - 1, 7]
            var notes: [DynamicObject] = []
            for i in 0..<doubles.count {
                var values: [String: Value] = [
                    "key": .uuid(UUID()), "text": .string(i == 0 ? "" : "note \(i) — ✓ 日本語 🙂"),
                    "count": .int(ints[i]), "done": .bool(i % 2 == 1),
                    "created": .date(Date(timeIntervalSince1970: dates[i])),
                ]
                if let d = doubles[i] { values["score"] = .double(d) }
                if i % 3 == 0 { values["blob"] = .data(Data((0..<(i * 7 + 1)).map { UInt8(($0 * 37 + i) % 256) })) }
                if i == 2 { values["blob"] = .data(Data()) }
                if i % 2 == 0 { values["comment"] = .string("c\(i)") }
                notes.append(try objects.insert("Note", values))
            }
            try objects.set("notes", of: inbox, to: [notes[3], notes[0], notes[5]])
            try objects.set("related", of: notes[1], to: [notes[2], notes[7]])
            try objects.delete(notes[6])
        }
        try store.close()
    }
}
