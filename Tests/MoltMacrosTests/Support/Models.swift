import Foundation
import MoltMacros

/// A notes app at two versions, declared with the macros.
enum NotesV1: VersionedSchema {
    static let version = 1
    static let models: [any PersistentModel.Type] = [Folder.self, Note.self]

    @Model struct Folder {
        @Attribute(.unique) var name: String
        @Relationship(inverse: "folder", deleteRule: .cascade) var notes: ToMany<Note> = []
    }

    @Model struct Note {
        @Attribute(.primaryKey) var uuid: UUID
        var title: String
        var count: Int = 0
        var rating: Double = 2.5
        var pinned: Bool = false
        var subtitle: String?
        var created: Date
        var attachment: Data?
        var big: Int64 = -1
        @Relationship(inverse: "notes") var folder: ToOne<Folder> = nil
        @Transient var isSelected = false
        var shout: String { title.uppercased() }
    }
}

enum NotesV2: VersionedSchema {
    static let version = 2
    static let models: [any PersistentModel.Type] = [Folder.self, Note.self]

    @Model struct Folder {
        @Attribute(.unique) var name: String
        @Relationship(inverse: "folder", deleteRule: .cascade) var notes: ToMany<Note> = []
    }

    @Model struct Note {
        @Attribute(.primaryKey) var uuid: UUID
        @Attribute(originalName: "title") var heading: String
        var count: Int = 0
        var rating: Double = 2.5
        var pinned: Bool = false
        var subtitle: String?
        var created: Date
        var attachment: Data?
        var big: Int64 = -1
        var words: Int = 0
        @Relationship(inverse: "notes") var folder: ToOne<Folder> = nil
    }
}

enum NotesPlan: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [NotesV1.self, NotesV2.self]
}

/// A public model, to check the generated members' access.
@Model public struct Tag {
    public var label: String
    public init(label: String) { self.label = label }
}
