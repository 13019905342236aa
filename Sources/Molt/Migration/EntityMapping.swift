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
/// Expressions are SQLite expressions over the source entity's attributes in the old version (`_id` is the
/// source object's identifier): `firstName || ' ' || lastName`, `CAST(count AS REAL)`, `COALESCE(count, 0)`.
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

    /// Creates a mapping.
    public init(
        destination: String, source: String? = nil, filter: String? = nil, attributes: [String: String] = [:],
        links: [Link] = []
    ) {
        self.destination = destination
        self.source = source
        self.filter = filter
        self.attributes = attributes
        self.links = links
    }

    enum CodingKeys: String, CodingKey { case destination, source, filter, attributes, links }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        destination = try c.decode(String.self, forKey: .destination)
        source = try c.decodeIfPresent(String.self, forKey: .source)
        filter = try c.decodeIfPresent(String.self, forKey: .filter)
        attributes = try c.decodeIfPresent([String: String].self, forKey: .attributes) ?? [:]
        links = try c.decodeIfPresent([Link].self, forKey: .links) ?? []
    }
}
