// Seed 002: a Core Data notes app. Text only → an optional image (lightweight) → several attachments
// (a custom stage, Core Data's mapping model) → attachments of several kinds (inferred), and a store of any
// old version brought to the newest in one run.
import Foundation
import MoltMacros

enum CoreDataNotes {
    enum V1: VersionedSchema {
        static let version = 1
        static let models: [any PersistentModel.Type] = [Note.self]
        @Model struct Note {
            var text: String
            var created: Date
        }
    }

    /// v2 adds an optional image: inferred, as Core Data's lightweight migration.
    enum V2: VersionedSchema {
        static let version = 2
        static let models: [any PersistentModel.Type] = [Note.self]
        @Model struct Note {
            var text: String
            var created: Date
            var image: Data?
        }
    }

    /// v3 lets a note have several images: the image moves into `Attachment` objects.
    enum V3: VersionedSchema {
        static let version = 3
        static let models: [any PersistentModel.Type] = [Note.self, Attachment.self]
        @Model struct Note {
            var text: String
            var created: Date
            @Relationship(inverse: "note", deleteRule: .cascade, ordered: true) var attachments: ToMany<Attachment> = []
        }
        @Model struct Attachment {
            var imageData: Data
            @Relationship(inverse: "attachments") var note: ToOne<Note> = nil
        }
    }

    /// v4 allows other kinds of attachment: `imageData` becomes `data`, with a `kind`.
    enum V4: VersionedSchema {
        static let version = 4
        static let models: [any PersistentModel.Type] = [Note.self, Attachment.self]
        @Model struct Note {
            var text: String
            var created: Date
            @Relationship(inverse: "note", deleteRule: .cascade, ordered: true) var attachments: ToMany<Attachment> = []
        }
        @Model struct Attachment {
            @Attribute(originalName: "imageData") var data: Data
            var kind: String = "image"
            @Relationship(inverse: "attachments") var note: ToOne<Note> = nil
        }
    }

    enum NotesPlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [V1.self, V2.self, V3.self, V4.self]
        static var stages: [MigrationStage] {
            [
                .custom(from: 2, to: 3) { migration in
                    // Core Data's createDestinationInstances: one Attachment per note that had an image.
                    try migration.enumerateOldObjects(V2.Note.self) { old in
                        guard let image = old.image else { return }
                        try migration.new.insert(V3.Attachment(imageData: image, note: ToOne(id: old.persistentID)))
                    }
                }
            ]
        }
    }

    static func run(_ check: Checker) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-example-notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let day = Date(timeIntervalSince1970: 1_650_000_000)
        let photo = Data([0x89, 0x50, 0x4E, 0x47])

        // A v1 store: text only.
        let v1URL = folder.appendingPathComponent("v1.sqlite")
        let v1 = try Store.open(at: v1URL, schema: V1.schema)
        try v1.write { try $0.insert(V1.Note(text: "First note", created: day)) }
        try v1.close()

        // A v2 store with an image on one note.
        let v2URL = folder.appendingPathComponent("v2.sqlite")
        let v2 = try Store.open(at: v2URL, schema: V2.schema)
        try v2.write { objects in
            try objects.insert(V2.Note(text: "Holiday", created: day, image: photo))
            try objects.insert(V2.Note(text: "Shopping", created: day, image: nil))
        }
        try v2.close()

        let fromV1 = try Store.open(at: v1URL, plan: NotesPlan.self)
        try fromV1.read { objects in
            let notes = try objects.fetch(V4.Note.self)
            check.expect(notes.map(\.text), ["First note"], "v1 → v4: text kept")
            check.expect(try objects.count(V4.Attachment.self), 0, "v1 → v4: no attachment invented")
        }
        try fromV1.close()

        let fromV2 = try Store.open(at: v2URL, plan: NotesPlan.self)
        try fromV2.read { objects in
            let notes = try objects.fetch(V4.Note.self, orderBy: [.ascending(\.text)])
            check.expect(notes.map(\.text), ["Holiday", "Shopping"], "v2 → v4 directly: notes kept")
            check.expect(notes.map(\.created), [day, day], "v2 → v4: dates kept")
            let holiday = try objects.destinations(\.attachments, of: notes[0])
            check.expect(holiday.map(\.data), [photo], "the image moved into an attachment, renamed to data")
            check.expect(holiday.map(\.kind), ["image"], "existing attachments are images")
            check.expect(
                try objects.destinations(\.attachments, of: notes[1]).count, 0, "a note without image has no attachment"
            )
            check.expect(
                try objects.destination(\.note, of: holiday[0])?.text, "Holiday",
                "the attachment points back to its note")
        }
        try fromV2.close()
    }
}
