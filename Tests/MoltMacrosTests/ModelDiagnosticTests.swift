import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Model diagnostics")
struct ModelDiagnosticTests {
    @Test("@Model on a class is an error whose Fix-It makes it a struct")
    func onClass() {
        assertExpansion(
            "@Model class Note {\n    var title: String = \"\"\n}",
            expandedSource: "class Note {\n    var title: String = \"\"\n}",
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Model' applies to structs only, not to classs: Molt models are values, Sendable under Swift 6 and bound to no context",
                    line: 1, column: 1, fixIts: [FixItSpec(message: "Make it a struct")])
            ],
            fixedSource: "@Model struct Note {\n    var title: String = \"\"\n}")
    }

    @Test("@Model on an enum is an error without a Fix-It")
    func onEnum() {
        assertExpansion(
            "@Model enum Kind {\n    case a\n}",
            expandedSource: "enum Kind {\n    case a\n}",
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Model' applies to structs only, not to enums: Molt models are values, Sendable under Swift 6 and bound to no context",
                    line: 1, column: 1)
            ])
    }

    @Test("An unsupported property type is an error whose Fix-It marks it @Transient")
    func unsupportedType() {
        assertExpansion(
            "@Model struct Note {\n    var tags: [String] = []\n}",
            expandedSource:
                "struct Note {\n    var tags: [String] = []\n\n    /// The identifier Molt gave this object when it was inserted, or nil before.\n    var persistentID: Int64? = nil\n}",
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "Property 'tags' has type '[String]', which Molt cannot store; use String, Int, Int64, Int32, Int16, Double, Float, Decimal, Bool, Date, Data, UUID, a type of yours that conforms to PersistentValue (a RawRepresentable enum, a StoredAsJSON value), an Optional of one, ToOne<Model> or ToMany<Model>, or mark it '@Transient'",
                    line: 2, column: 15, fixIts: [FixItSpec(message: "Mark 'tags' '@Transient'")])
            ],
            fixedSource: "@Model struct Note {\n    @Transient var tags: [String] = []\n}")
    }

    @Test("A computed property marked @Attribute is an error whose Fix-It removes the attribute")
    func computedAttribute() {
        assertExpansion(
            "@Model struct Note {\n    var title: String\n    @Attribute var shout: String { title }\n}",
            expandedSource:
                "struct Note {\n    var title: String\n    var shout: String { title }\n\n    /// The identifier Molt gave this object when it was inserted, or nil before.\n    var persistentID: Int64? = nil\n}",
            diagnostics: [
                DiagnosticSpec(
                    message: "Property 'shout' is computed, so it is not stored; remove '@Attribute'", line: 3,
                    column: 5,
                    fixIts: [FixItSpec(message: "Remove '@Attribute'")])
            ],
            fixedSource: "@Model struct Note {\n    var title: String\n    var shout: String { title }\n}")
    }

    @Test("A stored property without a type annotation is an error whose Fix-It adds the literal's type")
    func missingType() {
        assertExpansion(
            "@Model struct Note {\n    var count = 0\n}",
            expandedSource:
                "struct Note {\n    var count = 0\n\n    /// The identifier Molt gave this object when it was inserted, or nil before.\n    var persistentID: Int64? = nil\n}",
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "Stored property 'count' needs a type annotation: '@Model' reads the stored type from the declaration",
                    line: 2, column: 9, fixIts: [FixItSpec(message: "Add ': Int'")])
            ],
            fixedSource: "@Model struct Note {\n    var count: Int = 0\n}")
    }

    @Test("A 'let' with an initial value is an error whose Fix-It makes it 'var'")
    func letWithValue() {
        assertExpansion(
            "@Model struct Note {\n    let kind: String = \"memo\"\n}",
            expandedSource:
                "struct Note {\n    let kind: String = \"memo\"\n\n    /// The identifier Molt gave this object when it was inserted, or nil before.\n    var persistentID: Int64? = nil\n}",
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "Property 'kind' is a 'let' with an initial value, so it cannot be read from the store; make it 'var', or mark it '@Transient'",
                    line: 2, column: 5, fixIts: [FixItSpec(message: "Replace 'let' with 'var'")])
            ],
            fixedSource: "@Model struct Note {\n    var kind: String = \"memo\"\n}")
    }

    @Test("Misused relationships, transients and primary keys are errors")
    func otherMisuse() {
        assertExpansion(
            """
            @Model struct Note {
                @Attribute(.primaryKey) var a: UUID
                @Attribute(.primaryKey) var b: UUID
                @Relationship(inverse: "x") var title: String
                @Attribute var folder: ToOne<Folder>
                var owner: ToOne<Person>?
                @Transient var cache: Int
            }
            """,
            expandedSource: """
                struct Note {
                    var a: UUID
                    var b: UUID
                    var title: String
                    var folder: ToOne<Folder>
                    var owner: ToOne<Person>?
                    var cache: Int

                    /// The identifier Molt gave this object when it was inserted, or nil before.
                    var persistentID: Int64? = nil
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "Property 'b' cannot be the primary key: 'a' already is; an entity has one primary key",
                    line: 3, column: 5),
                DiagnosticSpec(
                    message:
                        "'@Relationship' applies to ToOne<Model> and ToMany<Model> properties; 'title' is an attribute, use '@Attribute'",
                    line: 4, column: 5),
                DiagnosticSpec(
                    message: "'@Attribute' applies to attributes; 'folder' is a relationship, use '@Relationship'",
                    line: 5, column: 5),
                DiagnosticSpec(
                    message: "Relationship 'owner' is already optional as 'ToOne<Person>'; remove the '?'", line: 6,
                    column: 16, fixIts: [FixItSpec(message: "Remove '?'")]),
                DiagnosticSpec(
                    message:
                        "'@Transient' property 'cache' needs an initial value, because it is not read from the store",
                    line: 7, column: 20),
            ])
    }

    @Test(
        "A to-many relationship marked required or indexed is refused, saying why",
        arguments: [
            (
                "isOptional: false",
                "To-many relationship 'notes' cannot be required; write 'minimumCount: 1' instead of 'isOptional: false' to make it hold one destination or more"
            ),
            (
                "indexed: true",
                "To-many relationship 'notes' needs no index: it is stored in a join table whose links are always indexed; remove 'indexed: true'"
            ),
        ])
    func toManyMarks(argument: String, message: String) {
        assertExpansion(
            """
            @Model struct Folder {
                @Relationship(\(argument)) var notes: ToMany<Note> = []
            }
            """,
            expandedSource: """
                struct Folder {
                    var notes: ToMany<Note> = []

                    /// The identifier Molt gave this object when it was inserted, or nil before.
                    var persistentID: Int64? = nil
                }
                """,
            diagnostics: [DiagnosticSpec(message: message, line: 2, column: 19)])
    }

    @Test("A to-one relationship with a minimum count is refused, saying to make it required instead")
    func minimumCountOnToOne() {
        assertExpansion(
            """
            @Model struct Note {
                @Relationship(minimumCount: 1) var folder: ToOne<Folder> = nil
            }
            """,
            expandedSource: """
                struct Note {
                    var folder: ToOne<Folder> = nil

                    /// The identifier Molt gave this object when it was inserted, or nil before.
                    var persistentID: Int64? = nil
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "To-one relationship 'folder' cannot have a minimum count; write 'isOptional: false' instead of 'minimumCount:' to make it required",
                    line: 2, column: 19)
            ])
    }
}

@Suite("@Model on generic structs")
struct ModelGenericTests {
    @Test("A generic struct is refused: an entity has one fixed set of attributes")
    func generic() {
        assertExpansion(
            "@Model struct Box<T> {\n    var value: Int\n}",
            expandedSource: "struct Box<T> {\n    var value: Int\n}",
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' does not support generic structs: an entity has one fixed set of attributes",
                    line: 1, column: 15)
            ])
    }
}
