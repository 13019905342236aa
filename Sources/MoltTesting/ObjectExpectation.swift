/// What a fixture object should become after a migration to the newest version.
///
/// By default every fixture ``survives(_:links:ignoring:dropping:)`` unchanged: it keeps its identifier, its
/// values follow the schemas (renamed attributes keep their value, widened types are converted, added
/// attributes take their default). Give the values a stage computes, the objects a stage deletes, or exact
/// values:
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
///
/// ## Declared loss
///
/// A migration never loses a fixture's data without the test saying so. When a version removes the entity of
/// a fixture, the run fails unless its expectation is ``deleted`` (the objects are meant to go) or
/// ``values(_:in:)`` with the entity a stage moves them to. When a version removes an attribute that a fixture
/// gave a value, the run fails unless ``survives(_:links:ignoring:dropping:)`` names it in `dropping`:
///
/// ```swift
/// switch old.entity {
/// case "WineNote": return .values(["title": old["name"], "kind": "wine"], in: "Note")   // a stage moves it
/// case "Draft": return .deleted                                                          // version 3 deletes drafts
/// default: return .survives(dropping: old.version == 1 ? ["count"] : [])                 // version 2 removes count
/// }
/// ```
///
/// An object moved to another entity is found there by that entity's primary key (give its value), else by
/// the values expected, which must then match exactly one object: never by its old identifier, which means
/// nothing in another entity.
public struct ObjectExpectation: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case survives(changes: [String: Value], links: [String: [String]], ignoring: Set<String>, dropping: Set<String>)
        case exactly([String: Value], entity: String?)
        case deleted
        case unchecked
    }

    let kind: Kind
    /// Attributes of the fixture's version → `Entity.attribute` of the newest version their value moves to.
    var moved: [String: String] = [:]

    /// The object survives, with the values the schemas carry over, except `changes`.
    ///
    /// ```swift
    /// .survives()                                        // carried over as the schemas say
    /// .survives(["count": 100])                          // and a stage set count to 100
    /// .survives(links: ["tags": ["errand"]])             // and a stage linked it to the "errand" fixture
    /// .survives(ignoring: ["updatedAt"])                 // a value nobody can predict
    /// .survives(dropping: ["count"])                     // a version removes count, and its value with it
    /// ```
    ///
    /// - Parameters:
    ///   - changes: Expected values of the newest version's attributes that differ from what is carried over,
    ///     or that cannot be predicted (a type conversion or a required attribute filled by a stage).
    ///   - links: Expected links of relationships, by fixture key, that differ from what is carried over.
    ///   - ignoring: Attributes and relationships not to check.
    ///   - dropping: Attributes of the fixture's own version, by their name there, that a later version removes
    ///     on purpose with the fixture's value. A value the fixture gave to an attribute that a version removes
    ///     fails the run unless it is listed; a listed attribute that the migration keeps fails it too.
    public static func survives(
        _ changes: [String: Value] = [:], links: [String: FixtureLinks] = [:], ignoring: Set<String> = [],
        dropping: Set<String> = []
    ) -> ObjectExpectation {
        ObjectExpectation(
            kind: .survives(changes: changes, links: links.mapValues(\.keys), ignoring: ignoring, dropping: dropping))
    }

    /// The object survives with these values; attributes not listed are not checked (their values may be
    /// dropped).
    ///
    /// ```swift
    /// .values(["title": "Milk", "count": 100.0])
    /// .values(["name": old["name"]], in: "Category")   // a stage moved it to another entity
    /// ```
    ///
    /// - Parameters:
    ///   - values: The values it must hold, by attribute name at the newest version.
    ///   - entity: The entity it must belong to at the newest version, when that is not the one its own entity
    ///     became (required when a version removes its entity). It is found there by that entity's primary key
    ///     when `values` gives it, else as the one object that holds `values`; several such objects fail the
    ///     run as ambiguous.
    public static func values(_ values: [String: Value], in entity: String? = nil) -> ObjectExpectation {
        ObjectExpectation(kind: .exactly(values, entity: entity))
    }

    /// The migration deletes the object: it must be gone. The declaration a fixture of a removed entity needs
    /// when its objects are meant to go.
    ///
    /// ```swift
    /// old["memoTitle"] == "" ? .deleted : .survives()
    /// old.entity == "Draft" ? .deleted : .survives()    // version 3 removes the Draft entity
    /// ```
    public static var deleted: ObjectExpectation { ObjectExpectation(kind: .deleted) }

    /// Nothing is checked for this object.
    public static var unchecked: ObjectExpectation { ObjectExpectation(kind: .unchecked) }

    /// The expectation, with the fixture's value of `attribute` moved to `destination`: a version removes the
    /// attribute and a stage or a mapping writes its value into another entity (a split), so the value is
    /// neither kept in place nor dropped.
    ///
    /// The run checks that an object of the destination entity holds the value (the same value: a moved
    /// value is compared as stored): among the objects the migrated object links to when its entity has a
    /// relationship to the destination entity, else among every object of it (for an object whose own entity
    /// is removed, or not linked). A move declared for an attribute the migration keeps in place fails the run,
    /// as does a value found nowhere. A null value has nothing to move and is not checked.
    ///
    /// ```swift
    /// // Version 4 splits Person: street and city move to a new ContactInfo linked from Person.contact.
    /// try tester.migrateFromEveryVersion(fixtures: fixtures) { old in
    ///     old.version < 4 && old.entity == "Person"
    ///         ? .survives().moving("street", to: "ContactInfo.street").moving("city", to: "ContactInfo.city")
    ///         : .survives()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - attribute: The attribute, by its name at the fixture's version.
    ///   - destination: Where the value goes, as `Entity.attribute` of the newest version.
    /// - Returns: The expectation with the move added.
    public func moving(_ attribute: String, to destination: String) -> ObjectExpectation {
        var copy = self
        copy.moved[attribute] = destination
        return copy
    }
}
