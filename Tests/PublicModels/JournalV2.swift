import Foundation
import MoltMacros

/// The second version: `Note.title` is renamed `heading`, a required `summary` is computed by the plan's stage,
/// and notes gain tags (a to-many relationship whose inverse is to-many too).
public enum JournalV2: VersionedSchema {
    public static let version = 2
    public static let models: [any PersistentModel.Type] = [Folder.self, Note.self, Tag.self]

    @Model public struct Folder {
        @Attribute(.unique) public var name: String
        @Relationship(inverse: "folder", deleteRule: .cascade) public var notes: ToMany<Note> = []
    }

    @Model public struct Note {
        @Attribute(.primaryKey) public var id: UUID
        public var kind: NoteKind
        @Attribute(originalName: "title") public var heading: String
        public var summary: String
        public var words: Int = 0
        public var views: Int64 = -1
        public var rating: Double = 2.5
        public var pinned: Bool = false
        public var created: Date
        public var attachment: Data?
        public var subtitle: String?
        public var mood: Mood?
        public var place: Place?
        @Relationship(inverse: "notes") public var folder: ToOne<Folder> = nil
        @Relationship(inverse: "notes") public var tags: ToMany<Tag> = []
    }

    @Model public struct Tag {
        @Attribute(.unique) public var label: String
        @Relationship(inverse: "tags") public var notes: ToMany<Note> = []
    }
}

/// Every shipped version of the journal and the stage between them, public so that the app (and its tests)
/// open stores with it.
public enum JournalPlan: SchemaMigrationPlan {
    public static let schemas: [any VersionedSchema.Type] = [JournalV1.self, JournalV2.self]

    /// Version 2's `summary` is the kind and the first word of the title: code, so a typed custom stage.
    public static var stages: [MigrationStage] {
        [
            .custom(from: 1, to: 2) { migration in
                try migration.enumerateObjects(JournalV1.Note.self, to: JournalV2.Note.self) { old in
                    JournalV2.Note(
                        id: old.id, kind: old.kind, heading: old.title,
                        summary: JournalPlan.summary(kind: old.kind, title: old.title),
                        words: old.words, views: old.views, rating: old.rating, pinned: old.pinned,
                        created: old.created,
                        attachment: old.attachment, subtitle: old.subtitle, mood: old.mood, place: old.place,
                        folder: ToOne(id: old.folder.id))
                }
            }
        ]
    }

    /// `"idea: Milk"` for an idea titled "Milk and honey".
    public static func summary(kind: NoteKind, title: String) -> String {
        "\(kind.rawValue): \(title.split(separator: " ").first.map(String.init) ?? "")"
    }
}
