/// How the objects of one destination entity come from the objects of one source entity, in SQL: Core Data's
/// entity mapping, written in code (or JSON) where a review can read it.
///
/// When the destination is the source entity itself (same entity, possibly renamed), the mapping updates the
/// objects in place. Otherwise it creates one destination object per source object (matching `filter`):
/// that is how one entity is split into two, or several merged into one.
///
/// ```swift
/// // Compute an attribute in place.
/// EntityMapping(destination: "Person", attributes: ["fullName": "firstName || ' ' || lastName"])
/// // Split: an Address per Person, linked from the Person.
/// EntityMapping(destination: "Address", source: "Person", attributes: ["street": "street", "city": "city"])
/// EntityMapping(destination: "Person", links: [.init(relationship: "address", to: "Address")])
/// // Merge: every WineNote becomes a Note.
/// EntityMapping(destination: "Note", source: "WineNote", attributes: ["title": "name", "kind": "'wine'"])
/// ```
///
/// Expressions are SQL expressions over the source entity's attributes in the old version (`_id` is the
/// source object's identifier): `firstName || ' ' || lastName`, `CAST(count AS REAL)`, `COALESCE(count, 0)`.
/// Written in the portable subset (column names as declared, `||`, arithmetic and comparisons, `COALESCE`,
/// `NULLIF`, `CASE`, `CAST(x AS TEXT)`, `upper`, `lower`, `length`, `substr`, `trim`), one expression runs on
/// SQLite and PostgreSQL alike. For what the subset cannot say, ``overrides`` gives one engine its own SQL:
///
/// ```swift
/// EntityMapping(
///     destination: "Item", attributes: ["code": "printf('%05d', number)"],
///     overrides: [.postgresql: .init(attributes: ["code": "repeat('0', 5 - length(number::text)) || number::text"])])
/// ```
///
/// A mapping can also empty an entity that the new version keeps: every object of it is deleted, as a Core Data
/// mapping model does for an entity whose objects it does not migrate. Links to those objects go (to-one links
/// to them become null, to-many links to and from them are removed) and nothing else is deleted: no delete rule
/// runs, so a `cascade` never takes objects of an entity the mapping does not name, and a `deny` does not stop it.
///
/// ```swift
/// .mapping(from: 3, to: 4, [EntityMapping.emptying("ProductVariation")])
/// ```
///
/// In a mapping file: `{ "destination": "ProductVariation", "empty": true }`.
public struct EntityMapping: Codable, Sendable, Hashable {
    /// A relationship to set on each destination object: it points to the object of entity ``to`` that a
    /// mapping of the same stage made from the matching source object.
    public struct Link: Codable, Sendable, Hashable {
        /// The destination entity's relationship.
        public var relationship: String
        /// The entity of the objects to link to; one mapping of the stage must create or update them.
        public var to: String
        /// An SQL expression over this mapping's source object giving the identifier (`_id`) of the source
        /// object that `to`'s mapping came from. Nil: the same source object (for a split).
        public var sourceKey: String?

        /// Creates a link.
        public init(relationship: String, to: String, sourceKey: String? = nil) {
            self.relationship = relationship
            self.to = to
            self.sourceKey = sourceKey
        }
    }

    /// Expressions that replace the mapping's own on one engine: each attribute it names takes the override's
    /// expression, and a `filter` or a link's source key given here replaces the portable one.
    public struct Override: Codable, Sendable, Hashable {
        /// Destination attribute → SQL expression in the engine's own dialect.
        public var attributes: [String: String]
        /// The condition on the source objects, in the engine's dialect; nil keeps the mapping's.
        public var filter: String?
        /// Relationship of a ``Link`` → its ``Link/sourceKey`` in the engine's dialect.
        public var sourceKeys: [String: String]

        /// Creates an override.
        public init(attributes: [String: String] = [:], filter: String? = nil, sourceKeys: [String: String] = [:]) {
            self.attributes = attributes
            self.filter = filter
            self.sourceKeys = sourceKeys
        }

