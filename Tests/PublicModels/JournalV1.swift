import Foundation
import MoltMacros

/// The first shipped version of a journal, declared `public` in a library target of its own, as an app keeps its
/// models: no model declares an initializer, so each one's memberwise initializer is the one `@Model` generates.
public enum JournalV1: VersionedSchema {
    public static let version = 1
    public static let models: [any PersistentModel.Type] = [Folder.self, Note.self]

    /// A folder of notes: the to-many side of `Note.folder`.
    @Model public struct Folder {
        @Attribute(.unique) public var name: String
        @Relationship(inverse: "folder", deleteRule: .cascade) public var notes: ToMany<Note> = []
    }

    /// A note: every attribute type, optionals, literal defaults, an enum, a JSON value and a to-one relationship.
    @Model public struct Note {
        @Attribute(.primaryKey) public var id: UUID
        public var kind: NoteKind
        public var title: String
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
        @Transient public var isSelected = false
    }
}
