import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Model expansion")
struct ModelExpansionTests {
    @Test("A struct gets persistentID, its entity, column-ordered conversion and key path names")
    func expansion() {
        assertExpansion(
            """
            @Model public struct Note {
                @Attribute(.primaryKey) var uuid: UUID
                @Attribute(originalName: "name") var title: String
                var count: Int = -1
                var subtitle: String?
                @Relationship(inverse: "notes", deleteRule: .nullify) var folder: ToOne<Folder> = nil
                @Relationship(ordered: true) var tags: ToMany<Tag> = []
                @Transient var isSelected = false
                var shout: String { title.uppercased() }
                static var sample: Int = 0
            }
            """,
            expandedSource: """
                public struct Note {
                    var uuid: UUID
                    var title: String
                    var count: Int = -1
                    var subtitle: String?
                    var folder: ToOne<Folder> = nil
                    var tags: ToMany<Tag> = []
                    var isSelected = false
                    var shout: String { title.uppercased() }
                    static var sample: Int = 0

                    /// The identifier Molt gave this object when it was inserted, or nil before.
                    public var persistentID: Int64? = nil

                    /// Creates a value with every stored property (the memberwise initializer, public).
                    public init(uuid: UUID, title: String, count: Int = -1, subtitle: String? = nil, folder: ToOne<Folder> = nil, tags: ToMany<Tag> = [], isSelected: Bool = false) {
                        self.uuid = uuid
                        self.title = title
                        self.count = count
                        self.subtitle = subtitle
                        self.folder = folder
                        self.tags = tags
                        self.isSelected = isSelected
                    }
                }

                extension Note: Molt.PersistentModel {
                    /// The entity that stores `Note`, derived by `@Model`.
                    public static let entity: Molt.Entity = Molt.Entity(
                        "Note",
                        primaryKey: "uuid",
                        attributes: [
                            Molt.Attribute("uuid", .uuid),
                            Molt.Attribute("title", .string, originalName: "name"),
                            Molt.Attribute("count", .int, default: (-1 as Int).moltValue),
                            Molt.Attribute("subtitle", .string, isOptional: true),
                        ],
                        relationships: [
                            Molt.Relationship("folder", to: "Folder", inverse: "notes", deleteRule: .nullify),
                            Molt.Relationship("tags", toMany: "Tag", ordered: true),
                        ]
                    )

                    /// Reads a `Note` from its stored columns.
                    public init(row: Molt.ModelRow) throws {
                        self.persistentID = row.id
                        self.uuid = try row.value(at: 0)
                        self.title = try row.value(at: 1)
                        self.count = try row.value(at: 2)
                        self.subtitle = try row.value(at: 3)
                        self.folder = try .read(from: row, at: 4)
                        self.tags = .init(ownerID: row.id)
                    }

                    /// Writes the stored properties in column order.
                    public func encode(to columns: inout Molt.ModelColumns) {
                        columns.append(self.uuid)
                        columns.append(self.title)
                        columns.append(self.count)
                        columns.append(self.subtitle)
                        self.folder.write(to: &columns)
                    }

                    /// The stored name of a key path.
                    public static func propertyName(for keyPath: PartialKeyPath<Self>) -> String? {
                        if keyPath == \\Self.uuid {
                            return "uuid"
                        }
                        if keyPath == \\Self.title {
                            return "title"
                        }
                        if keyPath == \\Self.count {
                            return "count"
                        }
                        if keyPath == \\Self.subtitle {
                            return "subtitle"
                        }
                        if keyPath == \\Self.folder {
                            return "folder"
                        }
                        if keyPath == \\Self.tags {
                            return "tags"
                        }
                        return nil
                    }
                }
                """)
    }

