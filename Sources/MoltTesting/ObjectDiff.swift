/// How one fixture object differs, after a migration, from what was expected: missing, still present, with
/// some attribute values or links changed, with data lost that the expectation does not declare, or not to be
/// told apart from other objects.
///
/// Its ``description`` is the readable report:
///
/// ```
/// 'UserMemo' object "groceries" (_id 1, stored at version 0):
///   title: expected "Milk", found null
///   count: expected 100.0, found 0.0
/// ```
public struct ObjectDiff: Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the object.
    public enum Kind: Sendable, Hashable {
        /// It should have survived, but no object of its entity has its identifier (or primary key).
        case missing
        /// It should have been deleted, but it is still there.
        case notDeleted
        /// It survived, but some values or links differ; see ``ObjectDiff/differences``.
        case changed
        /// A version removes its entity, which deletes it, and the expectation neither declares it
        /// (``ObjectExpectation/deleted``) nor says where a stage moves it (``ObjectExpectation/values(_:in:)``).
        case entityRemoved(byVersion: Int)
        /// Versions remove attributes that held its values, and the expectation does not list them in
        /// `dropping`; see ``ObjectDiff/differences`` (found: ``PropertyDifference/Content/dropped(byVersion:)``).
        case valuesDropped
        /// It was expected in another entity, which has no primary key value to find it by, and this many
        /// objects there hold the expected values: the kit does not guess which one it became.
        case ambiguous(matches: Int)
    }

    /// The fixture as stored at its starting version.
    public let object: FixtureObject
    /// The entity's name at the newest version.
    public let entity: String
    /// What is wrong.
    public let kind: Kind
    /// For ``Kind/changed``: each attribute or relationship that differs.
    public let differences: [PropertyDifference]

    /// Creates a diff.
    public init(object: FixtureObject, entity: String, kind: Kind, differences: [PropertyDifference] = []) {
        self.object = object
        self.entity = entity
        self.kind = kind
        self.differences = differences
    }

    /// The report, one line per difference under a line naming the object.
    public var description: String {
        let name =
            "'\(entity)' object \"\(object.key)\" (_id \(object.id), stored at version \(object.version)"
            + (entity == object.entity ? ")" : " as '\(object.entity)')")
        switch kind {
        case .missing: return "\(name) is missing."
        case .notDeleted: return "\(name) should have been deleted, but is still there."
        case .changed, .valuesDropped: return "\(name):\n" + differences.map { "  \($0)" }.joined(separator: "\n")
        case .entityRemoved(let version): return "\(name) is deleted with its entity, which version \(version) removes."
        case .ambiguous(let matches):
            return "\(name) cannot be told apart: \(matches) '\(entity)' objects hold the expected values."
        }
    }
}

/// One attribute or relationship whose content differs from the expectation.
///
/// ```swift
/// for difference in diff.differences { print(difference) }   // title: expected "Milk", found null
/// ```
public struct PropertyDifference: Sendable, Hashable, CustomStringConvertible {
    /// What an attribute or a relationship holds.
    public enum Content: Sendable, Hashable, CustomStringConvertible {
        /// An attribute's value.
        case value(Value)
        /// A relationship's destinations, by fixture key (`_id N` for an object that is no fixture).
        case links([String])
        /// No value: the attribute is gone, removed by this version when one is named.
        case dropped(byVersion: Int?)
        /// A value moved to another entity's attribute (`Entity.attribute`), as
        /// ``ObjectExpectation/moving(_:to:)`` declares it.
        case moved(Value, to: String)

        /// `"Milk"`, `null`, `["home"]`, `nothing: version 2 removes it`, `"Elm St" in 'ContactInfo.street'`.
        public var description: String {
            switch self {
            case .value(let value): return value.description
            case .links(let keys): return "[" + keys.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
            case .dropped(let version?): return "nothing: version \(version) removes it"
            case .dropped(nil): return "nothing"
            case .moved(let value, let destination): return "\(value) in '\(destination)'"
            }
        }
    }

    /// The attribute's or relationship's name at the newest version.
    public let property: String
    /// What it should hold.
    public let expected: Content
    /// What it holds.
    public let found: Content

    /// Creates a difference.
    public init(property: String, expected: Content, found: Content) {
        self.property = property
        self.expected = expected
        self.found = found
    }

    /// `title: expected "Milk", found null`.
    public var description: String { "\(property): expected \(expected), found \(found)" }

    /// The differences between expected values and an object's values, attribute by attribute, in the
    /// order of `order` (then by name).
    ///
    /// ```swift
    /// let after = try objects.object("UserMemo", id: before.id!)!
    /// let diffs = PropertyDifference.compare(expected: ["title": "Milk"], with: after)
    /// #expect(diffs.isEmpty, "\(diffs)")
    /// ```
    ///
    /// - Parameters:
    ///   - expected: The values the object should hold; attributes not listed are not compared.
    ///   - object: The object as fetched.
    ///   - order: The attribute names in the order to report them; defaults to alphabetical.
    public static func compare(
        expected: [String: Value], with object: DynamicObject, order: [String] = []
    ) -> [PropertyDifference] {
        let names = order.filter { expected[$0] != nil } + expected.keys.filter { !order.contains($0) }.sorted()
        return names.compactMap { name in
            let want = expected[name]!
            let have = object[name]
            return want == have ? nil : PropertyDifference(property: name, expected: .value(want), found: .value(have))
        }
    }
}
