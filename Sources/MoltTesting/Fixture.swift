/// An object to put in a test store: its entity, a key that names it in reports and links, its attribute
/// values, and its links to other fixtures.
///
/// Keys are the test's own names for objects ("groceries", "home"); the kit reports a lost object or a
/// changed value by its key, and follows it through migrations.
///
/// ```swift
/// let fixtures: [Fixture] = [
///     Fixture("Folder", "home", ["name": "Home"]),
///     Fixture("Note", "milk", ["text": "Buy milk", "pinned": true], links: ["folder": "home"]),
///     Fixture("Tag", "errand", ["label": "errand"], links: ["notes": ["milk"]]),
/// ]
/// ```
///
/// With typed models, write a fixture as a model value of its version (the `Fixture(_:_:links:)` that takes a
/// `PersistentModel`):
///
/// ```swift
/// Fixture("milk", V1.Note(text: "Buy milk", pinned: true), links: ["folder": "home"])
/// ```
public struct Fixture: Sendable, Hashable {
    /// The entity's name, in the schema version the fixture is inserted at.
    public var entity: String
    /// The fixture's name in reports and links; unique among the fixtures of one store.
    public var key: String
    /// Attribute values by name; missing ones take the attribute's default.
    public var values: [String: Value]
    /// Relationship name → keys of the fixtures it points to (one for a to-one relationship, in order for an
    /// ordered to-many one).
    public var links: [String: FixtureLinks]
    /// The model a typed fixture was written as, checked against its version when it is stored.
    var model: FixtureModel? = nil

    /// Creates a fixture.
    ///
    /// ```swift
    /// Fixture("UserMemo", "groceries", ["memoTitle": "Milk", "favorite": true])
    /// ```
    ///
    /// - Parameters:
    ///   - entity: The entity's name at the version the fixture is inserted at.
    ///   - key: The fixture's name in reports and links.
    ///   - values: Attribute values by name.
    ///   - links: Relationship name → keys of other fixtures of the same store.
    public init(_ entity: String, _ key: String, _ values: [String: Value] = [:], links: [String: FixtureLinks] = [:]) {
        self.entity = entity
        self.key = key
        self.values = values
        self.links = links
    }
}

/// The fixtures a relationship of a ``Fixture`` points to: one key (`"home"`) or a list (`["a", "b"]`).
///
/// ```swift
/// Fixture("Note", "milk", links: ["folder": "home", "tags": ["errand", "today"]])
/// ```
public struct FixtureLinks: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
    /// The keys of the destination fixtures, in order.
    public var keys: [String]

    /// Links to these fixtures, in order.
    public init(_ keys: [String]) { self.keys = keys }
    /// Links to one fixture.
    public init(stringLiteral key: String) { self.keys = [key] }
    /// Links to these fixtures, in order.
    public init(arrayLiteral keys: String...) { self.keys = keys }
}

/// A fixture as it was stored, read back from the store at its starting version: what migrations are
/// checked against.
///
/// ```swift
/// try tester.migrateFromEveryVersion(fixtures: fixtures) { old in
///     // old.version is the starting version; old["memoTitle"] the value the store held
///     old.version < 3 ? .survives(["title": old["memoTitle"]]) : .survives()
/// }
/// ```
public struct FixtureObject: Sendable, Hashable, CustomStringConvertible {
    /// The fixture's key.
    public let key: String
    /// The entity's name at ``version``.
    public let entity: String
    /// The schema version the object was stored at.
    public let version: Int
    /// The identifier Molt gave it, kept across migrations.
    public let id: Int64
    /// Its attribute values as the store returned them (defaults applied).
    public let values: [String: Value]
    /// Relationship name → keys of the fixtures it points to, as stored.
    public let links: [String: [String]]
    /// The attributes the fixture gave a value (the others hold their defaults): the data a migration must
    /// keep, or the expectation declare dropped.
    public let givenAttributes: Set<String>

    /// Creates the record of a stored fixture.
    ///
    /// - Parameters:
    ///   - key: The fixture's key.
    ///   - entity: Its entity.
    ///   - version: The schema version it was stored at.
    ///   - id: The identifier Molt gave it.
    ///   - values: Its attribute values as stored.
    ///   - links: Relationship name → keys of the fixtures it points to.
    ///   - givenAttributes: The attributes the fixture gave; nil for every attribute that holds a value.
    public init(
        key: String, entity: String, version: Int, id: Int64, values: [String: Value], links: [String: [String]],
        givenAttributes: Set<String>? = nil
    ) {
        self.key = key
        self.entity = entity
        self.version = version
        self.id = id
        self.values = values
        self.links = links
        self.givenAttributes = givenAttributes ?? Set(values.filter { !$0.value.isNull }.keys)
    }

    /// The value of an attribute; `.null` when it has none.
    public subscript(_ attribute: String) -> Value { values[attribute] ?? .null }

    /// The value of an attribute as a Swift type, or nil.
    public subscript<T: ValueConvertible>(_ attribute: String, as type: T.Type) -> T? { T(moltValue: self[attribute]) }

    /// `'Entity' object "key" (_id N)`, as reports name it.
    public var description: String { "'\(entity)' object \"\(key)\" (_id \(id))" }
}