    @Test("A unique attribute becomes a unique index; @Model(originalName:) renames the entity")
    func uniqueAndRenamed() {
        assertExpansion(
            """
            @Model(originalName: "Person") struct Contact {
                @Attribute(.unique) var email: String
                var persistentID: Int64?
            }
            """,
            expandedSource: """
                struct Contact {
                    var email: String
                    var persistentID: Int64?
                }

                extension Contact: Molt.PersistentModel {
                    /// The entity that stores `Contact`, derived by `@Model`.
                    static let entity: Molt.Entity = Molt.Entity(
                        "Contact",
                        originalName: "Person",
                        attributes: [
                            Molt.Attribute("email", .string),
                        ],
                        indexes: [
                            Molt.Index(["email"], unique: true),
                        ]
                    )

                    /// Reads a `Contact` from its stored columns.
                    init(row: Molt.ModelRow) throws {
                        self.persistentID = row.id
                        self.email = try row.value(at: 0)
                    }

                    /// Writes the stored properties in column order.
                    func encode(to columns: inout Molt.ModelColumns) {
                        columns.append(self.email)
                    }

                    /// The stored name of a key path.
                    static func propertyName(for keyPath: PartialKeyPath<Self>) -> String? {
                        if keyPath == \\Self.email {
                            return "email"
                        }
                        return nil
                    }
                }
                """)
    }

    @Test("A package model gets a package memberwise initializer; an untyped literal gets its literal's type")
    func packageInitializer() {
        assertExpansion(
            """
            @Model package struct Label {
                package var text: String
                package let color: Int
                @Transient var isHidden = false
            }
            """,
            expandedSource: """
                package struct Label {
                    package var text: String
                    package let color: Int
                    var isHidden = false

                    /// The identifier Molt gave this object when it was inserted, or nil before.
                    package var persistentID: Int64? = nil

                    /// Creates a value with every stored property (the memberwise initializer, package).
                    package init(text: String, color: Int, isHidden: Bool = false) {
                        self.text = text
                        self.color = color
                        self.isHidden = isHidden
                    }
                }

                extension Label: Molt.PersistentModel {
                    /// The entity that stores `Label`, derived by `@Model`.
                    package static let entity: Molt.Entity = Molt.Entity(
                        "Label",
                        attributes: [
                            Molt.Attribute("text", .string),
                            Molt.Attribute("color", .int),
                        ]
                    )

                    /// Reads a `Label` from its stored columns.
                    package init(row: Molt.ModelRow) throws {
                        self.persistentID = row.id
                        self.text = try row.value(at: 0)
                        self.color = try row.value(at: 1)
                    }

                    /// Writes the stored properties in column order.
                    package func encode(to columns: inout Molt.ModelColumns) {
                        columns.append(self.text)
                        columns.append(self.color)
                    }

                    /// The stored name of a key path.
                    package static func propertyName(for keyPath: PartialKeyPath<Self>) -> String? {
                        if keyPath == \\Self.text {
                            return "text"
                        }
                        if keyPath == \\Self.color {
                            return "color"
                        }
                        return nil
                    }
                }
                """)
    }

    @Test("A sub-entity's model names its parent's model inside the struct, where the name resolves")
    func subEntity() {
        assertExpansion(
            """
            @Model(parent: Car.self, isAbstract: true)
            struct SportCar {
                var model: String
                var topSpeed: Int
            }
            """,
            expandedSource: """
                struct SportCar {
                    var model: String
                    var topSpeed: Int

                    /// The identifier Molt gave this object when it was inserted, or nil before.
                    var persistentID: Int64? = nil

                    /// The model of the entity this one inherits from, as `@Model(parent:)` names it.
                    static var moltParent: any Molt.PersistentModel.Type {
                        Car.self
                    }
                }

                extension SportCar: Molt.PersistentModel {
                    /// The entity that stores `SportCar`, derived by `@Model`.
                    static let entity: Molt.Entity = Molt.Entity(
                        "SportCar",
                        parent: Self.moltParent.entity.name,
                        isAbstract: true,
                        attributes: [
                            Molt.Attribute("model", .string),
                            Molt.Attribute("topSpeed", .int),
                        ]
                    )

                    /// Reads a `SportCar` from its stored columns.
                    init(row: Molt.ModelRow) throws {
                        self.persistentID = row.id
                        self.model = try row.value(at: 0)
                        self.topSpeed = try row.value(at: 1)
                    }

                    /// Writes the stored properties in column order.
                    func encode(to columns: inout Molt.ModelColumns) {
                        columns.append(self.model)
                        columns.append(self.topSpeed)
                    }

                    /// The stored name of a key path.
                    static func propertyName(for keyPath: PartialKeyPath<Self>) -> String? {
                        if keyPath == \\Self.model {
                            return "model"
                        }
                        if keyPath == \\Self.topSpeed {
                            return "topSpeed"
                        }
                        return nil
                    }
                }
                """)
    }
}
