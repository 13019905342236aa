/// What a fixture object should become after a migration to the newest version.
///
/// By default every fixture ``survives(_:links:ignoring:)`` unchanged: it keeps its identifier, its values
/// follow the schemas (renamed attributes keep their value, widened types are converted, added attributes
/// take their default, removed ones vanish, and it disappears with its entity). Give the values a stage
/// computes, the objects a stage deletes, or exact values:
///
/// ```swift
/// try tester.migrateFromEveryVersion(fixtures: fixtures) { old in
///     switch old.key {
///     case "draft": return .deleted
///     case "legacy": return .values(["title": "Legacy", "count": 100.0])
///     default: return .survives(["memoDescription": .string("\(old["memoTitle"].string ?? "") memo")])
///     }
/// }
/// ```
public struct ObjectExpectation: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case survives(changes: [String: Value], links: [String: [String]], ignoring: Set<String>)
        case exactly([String: Value], entity: String?)
        case deleted
        case unchecked
    }

    let kind: Kind

    /// The object survives, with the values the schemas carry over, except `changes`.
    ///
    /// ```swift
    /// .survives()                                        // carried over as the schemas say
    /// .survives(["count": 100])                          // and a stage set count to 100
    /// .survives(links: ["tags": ["errand"]])             // and a stage linked it to the "errand" fixture
    /// .survives(ignoring: ["updatedAt"])                 // a value nobody can predict
    /// ```
    ///
    /// - Parameters:
    ///   - changes: Expected values of the newest version's attributes that differ from what is carried over,
    ///     or that cannot be predicted (a type conversion or a required attribute filled by a stage).
    ///   - links: Expected links of relationships, by fixture key, that differ from what is carried over.
    ///   - ignoring: Attributes and relationships not to check.
    public static func survives(
        _ changes: [String: Value] = [:], links: [String: FixtureLinks] = [:], ignoring: Set<String> = []
    ) -> ObjectExpectation {
        ObjectExpectation(kind: .survives(changes: changes, links: links.mapValues(\.keys), ignoring: ignoring))
    }

    /// The object survives with these values; attributes not listed are not checked.
    ///
    /// ```swift
    /// .values(["title": "Milk", "count": 100.0])
    /// .values(["name": old["name"]], in: "Category")   // a stage moved it to another entity
    /// ```
    ///
    /// - Parameters:
    ///   - values: The values it must hold, by attribute name at the newest version.
    ///   - entity: The entity it must belong to at the newest version, when that is not the one its own entity
    ///     became; it is then found by its identifier (or its primary key) in that entity.
    public static func values(_ values: [String: Value], in entity: String? = nil) -> ObjectExpectation {
        ObjectExpectation(kind: .exactly(values, entity: entity))
    }

    /// The migration deletes the object: it must be gone.
    ///
    /// ```swift
    /// old["memoTitle"] == "" ? .deleted : .survives()
    /// ```
    public static var deleted: ObjectExpectation { ObjectExpectation(kind: .deleted) }

    /// Nothing is checked for this object.
    public static var unchecked: ObjectExpectation { ObjectExpectation(kind: .unchecked) }
}
