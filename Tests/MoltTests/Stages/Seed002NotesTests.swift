import Foundation
import Testing
@testable import Molt

/// Seed 002: the Core Data notes app: text only → an image (lightweight) → several images (mapping) → attachments
/// of several kinds (custom hook), from any old version, with a v2 → v4 shortcut.
@Suite("Seed 002: notes, images, attachments")
struct Seed002NotesTests {
    static let v1 = Schema(version: 1) {
        Entity("Note") {
            Attribute("text", .string)
            Attribute("createdAt", .date)
        }
    }
    static let v2 = Schema(version: 2) {
        Entity("Note") {
            Attribute("text", .string)
            Attribute("createdAt", .date)
            Attribute("image", .data, isOptional: true)
        }
    }
    static let v3 = Schema(version: 3) {
        Entity("Note") {
            Attribute("text", .string)
            Attribute("createdAt", .date)
            Relationship("images", toMany: "Image", ordered: true, inverse: "note", deleteRule: .cascade)
        }
        Entity("Image") {
            Attribute("bytes", .data)
            Relationship("note", to: "Note", inverse: "images")
        }
    }
    static let v4 = Schema(version: 4) {
        Entity("Note") {
            Attribute("text", .string)
            Attribute("createdAt", .date)
            Relationship("attachments", toMany: "Attachment", ordered: true, inverse: "note", deleteRule: .cascade)
        }
        Entity("Attachment") {
            Attribute("kind", .string)
            Attribute("bytes", .data)
            Attribute("byteCount", .int)
            Relationship("note", to: "Note", inverse: "attachments")
        }
    }

    /// v2 → v3: every note's single image becomes its first Image, linked back: a declarative mapping.
    static let imagesMapping = MigrationStage.mapping(
        from: 2, to: 3,
        [
            EntityMapping(
                destination: "Image", source: "Note", filter: "image IS NOT NULL", attributes: ["bytes": "image"],
                links: [.init(relationship: "note", to: "Note")]),
            EntityMapping(destination: "Note"),
        ])

    /// v3 → v4: each Image becomes an Attachment of kind "image" (a custom hook: Core Data's policy subclass).
    static let attachmentsStage = MigrationStage.custom(from: 3, to: 4) { migration in
        try migration.enumerateOldObjects(ofType: "Image") { old in
            let bytes = old["bytes"].data ?? Data()
            let attachment = try migration.create(
                "Attachment", value: ["kind": "image", "bytes": .data(bytes), "byteCount": .int(Int64(bytes.count))])
            let noteID = try migration.old.destination("note", of: old.dynamicObject)?.id
            if let noteID, let note = try migration.new.object("Note", id: noteID) {
                try migration.new.add(attachment, to: "attachments", of: note)
            }
        }
    }

    /// The shortcut v2 → v4: straight from the single image to an attachment.
    static let shortcut = MigrationStage.custom(from: 2, to: 4) { migration in
        try migration.enumerateOldObjects(ofType: "Note") { old in
            guard let bytes = old["image"].data else { return }
            let attachment = try migration.create(
                "Attachment", value: ["kind": "image", "bytes": .data(bytes), "byteCount": .int(Int64(bytes.count))])
            try migration.new.add(
                attachment, to: "attachments", of: try #require(try migration.new.object("Note", id: old.id)))
        }
    }

    static func makeStore(_ url: StoreLocation, version: Int, kind: StoreKind) throws -> [Data?] {
        let schema = [v1, v2][version - 1]
        let store = try Store.open(at: url, schema: schema, options: kind.options)
        let images: [Data?] = (0..<12).map { i in i % 3 == 0 ? nil : Data((0..<(i * 10)).map { UInt8($0 % 256) }) }
        try store.write { objects in
            for (i, image) in images.enumerated() {
                var values: [String: Value] = [
                    "text": .string("note \(i)"), "createdAt": .date(Date(timeIntervalSince1970: Double(i))),
                ]
                if version == 2 { values["image"] = image.map(Value.data) ?? .null }
                try objects.insert("Note", values)
            }
        }
        try store.close()
        return version == 2 ? images : images.map { _ in nil }
    }

    static func check(_ store: Store, images: [Data?]) throws {
        try store.read { objects in
            let notes = try objects.fetch("Note")
            #expect(notes.count == images.count)
            for (i, note) in notes.enumerated() {
                #expect(note["text"] == .string("note \(i)"))
                #expect(note["createdAt"] == .date(Date(timeIntervalSince1970: Double(i))))
                let attachments = try objects.destinations("attachments", of: note)
                if let image = images[i] {
                    #expect(attachments.count == 1)
                    #expect(attachments.first?["bytes"] == .data(image))
                    #expect(attachments.first?["kind"] == "image")
                    #expect(attachments.first?["byteCount"] == .int(Int64(image.count)))
                    #expect(try objects.destination("note", of: attachments[0])?.id == note.id)
                } else {
                    #expect(attachments.isEmpty)
                }
            }
        }
    }

    @Test("v1 and v2 stores reach v4 through every stage", arguments: [1, 2], StoreKind.durable)
    func stepByStep(start: Int, kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let images = try Self.makeStore(try kind.location(in: dir), version: start, kind: kind)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2, Self.v3, Self.v4], stages: [Self.imagesMapping, Self.attachmentsStage])
        let store = try Store.open(
            at: try kind.location(in: dir), schema: Self.v4, options: kind.options.migrating(with: plan))
        try Self.check(store, images: images)
        #expect(try store.history().last?.steps.count == 4 - start)
    }

    @Test("a declared shortcut v2 → v4 is taken, and gives the same result", arguments: [1, 2], StoreKind.durable)
    func shortcut(start: Int, kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let images = try Self.makeStore(try kind.location(in: dir), version: start, kind: kind)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2, Self.v3, Self.v4],
            stages: [Self.imagesMapping, Self.attachmentsStage, Self.shortcut])
        let store = try Store.open(
            at: try kind.location(in: dir), schema: Self.v4, options: kind.options.migrating(with: plan))
        try Self.check(store, images: images)
        let steps = try #require(try store.history().last?.steps)
        #expect(steps.last?.hasPrefix("2 → 4 custom") == true)
        #expect(steps.count == (start == 1 ? 2 : 1))
    }
}