        enum CodingKeys: String, CodingKey { case attributes, filter, sourceKeys }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            attributes = try c.decodeIfPresent([String: String].self, forKey: .attributes) ?? [:]
            filter = try c.decodeIfPresent(String.self, forKey: .filter)
            sourceKeys = try c.decodeIfPresent([String: String].self, forKey: .sourceKeys) ?? [:]
        }
    }

    /// The entity of the new version whose objects this mapping updates or creates.
    public var destination: String
    /// The entity of the old version the values come from; nil for the destination's own old entity.
    public var source: String?
    /// An SQL condition on the source objects to map; nil for all of them.
    public var filter: String?
    /// Destination attribute → SQL expression over the source attributes.
    public var attributes: [String: String]
    /// Relationships to set once every mapping of the stage has run.
    public var links: [Link]
    /// Per-engine expressions, for what the portable subset cannot say; empty for most mappings.
    public var overrides: [DatabaseEngine: Override]
    /// Whether the mapping empties ``destination`` (``emptying(_:)``): deletes every one of its objects before the
    /// stage's other mappings run, rather than mapping values into them.
    public var empties: Bool = false

    /// A mapping that deletes every object of `entity`, an entity both versions have, and unlinks them (no delete
    /// rule runs); the stage's other mappings may then create objects in it.
    ///
    /// ```swift
    /// .mapping(from: 3, to: 4, [EntityMapping.emptying("ProductVariation")])
    /// ```
    ///
    /// - Parameter entity: The entity, by its name in the new version.
    public static func emptying(_ entity: String) -> EntityMapping {
        var mapping = EntityMapping(destination: entity)
        mapping.empties = true
        return mapping
    }

    /// Creates a mapping.
    public init(
        destination: String, source: String? = nil, filter: String? = nil, attributes: [String: String] = [:],
        links: [Link] = [], overrides: [DatabaseEngine: Override] = [:]
    ) {
        self.destination = destination
        self.source = source
        self.filter = filter
        self.attributes = attributes
        self.links = links
        self.overrides = overrides
    }

    /// The mapping as it runs on `engine`: its override's expressions in place of the portable ones.
    package func resolved(for engine: DatabaseEngine) -> EntityMapping {
        guard let override = overrides[engine] else { return self }
        var mapping = self
        mapping.attributes.merge(override.attributes) { _, engineOwn in engineOwn }
        mapping.filter = override.filter ?? filter
        mapping.links = links.map { link in
            var link = link
            link.sourceKey = override.sourceKeys[link.relationship] ?? link.sourceKey
            return link
        }
        return mapping
    }

    enum CodingKeys: String, CodingKey { case destination, source, filter, attributes, links, overrides, empty }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(destination, forKey: .destination)
        if empties { try c.encode(true, forKey: .empty) }
        try c.encodeIfPresent(source, forKey: .source)
        try c.encodeIfPresent(filter, forKey: .filter)
        try c.encode(attributes, forKey: .attributes)
        try c.encode(links, forKey: .links)
        if !overrides.isEmpty { try c.encode(overrides, forKey: .overrides) }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        destination = try c.decode(String.self, forKey: .destination)
        source = try c.decodeIfPresent(String.self, forKey: .source)
        filter = try c.decodeIfPresent(String.self, forKey: .filter)
        attributes = try c.decodeIfPresent([String: String].self, forKey: .attributes) ?? [:]
        links = try c.decodeIfPresent([Link].self, forKey: .links) ?? []
        empties = try c.decodeIfPresent(Bool.self, forKey: .empty) ?? false
        overrides = [:]
        for (name, override) in try c.decodeIfPresent([String: Override].self, forKey: .overrides) ?? [:] {
            guard let engine = DatabaseEngine(rawValue: name) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .overrides, in: c,
                    debugDescription:
                        "unknown engine '\(name)' in the overrides; the engines are \(DatabaseEngine.allCases.map { "'\($0.rawValue)'" }.joined(separator: " and "))"
                )
            }
            overrides[engine] = override
        }
    }
}
